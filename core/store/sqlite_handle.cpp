#include "core/store/sqlite_handle.h"

#include <cerrno>
#include <cstdio>

#include <sqlite3.h>

#include "core/store/file_size_limit.h"

namespace fl::store {

void SqliteCloser::operator()(sqlite3* db) const { sqlite3_close_v2(db); }
void StatementFinalizer::operator()(sqlite3_stmt* s) const { sqlite3_finalize(s); }

namespace {

bool isBusyCode(int rc) { return (rc & 0xff) == SQLITE_BUSY || (rc & 0xff) == SQLITE_LOCKED; }

std::string pathOf(sqlite3* db) {
  const char* name = db ? sqlite3_db_filename(db, "main") : nullptr;
  return name ? name : "";
}

// SQLite says "database or disk is full" for the database, and a bare "disk I/O error" where
// its -shm or -wal could not grow: the system's errno tells the second apart (a full device or
// quota, or a limit on the size of a file this process may write) where SQLite kept it, and
// the files' sizes against the process's limit where a later call overwrote it.
bool isNoSpace(sqlite3* db, int rc) {
  const int code = (db ? sqlite3_extended_errcode(db) : rc) & 0xff;
  if (code == SQLITE_FULL) return true;
  if (code != SQLITE_IOERR) return false;
  const int error = db ? sqlite3_system_errno(db) : 0;
  return error == ENOSPC || error == EDQUOT || error == EFBIG ||
         fileSizeLimitReached(pathOf(db)).has_value();
}

// `full`: SQLite said "database or disk is full", which is right unless the limit was reached
// (a write cut short at the limit reads as a full disk).
std::string noSpaceReason(sqlite3* db, bool full) {
  if (const auto limit = fileSizeLimitReached(pathOf(db)))
    return " (a file of it reached this process's file size limit, " + std::to_string(*limit) +
           " bytes: `ulimit -f`)";
  if (full) return "";
  if (sqlite3_system_errno(db) == EFBIG)
    return " (a file of it reached this process's file size limit: `ulimit -f`)";
  return " (no space left on the device holding it)";
}

std::string describe(sqlite3* db, int rc) {
  const int extended = db ? sqlite3_extended_errcode(db) : rc;
  std::string message = db ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
  switch (extended & 0xff) {
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
      return message + " (another process holds the write lock past the busy timeout)";
    case SQLITE_CORRUPT:
      return "is truncated or corrupt (" + message + ")";
    case SQLITE_NOTADB:
      return "is not an SQLite database (" + message + ")";
    case SQLITE_READONLY:
      return "is read-only (" + message + ")";
    default:
      if (!isNoSpace(db, rc)) return message;
      return message + noSpaceReason(db, (extended & 0xff) == SQLITE_FULL);
  }
}

}  // namespace

Statement::Statement(sqlite3_stmt* stmt, std::string path)
    : m_stmt(stmt), m_path(std::move(path)) {}

#define FL_CHECK_BIND(call)                                                                        \
  do {                                                                                             \
    if ((call) != SQLITE_OK)                                                                       \
      throw StoreError(                                                                            \
          m_path, std::string("bind failed: ") + sqlite3_errmsg(sqlite3_db_handle(m_stmt.get()))); \
  } while (0)

Statement& Statement::bind(int index, int64_t value) {
  FL_CHECK_BIND(sqlite3_bind_int64(m_stmt.get(), index, value));
  return *this;
}
Statement& Statement::bind(int index, double value) {
  FL_CHECK_BIND(sqlite3_bind_double(m_stmt.get(), index, value));
  return *this;
}
Statement& Statement::bind(int index, const std::string& value) {
  FL_CHECK_BIND(sqlite3_bind_text(m_stmt.get(), index, value.data(), static_cast<int>(value.size()),
                                  SQLITE_TRANSIENT));
  return *this;
}
Statement& Statement::bindBlob(int index, const void* data, size_t bytes) {
  FL_CHECK_BIND(sqlite3_bind_blob64(m_stmt.get(), index, data, bytes, SQLITE_TRANSIENT));
  return *this;
}
Statement& Statement::bindNull(int index) {
  FL_CHECK_BIND(sqlite3_bind_null(m_stmt.get(), index));
  return *this;
}
#undef FL_CHECK_BIND

int Statement::parameterIndex(const char* name) const {
  return sqlite3_bind_parameter_index(m_stmt.get(), name);
}

bool Statement::step() {
  const int rc = sqlite3_step(m_stmt.get());
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  sqlite3* db = sqlite3_db_handle(m_stmt.get());
  const std::string message = describe(db, rc);
  sqlite3_reset(m_stmt.get());
  throw StoreError(m_path, message, isBusyCode(rc), isNoSpace(db, rc));
}

void Statement::run() {
  while (step()) {
  }
  reset();
}

void Statement::reset() {
  sqlite3_reset(m_stmt.get());
  sqlite3_clear_bindings(m_stmt.get());
}

int64_t Statement::int64(int column) const { return sqlite3_column_int64(m_stmt.get(), column); }
double Statement::real(int column) const { return sqlite3_column_double(m_stmt.get(), column); }
bool Statement::isNull(int column) const {
  return sqlite3_column_type(m_stmt.get(), column) == SQLITE_NULL;
}
std::string Statement::text(int column) const {
  const auto* p = sqlite3_column_text(m_stmt.get(), column);
  const int n = sqlite3_column_bytes(m_stmt.get(), column);
  return p ? std::string(reinterpret_cast<const char*>(p), static_cast<size_t>(n)) : std::string();
}
std::vector<uint8_t> Statement::blob(int column) const {
  const auto* p = static_cast<const uint8_t*>(sqlite3_column_blob(m_stmt.get(), column));
  const int n = sqlite3_column_bytes(m_stmt.get(), column);
  return p ? std::vector<uint8_t>(p, p + n) : std::vector<uint8_t>();
}

Database::Database(sqlite3* db, std::string path) : m_db(db), m_path(std::move(path)) {}

Database Database::connect(const std::string& name, const std::string& path, int flags) {
  sqlite3* raw = nullptr;
  flags |= SQLITE_OPEN_NOMUTEX;  // each connection is used by one thread at a time
  const int rc = sqlite3_open_v2(name.c_str(), &raw, flags, nullptr);
  Database db(raw, path);
  if (rc != SQLITE_OK) {
    const std::string message = raw ? sqlite3_errmsg(raw) : sqlite3_errstr(rc);
    throw StoreError(path, "cannot open: " + message);
  }
  sqlite3_extended_result_codes(raw, 1);
  return db;
}

Database Database::open(const std::string& path, bool create, bool readOnly) {
  int flags = readOnly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE;
  if (create && !readOnly) flags |= SQLITE_OPEN_CREATE;
  Database db = connect(path, path, flags);
  if (readOnly) db.setCheckpointOnClose(false);
  return db;
}

Database Database::openImmutable(const std::string& path) {
  // A URI's path is percent-encoded where a character would end it or start an escape.
  std::string uri = "file:";
  for (const unsigned char c : path) {
    if (c == '?' || c == '#' || c == '%' || c < 0x20 || c >= 0x7f) {
      char escaped[4];
      std::snprintf(escaped, sizeof escaped, "%%%02X", c);
      uri += escaped;
    } else {
      uri += static_cast<char>(c);
    }
  }
  uri += "?immutable=1";
  return connect(uri, path, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI);
}

void Database::setCheckpointOnClose(bool enabled) const {
  // SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE exists since SQLite 3.28 (Debian 12 has 3.40).
  sqlite3_db_config(m_db.get(), SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, enabled ? 0 : 1, nullptr);
}

Statement Database::prepare(const std::string& sql) const {
  sqlite3_stmt* stmt = nullptr;
  const int rc =
      sqlite3_prepare_v2(m_db.get(), sql.c_str(), static_cast<int>(sql.size()), &stmt, nullptr);
  if (rc != SQLITE_OK) {
    sqlite3_finalize(stmt);
    fail("cannot prepare '" + sql.substr(0, 60) + "'");
  }
  return Statement(stmt, m_path);
}

void Database::exec(const std::string& sql) const {
  const int rc = sqlite3_exec(m_db.get(), sql.c_str(), nullptr, nullptr, nullptr);
  if (rc != SQLITE_OK)
    throw StoreError(m_path, describe(m_db.get(), rc), isBusyCode(rc), isNoSpace(m_db.get(), rc));
}

bool Database::isReadOnly() const { return sqlite3_db_readonly(m_db.get(), "main") == 1; }
int64_t Database::lastInsertId() const { return sqlite3_last_insert_rowid(m_db.get()); }
int Database::changes() const { return sqlite3_changes(m_db.get()); }

void Database::fail(const std::string& what) const {
  const int rc = sqlite3_errcode(m_db.get());
  throw StoreError(m_path, what + ": " + describe(m_db.get(), rc), isBusyCode(rc),
                   isNoSpace(m_db.get(), rc));
}

Transaction::Transaction(const Database& db) : m_db(db) { m_db.exec("BEGIN IMMEDIATE"); }

Transaction::~Transaction() {
  if (!m_done) {
    try {
      m_db.exec("ROLLBACK");
    } catch (...) {
      // Nothing more to do: SQLite rolls back a failed transaction itself.
    }
  }
}

void Transaction::commit() {
  m_db.exec("COMMIT");
  m_done = true;
}

}  // namespace fl::store
