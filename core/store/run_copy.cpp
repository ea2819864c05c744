#include "core/store/run_copy.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>

#include <sqlite3.h>

#include "core/store/artifact_paths.h"

namespace fl::store {

namespace fs = std::filesystem;

namespace {

// A statement that copies values of any type from another one (sqlite3_value), which the
// typed Statement of sqlite_handle.h does not offer.
class RawStatement {
 public:
  RawStatement(const Database& db, const std::string& sql) : m_db(db) {
    if (sqlite3_prepare_v2(db.raw(), sql.c_str(), -1, &m_stmt, nullptr) != SQLITE_OK) {
      sqlite3_finalize(m_stmt);
      db.fail("cannot prepare '" + sql.substr(0, 60) + "'");
    }
  }
  ~RawStatement() { sqlite3_finalize(m_stmt); }
  RawStatement(const RawStatement&) = delete;
  RawStatement& operator=(const RawStatement&) = delete;

  bool step() {
    const int rc = sqlite3_step(m_stmt);
    if (rc == SQLITE_ROW) return true;
    if (rc == SQLITE_DONE) return false;
    m_db.fail("reading or writing a run");
  }
  void run() {
    while (step()) {
    }
    sqlite3_reset(m_stmt);
    sqlite3_clear_bindings(m_stmt);
  }
  RawStatement& bind(int i, int64_t v) {
    sqlite3_bind_int64(m_stmt, i, v);
    return *this;
  }
  RawStatement& bind(int i, const std::string& v) {
    sqlite3_bind_text(m_stmt, i, v.data(), static_cast<int>(v.size()), SQLITE_TRANSIENT);
    return *this;
  }
  RawStatement& bindColumnOf(int i, const RawStatement& source, int column) {
    sqlite3_bind_value(m_stmt, i, sqlite3_column_value(source.m_stmt, column));
    return *this;
  }
  int64_t int64(int column) const { return sqlite3_column_int64(m_stmt, column); }
  std::string text(int column) const {
    const auto* p = sqlite3_column_text(m_stmt, column);
    return p ? std::string(reinterpret_cast<const char*>(p),
                           static_cast<size_t>(sqlite3_column_bytes(m_stmt, column)))
             : std::string();
  }

