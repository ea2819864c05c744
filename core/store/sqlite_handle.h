// A thin RAII layer over SQLite's C API: owned handles, prepared statements with typed binds and
// columns, and errors that name the database file. Deliberately small: the run store is its only
// user, and Debian's libsqlite3 (or any SQLite 3.35+) is all it needs.
//
//   Database db = Database::open(path, /*readOnly=*/false);
//   Statement s = db.prepare("SELECT id, name FROM runs WHERE status = ?");
//   s.bind(1, "running");
//   while (s.step()) use(s.int64(0), s.text(1));
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

struct sqlite3;
struct sqlite3_stmt;

namespace fl::store {

// Every store failure: says which file and what went wrong, e.g.
// "runs.db: file is not a database". Callers (app/) decide how to show it.
class StoreError : public std::runtime_error {
 public:
  StoreError(const std::string& path, const std::string& problem, bool busy = false,
             bool noSpace = false)
      : std::runtime_error(path + ": " + problem), m_path(path), m_busy(busy), m_noSpace(noSpace) {}
  const std::string& path() const { return m_path; }
  // Another connection held a lock: trying again later can succeed.
  bool isBusy() const { return m_busy; }
  // The disk (or quota) holding the store is full: reading it read-only can still succeed.
  bool isNoSpace() const { return m_noSpace; }

 private:
  std::string m_path;
  bool m_busy = false;
  bool m_noSpace = false;
};

struct SqliteCloser {
  void operator()(sqlite3* db) const;
};
struct StatementFinalizer {
  void operator()(sqlite3_stmt* s) const;
};

class Statement {
 public:
  Statement(sqlite3_stmt* stmt, std::string path);

  Statement& bind(int index, int64_t value);
  Statement& bind(int index, int value) { return bind(index, static_cast<int64_t>(value)); }
  Statement& bind(int index, double value);
  Statement& bind(int index, const std::string& value);
  Statement& bind(int index, const char* value) { return bind(index, std::string(value)); }
  Statement& bindBlob(int index, const void* data, size_t bytes);
  Statement& bindNull(int index);
  int parameterIndex(const char* name) const;  // 0 when the statement has no such parameter

  // Advances; true while a row is available. Throws StoreError on failure.
  bool step();
  // Runs a statement that returns no rows, then resets it for reuse.
  void run();
  void reset();

  int64_t int64(int column) const;
  double real(int column) const;
  std::string text(int column) const;
  bool isNull(int column) const;
  std::vector<uint8_t> blob(int column) const;

 private:
  std::unique_ptr<sqlite3_stmt, StatementFinalizer> m_stmt;
  std::string m_path;
};

class Database {
 public:
  // Opens (creating when allowed) the file. Never writes to it: a file that is not a database
  // stays untouched until a statement is run. A read-only connection never checkpoints on close.
  static Database open(const std::string& path, bool create, bool readOnly = false);
  // Opens the file read-only as a file nothing changes (SQLite's `immutable`): no -shm is made
  // and no lock is taken, so it reads a store in a folder this user cannot write. Only for a
  // file whose WAL holds nothing: an immutable connection never reads the WAL.
  static Database openImmutable(const std::string& path);

  // Whether closing this connection, when it is the last one, copies the WAL into the main file
  // (SQLite's default). Off while a file is still being vetted: a refused file keeps its -wal.
  void setCheckpointOnClose(bool enabled) const;

  Statement prepare(const std::string& sql) const;
  void exec(const std::string& sql) const;  // one or more statements, no results
  bool isReadOnly() const;
  int64_t lastInsertId() const;
  int changes() const;
  const std::string& path() const { return m_path; }
  sqlite3* raw() const { return m_db.get(); }

  [[noreturn]] void fail(const std::string& what) const;  // throws with SQLite's message

 private:
  Database(sqlite3* db, std::string path);
  // sqlite3_open_v2 of `name` (the path, or a URI of it), errors naming `path`.
  static Database connect(const std::string& name, const std::string& path, int flags);
  std::unique_ptr<sqlite3, SqliteCloser> m_db;
  std::string m_path;
};

// Begins with BEGIN IMMEDIATE (takes the write lock now, so two writers never deadlock on an
// upgrade), commits on commit(), rolls back if destroyed without it.
class Transaction {
 public:
  explicit Transaction(const Database& db);
  ~Transaction();
  void commit();

 private:
  const Database& m_db;
  bool m_done = false;
};

}  // namespace fl::store
