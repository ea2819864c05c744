// Looks into a run store from a test the way a user with the sqlite3 shell would, independent
// of the code under test: raw SQL on a read-only connection, and a process identity that is
// certainly dead (to fake a run whose writer was killed).
#pragma once

#include <sys/wait.h>
#include <unistd.h>

#include <cstdint>
#include <string>

#include <sqlite3.h>

#include "core/store/process_identity.h"

namespace fl::testing {

// The first column of the first row as text ("(no row)" when there is none).
inline std::string queryText(const std::string& path, const std::string& sql) {
  sqlite3* db = nullptr;
  sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr);
  sqlite3_busy_timeout(db, 5000);
  sqlite3_stmt* s = nullptr;
  sqlite3_prepare_v2(db, sql.c_str(), -1, &s, nullptr);
  std::string out = "(no row)";
  if (s && sqlite3_step(s) == SQLITE_ROW && sqlite3_column_text(s, 0))
    out = reinterpret_cast<const char*>(sqlite3_column_text(s, 0));
  sqlite3_finalize(s);
  sqlite3_close(db);
  return out;
}

// The same as a number; -1 when the file or the row is missing.
inline int64_t queryInt(const std::string& path, const std::string& sql) {
  const std::string text = queryText(path, sql);
  return text == "(no row)" ? -1 : std::stoll(text);
}

// Changes the store as an older build or a user's sqlite3 shell would: "" when it went, else
// SQLite's message.
inline std::string writeSql(const std::string& path, const std::string& sql) {
  sqlite3* db = nullptr;
  sqlite3_open(path.c_str(), &db);
  sqlite3_busy_timeout(db, 5000);
  char* error = nullptr;
  const int rc = sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &error);
  std::string out = rc == SQLITE_OK ? "" : (error ? error : sqlite3_errstr(rc));
  sqlite3_free(error);
  sqlite3_close(db);
  return out;
}

// The identity of a process that has exited: a real pid, now gone.
inline fl::store::ProcessIdentity deadProcess() {
  auto me = fl::store::currentProcess();
  const pid_t child = fork();
  if (child == 0) _exit(0);
  waitpid(child, nullptr, 0);
  return {me.host, child, 12345};
}

}  // namespace fl::testing