 private:
  const Database& m_db;
  sqlite3_stmt* m_stmt = nullptr;
};

std::string joined(const std::vector<std::string>& columns, const std::string& suffix = "") {
  std::string out;
  for (const auto& c : columns) out += (out.empty() ? "" : ", ") + c + suffix;
  return out;
}

std::string placeholders(size_t n) {
  std::string out;
  for (size_t i = 0; i < n; ++i) out += i ? ", ?" : "?";
  return out;
}

// The columns of `table` both stores have, without `excluded`.
std::vector<std::string> sharedColumns(const Database& source, const Database& dest,
                                       const std::string& table,
                                       const std::set<std::string>& excluded) {
  const auto theirs = tableColumns(source, table);
  std::vector<std::string> out;
  for (const auto& c : tableColumns(dest, table))
    if (!excluded.count(c) && std::find(theirs.begin(), theirs.end(), c) != theirs.end())
      out.push_back(c);
  return out;
}

// Copies the rows of `table` whose run_id is `from` as rows of run `to`.
void copyChildRows(const Database& source, const Database& dest, const std::string& table,
                   int64_t from, int64_t to) {
  const auto columns = sharedColumns(source, dest, table, {"id", "run_id"});
  RawStatement read(source, "SELECT " + joined(columns) + " FROM " + table + " WHERE run_id = ?");
  read.bind(1, from);
  RawStatement write(dest, "INSERT INTO " + table + "(run_id, " + joined(columns) +
                               ") VALUES (?, " + placeholders(columns.size()) + ")");
  while (read.step()) {
    write.bind(1, to);
    for (size_t i = 0; i < columns.size(); ++i)
      write.bindColumnOf(static_cast<int>(i) + 2, read, static_cast<int>(i));
    write.run();
  }
}

fs::path resolve(const Database& db, const std::string& stored) {
  return resolveStoredArtifact(db.path(), stored);
}

// `name` in `folder`, or name-2, name-3... when taken: a replaced run's files stay untouched
// until its replacement is committed.
fs::path freeName(const fs::path& folder, const fs::path& name) {
  fs::path candidate = folder / name;
  for (int i = 2; fs::exists(candidate); ++i)
    candidate =
        folder / (name.stem().string() + "-" + std::to_string(i) + name.extension().string());
  return candidate;
}

void dropContent(const Database& dest, int64_t id) {
  for (const char* sql : {
           "DELETE FROM metrics WHERE series_id IN (SELECT id FROM series WHERE run_id = ?)",
           "DELETE FROM series WHERE run_id = ?",
           "DELETE FROM snapshots WHERE run_id = ?",
           "DELETE FROM artifacts WHERE run_id = ?",
           "DELETE FROM tags WHERE run_id = ?",
       }) {
    RawStatement s(dest, sql);
    s.bind(1, id).run();
  }
}

}  // namespace

std::vector<std::string> tableColumns(const Database& db, const std::string& table) {
  auto s = db.prepare("SELECT name FROM pragma_table_info(?)");
  s.bind(1, table);
  std::vector<std::string> out;
  while (s.step()) out.push_back(s.text(0));
  return out;
}

CopiedRun copyRun(const Database& source, int64_t sourceId, RunStore& dest, int64_t destId) {
  const Database& to = dest.database();
  CopiedRun out;

  const auto runColumns = sharedColumns(source, to, "runs", {"id"});
  RawStatement read(source, "SELECT " + joined(runColumns) + " FROM runs WHERE id = ?");
  read.bind(1, sourceId);
  if (!read.step()) throw StoreError(source.path(), "has no run " + std::to_string(sourceId));
  if (destId == 0) {
    RawStatement insert(to, "INSERT INTO runs(" + joined(runColumns) + ") VALUES (" +
                                placeholders(runColumns.size()) + ")");
    for (size_t i = 0; i < runColumns.size(); ++i)
      insert.bindColumnOf(static_cast<int>(i) + 1, read, static_cast<int>(i));
    insert.run();
    out.id = to.lastInsertId();
  } else {
    RawStatement files(to, "SELECT path FROM artifacts WHERE run_id = ?");
    files.bind(1, destId);
    while (files.step()) out.supersededFiles.push_back(resolve(to, files.text(0)).string());
    RawStatement update(to, "UPDATE runs SET " + joined(runColumns, " = ?") + " WHERE id = ?");
    for (size_t i = 0; i < runColumns.size(); ++i)
      update.bindColumnOf(static_cast<int>(i) + 1, read, static_cast<int>(i));
    update.bind(static_cast<int>(runColumns.size()) + 1, destId);
    update.run();
    dropContent(to, destId);
    out.id = destId;
  }

  copyChildRows(source, to, "tags", sourceId, out.id);
  copyChildRows(source, to, "snapshots", sourceId, out.id);

  // Series get new ids; their points follow them.
  const auto seriesColumns = sharedColumns(source, to, "series", {"id", "run_id"});
  RawStatement readSeries(source,
                          "SELECT id, " + joined(seriesColumns) + " FROM series WHERE run_id = ?");
  readSeries.bind(1, sourceId);
  RawStatement writeSeries(to, "INSERT INTO series(run_id, " + joined(seriesColumns) +
                                   ") VALUES (?, " + placeholders(seriesColumns.size()) + ")");
  std::map<int64_t, int64_t> seriesIds;
  while (readSeries.step()) {
    writeSeries.bind(1, out.id);
    for (size_t i = 0; i < seriesColumns.size(); ++i)
      writeSeries.bindColumnOf(static_cast<int>(i) + 2, readSeries, static_cast<int>(i) + 1);
    writeSeries.run();
    seriesIds[readSeries.int64(0)] = to.lastInsertId();
  }
  const auto pointColumns = sharedColumns(source, to, "metrics", {"series_id"});
  RawStatement readPoints(
      source, "SELECT series_id, " + joined(pointColumns) +
                  " FROM metrics WHERE series_id IN (SELECT id FROM series WHERE run_id = ?)");
  readPoints.bind(1, sourceId);
  RawStatement writePoints(to, "INSERT INTO metrics(series_id, " + joined(pointColumns) +
                                   ") VALUES (?, " + placeholders(pointColumns.size()) + ")");
  while (readPoints.step()) {
    writePoints.bind(1, seriesIds.at(readPoints.int64(0)));
    for (size_t i = 0; i < pointColumns.size(); ++i)
      writePoints.bindColumnOf(static_cast<int>(i) + 2, readPoints, static_cast<int>(i) + 1);
    writePoints.run();
  }

  // Checkpoints: the file first, then its row, relative to the destination's folder.
  const auto artifactColumns =
      sharedColumns(source, to, "artifacts", {"id", "run_id", "path", "bytes"});
  RawStatement readArtifacts(source, "SELECT path, " + joined(artifactColumns) +
                                         " FROM artifacts WHERE run_id = ? ORDER BY id");
  readArtifacts.bind(1, sourceId);
  RawStatement writeArtifact(to, "INSERT INTO artifacts(run_id, path, bytes, " +
                                     joined(artifactColumns) + ") VALUES (?, ?, ?, " +
                                     placeholders(artifactColumns.size()) + ")");
  const fs::path folder = dest.artifactFolder(out.id);
  const fs::path destRoot = fs::path(to.path()).parent_path();
  while (readArtifacts.step()) {
    const fs::path file = resolve(source, readArtifacts.text(0));
    std::error_code ec;
    if (!fs::is_regular_file(file, ec)) {
      out.missingFiles.push_back(file.string());
      continue;
    }
    fs::create_directories(folder, ec);
    if (ec) throw StoreError(to.path(), "cannot create " + folder.string() + ": " + ec.message());
    const fs::path target = freeName(folder, file.filename());
    fs::copy_file(file, target, ec);
    if (ec)
      throw StoreError(to.path(), "cannot copy " + file.string() + " to " + target.string() + ": " +
                                      ec.message());
    out.writtenFiles.push_back(target.string());
    writeArtifact.bind(1, out.id)
        .bind(2, fs::relative(target, destRoot).string())
        .bind(3, static_cast<int64_t>(fs::file_size(target)));
    for (size_t i = 0; i < artifactColumns.size(); ++i)
      writeArtifact.bindColumnOf(static_cast<int>(i) + 4, readArtifacts, static_cast<int>(i) + 1);
    writeArtifact.run();
    ++out.checkpoints;
  }
  return out;
}

}  // namespace fl::store
