#include "core/store/run_store.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <limits>
#include <regex>
#include <set>
#include <sstream>
#include <type_traits>

#include <pwd.h>
#include <unistd.h>

#include "core/engine/natural_order.h"
#include "core/engine/symlink_target.h"
#include "core/store/artifact_paths.h"
#include "core/store/config_hash.h"
#include "core/store/open_checks.h"
#include "core/store/run_batching.h"
#include "core/store/run_verdicts.h"
#include "core/store/schema.h"
#include "core/text/utf8.h"
#include "fourierlab/version.h"

namespace fl::store {

namespace fs = std::filesystem;

namespace {

constexpr const char* kRunColumns =
    "id, experiment, name, status, config, device, seed, created, started, finished, "
    "app_version, build, notes, message, last_step, total_steps, archived, uid, config_hash";

double nowSeconds() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

struct SeriesBatch {
  int64_t count = 0;
  double last = NAN;
  int64_t lastStep = std::numeric_limits<int64_t>::min();
  double min = NAN;
  int64_t minStep = 0;
  double max = NAN;
  int64_t maxStep = 0;
};

// Counts a metric point into its series' batch: the latest point is the last, and only finite
// values can be a minimum or a maximum.
void addToBatch(SeriesBatch& b, const MetricEvent& m) {
  ++b.count;
  if (m.step >= b.lastStep) {
    b.lastStep = m.step;
    b.last = m.value;
  }
  if (!std::isfinite(m.value)) return;
  if (std::isnan(b.min) || m.value < b.min) {
    b.min = m.value;
    b.minStep = m.step;
  }
  if (std::isnan(b.max) || m.value > b.max) {
    b.max = m.value;
    b.maxStep = m.step;
  }
}

// Folds each batch into its series' stored summary (count, last, min and max with their steps).
void updateSeriesSummaries(const Database& db, const std::map<int64_t, SeriesBatch>& batches) {
  auto updateSeries = db.prepare(
      "UPDATE series SET count = count + ?1, "
      "last = CASE WHEN last_step IS NULL OR ?2 >= last_step THEN ?3 ELSE last END, "
      "last_step = CASE WHEN last_step IS NULL OR ?2 >= last_step THEN ?2 ELSE last_step END, "
      "min = CASE WHEN ?4 IS NOT NULL AND (min IS NULL OR ?4 < min) THEN ?4 ELSE min END, "
      "min_step = CASE WHEN ?4 IS NOT NULL AND (min IS NULL OR ?4 < min) THEN ?5 ELSE min_step "
      "END, "
      "max = CASE WHEN ?6 IS NOT NULL AND (max IS NULL OR ?6 > max) THEN ?6 ELSE max END, "
      "max_step = CASE WHEN ?6 IS NOT NULL AND (max IS NULL OR ?6 > max) THEN ?7 ELSE max_step END "
      "WHERE id = ?8");
  for (const auto& [series, b] : batches) {
    updateSeries.bind(1, b.count).bind(2, b.lastStep);
    if (std::isfinite(b.last))
      updateSeries.bind(3, b.last);
    else
      updateSeries.bindNull(3);
    if (std::isnan(b.min))
      updateSeries.bindNull(4);
    else
      updateSeries.bind(4, b.min);
    updateSeries.bind(5, b.minStep);
    if (std::isnan(b.max))
      updateSeries.bindNull(6);
    else
      updateSeries.bind(6, b.max);
    updateSeries.bind(7, b.maxStep).bind(8, series);
    updateSeries.run();
  }
}

std::string toJsonText(const std::vector<SnapshotAxis>& axes) {
  nlohmann::json j = nlohmann::json::array();
  for (const auto& a : axes)
    j.push_back({{"label", a.label}, {"unit", a.unit}, {"ticks", a.ticks}});
  return j.dump();
}

// One stored snapshot, through the batch's prepared INSERT.
void insertSnapshotRow(Statement& insert, int64_t runId, const SnapshotEvent& s) {
  const auto& snap = s.snapshot;
  insert.bind(1, runId)
      .bind(2, s.step)
      .bind(3, snap.name)
      .bind(4, nlohmann::json(snap.shape).dump())
      .bindBlob(5, snap.data.data(), snap.data.size() * sizeof(float))
      .bind(6, toJsonText(snap.axes))
      .bind(7, snap.valueLabel)
      .bind(8, snap.meta.dump())
      .bind(9, toString(snap.role));
  insert.run();
}

// Why a stored snapshot row cannot be read back; snapshots() names the row in a StoreError.
// The row's JSON and blob are checked, not trusted: in a file another program wrote or a disk
// damaged, nlohmann's exceptions would escape every StoreError handler, a tick beyond float's
// range would be an undefined conversion, and a shape that overflows or disagrees with the data
// would send Snapshot::numel(), which the widgets index by, out of bounds.
struct BadSnapshotRow : std::runtime_error {
  using std::runtime_error::runtime_error;
};

std::vector<int64_t> shapeFromJson(const std::string& text, size_t values) {
  const auto j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!j.is_array()) throw BadSnapshotRow("its shape is not a JSON array of sizes");
  std::vector<int64_t> shape;
  int64_t count = 1;
  for (const auto& d : j) {
    if (!d.is_number_unsigned() ||
        d.get<uint64_t>() > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))
      throw BadSnapshotRow("its shape is not a JSON array of sizes");
    shape.push_back(d.get<int64_t>());
    if (__builtin_mul_overflow(count, shape.back(), &count))
      throw BadSnapshotRow("its shape's element count overflows");
  }
  if (!shape.empty() && static_cast<uint64_t>(count) != values)
    throw BadSnapshotRow("its shape holds " + std::to_string(count) + " values, its data " +
                         std::to_string(values));
  return shape;
}

std::vector<float> ticksFromJson(const nlohmann::json& j) {
  std::vector<float> ticks;
  for (const auto& t : j) {
    if (t.is_null()) {  // a NaN or infinite tick is written as null
      ticks.push_back(NAN);
      continue;
    }
    if (!t.is_number() || std::abs(t.get<double>()) > std::numeric_limits<float>::max())
      throw BadSnapshotRow("an axis tick is not a float32 number");
    ticks.push_back(t.get<float>());
  }
  return ticks;
}

std::vector<SnapshotAxis> axesFromJson(const std::string& text) {
  const auto j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!j.is_array()) throw BadSnapshotRow("its axes are not a JSON array");
  std::vector<SnapshotAxis> axes;
  for (const auto& a : j) {
    if (!a.is_object()) throw BadSnapshotRow("an axis is not a JSON object");
    const auto label = a.value("label", nlohmann::json("")),
               unit = a.value("unit", nlohmann::json(""));
    const auto ticks = a.value("ticks", nlohmann::json::array());
    if (!label.is_string() || !unit.is_string() || !ticks.is_array())
      throw BadSnapshotRow("an axis's label, unit or ticks has the wrong JSON type");
    axes.push_back({label.get<std::string>(), unit.get<std::string>(), ticksFromJson(ticks)});
  }
  return axes;
}

// SQLite writes its -wal and -shm files beside the store: in a folder this user cannot write,
// a read-write open fails with "attempt to write a readonly database" or "unable to open
// database file", which names neither the folder nor what to do.
[[noreturn]] void rethrowNamingFolder(const StoreError& error, const std::string& path) {
  const auto folder = fs::path(path).parent_path();
  if (!error.isBusy() && ::access(folder.c_str(), W_OK) != 0)
    throw StoreError(path, "its folder " + folder.string() +
                               " is not writable for this user (the "
                               "run store needs to create files beside it; " +
                               error.what() + ")");
  throw error;
}

// A store in WAL mode writes its -wal and -shm files beside it: in a folder this user cannot
// write, opening succeeds and the first write fails with "attempt to write a readonly
// database". Said up front, naming the folder. Files already there and writable (another
// process has the store open) are enough.
bool writable(const std::string& file) { return ::access(file.c_str(), W_OK) == 0; }

bool folderLetsThisUserWrite(const std::string& path) {
  return writable(fs::path(path).parent_path().string()) ||
         (writable(path + "-wal") && writable(path + "-shm"));
}

void requireWritableFolder(const std::string& path) {
  const auto folder = fs::path(path).parent_path();
  if (::access(folder.c_str(), W_OK) == 0) return;
  const int error = errno;
  if (folderLetsThisUserWrite(path)) return;
  throw StoreError(path, "its folder " + folder.string() +
                             " is not writable for this user (the run store needs to create "
                             "files beside it: " +
                             std::strerror(error) + ")");
}

// A read-only connection to a store in WAL mode uses the -shm file beside it, and creates it
// (and an empty -wal) where there is none and the folder lets it. Files so created belong to
// the reader, with the store's mode: a colleague reading a store in a shared folder locked its
// owner out of writing it. So a reader who may not write the store, where there is no -shm (no
// connection has the store open) and the WAL holds nothing, reads the file as immutable: what
// it holds, creating nothing (a writer that starts later is not seen). Otherwise a -shm there
// is used, so a writer's new writes are seen, unless it cannot grow (a full disk) while the WAL
// holds nothing; one is created only where unmerged writes in the WAL need it, and refused
// where the folder forbids it.
Database openReadOnly(const std::string& path) {
  const auto folder = fs::path(path).parent_path();
  std::error_code ec;
  const auto walBytes = fs::file_size(path + "-wal", ec);
  const bool walEmpty = ec || walBytes == 0;
  const bool shm = fs::exists(path + "-shm", ec);
  if (!shm && walEmpty && !RunStore::writableByThisUser(path)) return Database::openImmutable(path);
  if (!shm && ::access(folder.c_str(), W_OK) != 0)
    throw StoreError(path, "its last writes are still in " + path +
                               "-wal, which cannot be read without creating a file in its "
                               "folder " +
                               folder.string() +
                               ", and that folder is not writable for this user; open it once "
                               "where the folder can be written");
  Database db = Database::open(path, /*create=*/false, /*readOnly=*/true);
  if (!walEmpty) return db;
  try {
    db.exec("SELECT count(*) FROM sqlite_master");  // the first read maps the -shm
    return db;
  } catch (const StoreError& e) {
    if (!e.isNoSpace()) throw;
  }
  return Database::openImmutable(path);
}

std::string placeholders(size_t n) {
  std::string out;
  for (size_t i = 0; i < n; ++i) out += i ? ",?" : "?";
  return out;
}

}  // namespace

std::optional<std::string> textProblem(const std::string& text, const std::string& what) {
  size_t bad = 0;
  char byte[8];
  // Notes are plural, and keep their line breaks and tabs; a name is one line.
  const bool notes = what == "notes";
  const std::string subject = "the " + what;
  if (!fl::text::decodeUtf8(text, &bad)) {
    std::snprintf(byte, sizeof byte, "0x%02X", static_cast<unsigned char>(text[bad]));
    return subject + (notes ? " are" : " is") + " not UTF-8 text (byte " + byte + " at offset " +
           std::to_string(bad) + ")";
  }
  // A control character (an escape sequence, a line break in a name) was stored and printed
  // raw: `runs list` broke its table over lines and handed the terminal the escape.
  for (size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if ((c < 0x20 || c == 0x7f) && !(notes && (c == '\n' || c == '\t' || c == '\r'))) {
      std::snprintf(byte, sizeof byte, "0x%02X", c);
      return subject + (notes ? " hold" : " holds") + " a control character (byte " + byte +
             " at offset " + std::to_string(i) + ")" +
             (c == '\n' ? ": a " + what + " is one line" : std::string());
    }
  }
  return std::nullopt;
}

bool sameTag(const std::string& a, const std::string& b) {
  const auto lower = [](unsigned char c) { return c < 128 ? std::tolower(c) : c; };
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(),
                                            [&](char x, char y) { return lower(x) == lower(y); });
}

std::optional<std::string> tagProblem(const std::string& tag) {
  if (auto problem = textProblem(tag, "tag")) return problem;
  const auto blank = [](unsigned char c) { return std::isspace(c) != 0; };
  if (fl::text::isBlank(tag)) return std::string("a tag cannot be empty or blank");
  if (blank(tag.front()) || blank(tag.back()))
    return "tag '" + tag + "' starts or ends with a space";
  if (tag.find(',') != std::string::npos)
    return "tag '" + tag + "' holds a comma: tags are listed comma-separated, use two tags";
  if (std::any_of(tag.begin(), tag.end(), [](unsigned char c) { return c < 0x20 || c == 0x7f; }))
    return "tag '" + tag + "' holds a control character";
  return std::nullopt;
}

namespace {

void checkTags(const std::vector<std::string>& tags) {
  for (const auto& t : tags)
    if (auto problem = tagProblem(t)) throw std::invalid_argument(*problem);
}

void checkText(const std::string& text, const std::string& what) {
  if (auto problem = textProblem(text, what)) throw std::invalid_argument(*problem);
}

}  // namespace

std::optional<RunStatus> parseRunStatus(const std::string& text) {
  for (auto s : {RunStatus::Queued, RunStatus::Running, RunStatus::Finished, RunStatus::Cancelled,
                 RunStatus::Failed, RunStatus::Interrupted})
    if (toString(s) == text) return s;
  return std::nullopt;
}

std::string RunStore::defaultPath() {
  // As the XDG base directory specification says: a relative XDG_DATA_HOME is ignored, and
  // without HOME (a cron job, `env -i`) the user's home is the account's. The store had gone
  // to ./.local/share of whatever folder the command ran in.
  const char* xdg = std::getenv("XDG_DATA_HOME");
  fs::path base;
  if (xdg && *xdg && fs::path(xdg).is_absolute()) {
    base = xdg;
  } else {
    const char* home = std::getenv("HOME");
    const passwd* account = home && *home ? nullptr : ::getpwuid(::getuid());
    const char* dir = home && *home ? home : account && account->pw_dir ? account->pw_dir : "";
    base = fs::path(dir) / ".local" / "share";
  }
  return (base / "fourierlab" / "runs.db").string();
}

namespace {

// A device, a pipe or a socket: SQLite's open answered "disk I/O error" and left a -journal
// beside /dev/null, where a reading command had been asked only to read.
void refuseSpecialFile(const std::string& path, fs::file_status status) {
  if (fs::exists(status) && !fs::is_regular_file(status) && !fs::is_directory(status))
    throw StoreError(path,
                     "is not a regular file (a device, a pipe or a socket), not a run store; "
                     "left as it is");
}

// Still a link once resolvedPath followed it: a loop of links. SQLite had said "unable to open
// database file", and a reading command "no such file".
void refuseLinkLoop(const std::string& path) {
  std::error_code ec;
  if (fs::is_symlink(fs::symlink_status(path, ec)))
    throw StoreError(path, "is a loop of symbolic links, not a run store; left as it is");
}

}  // namespace

std::string RunStore::resolvedPath(const std::string& givenPath) {
  return fs::path(symlinkTarget(fs::absolute(givenPath).string())).lexically_normal().string();
}

bool RunStore::writableByThisUser(const std::string& givenPath) {
  const std::string path = resolvedPath(givenPath);
  return writable(path) && folderLetsThisUserWrite(path);
}

void RunStore::requireExisting(const std::string& givenPath) {
  const std::string path = resolvedPath(givenPath);
  refuseLinkLoop(path);
  std::error_code ec;
  const auto status = fs::status(path, ec);
  if (ec || !fs::exists(status))
    throw StoreError(path, "no run store at this path (no such file); nothing was created");
  if (fs::is_directory(status)) throw StoreError(path, "is a folder, not a run store");
  refuseSpecialFile(path, status);
  if (fs::is_regular_file(status) && fs::file_size(path, ec) == 0 && !ec)
    throw StoreError(path, "is an empty file, not a run store; left as it is");
}

RunStore::RunStore(const std::string& givenPath, bool readOnly, int busyTimeoutMs, bool checkPages)
    : m_db([&] {
        // Absolute, so artifact paths stored relative to the database's folder resolve.
        const std::string path = resolvedPath(givenPath);
        refuseLinkLoop(path);
        // Said as the reading commands say it (SQLite's "unable to open database file" did not).
        std::error_code isFolder;
        const auto status = fs::status(path, isFolder);
        if (fs::is_directory(status)) throw StoreError(path, "is a folder, not a run store");
        refuseSpecialFile(path, status);
        if (!readOnly) {
          std::error_code ec;
          const auto parent = fs::path(path).parent_path();
          if (!parent.empty()) fs::create_directories(parent, ec);
          if (ec) throw StoreError(path, "cannot create its folder: " + ec.message());
          requireWritableFolder(path);
          // A read-write connection that closes last checkpoints: a refused file's WAL would
          // end up in its main file. Vet WAL content through one that cannot.
          // Corruption is looked for here, before the first write, not found by a later one:
          // quick_check reads every page (its cost on a big store: bench_run_store).
          m_pagesChecked = vetWalContent(path, busyTimeoutMs, checkPages) || !checkPages;
        }
        if (readOnly) return openReadOnly(path);
        try {
          return Database::open(path, /*create=*/true);
        } catch (const StoreError& e) {
          rethrowNamingFolder(e, path);
        }
      }()),
      m_readOnly(readOnly) {
  if (!readOnly && m_db.isReadOnly())
    throw StoreError(path(), "is read-only (no write permission for this user)");
  configureConnection(busyTimeoutMs);
  try {
    retryWhileBusy(busyTimeoutMs, [&] {
      // Refuses a foreign, newer, truncated or corrupt file before any write.
      checkExistingFile(m_db, /*checkPages=*/!readOnly && !m_pagesChecked);
      if (readOnly) {
        // Without a migration an older file lacks columns every query here names.
        const int version = readSchemaVersion(m_db);
        if (version != kSchemaVersion)
          throw StoreError(path(), "was written by an earlier FourierLab (store version " +
                                       std::to_string(version) + "; this one reads version " +
                                       std::to_string(kSchemaVersion) +
                                       ") and is opened read-only here: open it once with "
                                       "write permission to bring it up to date");
        return;
      }
      enableWal();
      migrate(m_db);
      m_interruptedAtOpen = markDeadRunsInterrupted();
    });
  } catch (const StoreError& e) {
    if (readOnly) throw;
    rethrowNamingFolder(e, path());
  }
  if (!readOnly) removeFoldersOfDeletedRuns();
}

void RunStore::configureConnection(int busyTimeoutMs) {
  m_db.exec("PRAGMA busy_timeout = " + std::to_string(busyTimeoutMs));
  m_db.exec("PRAGMA foreign_keys = ON");
  // In WAL mode NORMAL loses no committed transaction when the process dies, only on power loss.
  m_db.exec("PRAGMA synchronous = NORMAL");
  m_db.exec("PRAGMA cache_size = -32768");  // 32 MiB: a batch of inserts stays in memory
}

void RunStore::enableWal() {
  // The pragma answers the mode in force: while another process is creating the same fresh
  // file it can answer "delete" without an error, and a connection left in rollback mode next
  // to WAL writers overwrites their pages. Report that as busy, so the caller retries.
  auto s = m_db.prepare("PRAGMA journal_mode = WAL");
  if (!s.step() || s.text(0) != "wal")
    throw StoreError(path(), "cannot switch to WAL mode: another process keeps it busy", true);
}

std::string RunStore::artifactFolder(int64_t runId) const {
  return artifactFolderOf(path(), runId);
}

std::string RunStore::artifactFolderOf(const std::string& storePath, int64_t runId) {
  return storePath + kFilesSuffix + "/" + kRunFolderPrefix + std::to_string(runId);
}

std::string RunStore::ownFileOf(const std::string& storePath, const std::string& path) {
  namespace fs = std::filesystem;
  if (path.empty() || storePath.empty() || storePath == ":memory:") return "";
  // Compared as the file system resolves them: a relative path, "..", a symbolic link or a
  // second hard link to the store all name it.
  const auto resolved = [](const fs::path& p) {
    std::error_code error;
    const fs::path canonical = fs::weakly_canonical(p, error);
    return error ? fs::absolute(p).lexically_normal() : canonical;
  };
  const auto same = [&](const fs::path& a, const fs::path& b) {
    std::error_code error;
    return resolved(a) == resolved(b) || fs::equivalent(a, b, error);
  };
  const fs::path target(path);
  if (same(target, storePath)) return "the run store itself";
  for (const auto& [suffix, name] : {std::pair<const char*, const char*>{"-wal", "write-ahead log"},
                                     {"-shm", "shared-memory index"},
                                     {"-journal", "rollback journal"}})
    if (same(target, storePath + suffix)) return std::string("the run store's ") + name;
  const fs::path files = resolved(storePath + kFilesSuffix);
  const fs::path inside = resolved(target).lexically_relative(files);
  if (inside == ".") return "the run store's folder of checkpoints";
  if (!inside.empty() && *inside.begin() != "..")
    return "inside the run store's folder of checkpoints (" + files.string() + ")";
  return "";
}

void RunStore::refuseOwnFile(const std::string& storePath, const std::string& path,
                             const std::string& what) {
  const std::string own = ownFileOf(storePath, path);
  if (!own.empty())
    throw std::invalid_argument(path + " is " + own + ": " + what +
                                " would overwrite it; choose another file");
}

std::vector<int64_t> RunStore::markDeadRunsInterrupted() {
  auto s = m_db.prepare(
      // By id: the runs a crash left are shown in the order they were queued, the first focused.
      "SELECT id, host, pid, pid_start FROM runs WHERE status IN ('running', 'queued') ORDER BY "
      "id");
  std::vector<std::pair<int64_t, ProcessIdentity>> dead;
  while (s.step()) {
    ProcessIdentity writer{s.text(1), s.int64(2), s.int64(3)};
    if (livenessOf(writer) == Liveness::Dead) dead.emplace_back(s.int64(0), writer);
  }
  if (dead.empty()) return {};
  Transaction tx(m_db);
  auto update = m_db.prepare(
      "UPDATE runs SET status = 'interrupted', finished = ?, message = ? "
      "WHERE id = ? AND status IN ('running', 'queued')");
  for (const auto& [id, writer] : dead) {
    update.bind(1, nowSeconds())
        .bind(2, "its process (pid " + std::to_string(writer.pid) + " on " + writer.host +
                     ") ended without finishing; data up to its last write is kept, and a resume "
                     "continues from its last checkpoint (from step 0 without one), training "
                     "again what came after it")
        .bind(3, id)
        .run();
  }
  tx.commit();
  std::vector<int64_t> ids;
  for (const auto& [id, writer] : dead) {
    removeStrayFiles(id);
    ids.push_back(id);
  }
  return ids;
}

void RunStore::removeFoldersOfDeletedRuns() {
  const fs::path files = path() + kFilesSuffix;
  std::error_code ec;
  if (!fs::is_directory(files, ec)) return;
  // Folders first, rows second: a run's row is committed before its folder is made, so a
  // folder listed here whose row is missing below belonged to a deleted run.
  std::vector<std::pair<int64_t, fs::path>> folders;
  for (const auto& entry : fs::directory_iterator(files, ec)) {
    const std::string name = entry.path().filename().string();
    const std::string prefix = kRunFolderPrefix;
    if (name.rfind(prefix, 0) != 0 || !entry.is_directory(ec)) continue;
    const std::string digits = name.substr(prefix.size());
    if (digits.empty() || digits.find_first_not_of("0123456789") != std::string::npos) continue;
    // Past int64's range it names no run (std::stoll would throw out of the constructor).
    int64_t id = 0;
    const auto parsed = std::from_chars(digits.data(), digits.data() + digits.size(), id);
    if (parsed.ec != std::errc() || parsed.ptr != digits.data() + digits.size()) continue;
    folders.emplace_back(id, entry.path());
  }
  auto exists = m_db.prepare("SELECT 1 FROM runs WHERE id = ?");
  for (const auto& [id, folder] : folders) {
    exists.bind(1, id);
    const bool kept = exists.step();
    exists.reset();
    if (!kept) fs::remove_all(folder, ec);
  }
}

std::string RunStore::resolveArtifact(const std::string& stored) const {
  return resolveStoredArtifact(path(), stored);
}

bool RunStore::isOwnArtifact(const std::string& file) const {
  return isInsideFilesOf(path(), file);
}

void RunStore::removeStrayFiles(int64_t id) {
  const fs::path folder = artifactFolder(id);
  std::error_code ec;
  if (!fs::is_directory(folder, ec)) return;
  std::set<std::string> named;
  auto s = m_db.prepare("SELECT path FROM artifacts WHERE run_id = ?");
  s.bind(1, id);
  while (s.step()) named.insert(resolveArtifact(s.text(0)));
  for (const auto& entry : fs::directory_iterator(folder, ec)) {
    if (entry.is_directory(ec)) continue;
    if (!named.count(entry.path().lexically_normal().string())) fs::remove(entry.path(), ec);
  }
}

int64_t RunStore::createRun(const NewRun& run) {
  Transaction tx(m_db);
  const int64_t id = insertRun(run);
  tx.commit();
  return id;
}

int64_t RunStore::insertRun(const NewRun& run) {
  checkTags(run.tags);
  checkText(run.name, "name");
  const auto writer = currentProcess();
  auto s = m_db.prepare(
      "INSERT INTO runs(experiment, name, status, config, seed, created, app_version, build, "
      "host, pid, pid_start, uid, config_hash) VALUES (?, ?, 'queued', ?, ?, ?, ?, ?, ?, ?, ?, ?, "
      "?)");
  s.bind(1, run.experiment)
      .bind(2, run.name)
      .bind(3, run.config.dump())
      .bind(4, run.config.value("seed", int64_t(0)))
      .bind(5, nowSeconds())
      .bind(6, FOURIERLAB_VERSION)
      .bind(7, run.build.dump())
      .bind(8, writer.host)
      .bind(9, writer.pid)
      .bind(10, writer.startTicks)
      .bind(11, newUid())
      .bind(12, run.configHash.empty() ? configHash(run.experiment, run.config) : run.configHash)
      .run();
  // AUTOINCREMENT (schema version 4): a deleted newest run's id stays retired, so an id in a
  // note, a script or an export never names another run.
  const int64_t id = m_db.lastInsertId();
  insertTags(id, run.tags);
  return id;
}

void RunStore::insertTags(int64_t id, const std::vector<std::string>& tags) {
  // One tag in any case: "keep me" beside "Keep Me" was a second tag the filter (any case)
  // could not tell apart. The one the run holds first stays as it was written.
  auto s = m_db.prepare(
      "INSERT INTO tags(run_id, tag) SELECT ?1, ?2 WHERE NOT EXISTS (SELECT 1 FROM tags WHERE "
      "run_id = ?1 AND lower(tag) = lower(?2))");
  for (const auto& t : tags) s.bind(1, id).bind(2, t).run();
}

RunRecord RunStore::readRun(Statement& s) const {
  RunRecord r;
  r.id = s.int64(0);
  r.experiment = s.text(1);
  r.name = s.text(2);
  r.status = parseRunStatus(s.text(3)).value_or(RunStatus::Failed);
  // A config or build that is not JSON (a damaged page) reads as null, which every reader
  // takes as "none recorded"; left discarded, exports wrote it as `<discarded>`.
  const auto jsonOrNull = [](const std::string& text) {
    auto j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
    return j.is_discarded() ? nlohmann::json() : j;
  };
  r.config = jsonOrNull(s.text(4));
  r.device = s.text(5);
  r.seed = s.int64(6);
  r.created = s.real(7);
  r.started = s.isNull(8) ? 0 : s.real(8);
  r.finished = s.isNull(9) ? 0 : s.real(9);
  r.appVersion = s.text(10);
  r.build = jsonOrNull(s.text(11));
  r.notes = s.text(12);
  r.message = s.text(13);
  r.lastStep = s.int64(14);
  r.totalSteps = s.int64(15);
  r.archived = s.int64(16) != 0;
  r.uid = s.isNull(17) ? "" : s.text(17);
  r.configHash = s.text(18);
  return r;
}

std::optional<RunRecord> RunStore::run(int64_t id) const {
  auto s = m_db.prepare(std::string("SELECT ") + kRunColumns + " FROM runs WHERE id = ?");
  s.bind(1, id);
  if (!s.step()) return std::nullopt;
  std::vector<RunRecord> one{readRun(s)};
  attachTagsAndSummaries(one);
  return one.front();
}

TextQuery parseTextQuery(const std::string& text) {
  TextQuery query;
  const auto first = text.find_first_not_of(" \t");
  if (first == std::string::npos) return query;
  const auto last = text.find_last_not_of(" \t");
  std::string t = text.substr(first, last - first + 1);
  const std::string digits = t[0] == '#' ? t.substr(1) : t;
  if (!digits.empty() && digits.size() <= 18 &&
      digits.find_first_not_of("0123456789") == std::string::npos)
    query.id = std::stoll(digits);
  const auto equals = t.find('=');
  if (equals == std::string::npos) return query;
  std::string key = t.substr(0, equals), value = t.substr(equals + 1);
  while (!key.empty() && (key.back() == ' ' || key.back() == '\t')) key.pop_back();
  value.erase(0, std::min(value.find_first_not_of(" \t"), value.size()));
  if (key.empty() || value.empty()) return query;
  for (const char c : key)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return query;
  // Settings are named in lower case: HEAD=Linear is head=linear, as the plain text finds it.
  std::transform(key.begin(), key.end(), key.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  query.key = key;
  query.value = value;
  if (value == "true" || value == "false") {
    query.number = value == "true" ? 1.0 : 0.0;  // JSON's booleans read back as 1 and 0
  } else {
    // Decimal only, as settings are typed: strtod reads "0x8" as 8, which --set refuses.
    char* end = nullptr;
    const double number = std::strtod(value.c_str(), &end);
    const bool hex = value.find_first_of("xX") != std::string::npos;
    if (end && *end == '\0' && std::isfinite(number) && !hex) query.number = number;
  }
  return query;
}

std::vector<RunRecord> RunStore::listRuns(const RunFilter& filter) const {
  std::string sql = std::string("SELECT ") + kRunColumns + " FROM runs WHERE 1";
  if (filter.onlyArchived)
    sql += " AND archived = 1";
  else if (!filter.includeArchived)
    sql += " AND archived = 0";
  if (!filter.experiment.empty()) sql += " AND experiment = :experiment";
  if (filter.status) sql += " AND status = :status";
  if (!filter.tag.empty())
    sql += " AND id IN (SELECT run_id FROM tags WHERE lower(tag) = lower(:tag))";
  if (!filter.tagPart.empty())
    sql += " AND id IN (SELECT run_id FROM tags WHERE instr(lower(tag), lower(:tagpart)))";
  // The text as one term, or, where it has several words, each word as a term of its own:
  // "dataset=gmm2 head=gmm", copied from a study run's name, found nothing.
  std::vector<TextQuery> queries;
  std::vector<std::string> texts;
  if (filter.text.find_first_not_of(" \t") != std::string::npos) {
    texts.push_back(filter.text);
    // Spaces around '=' are not word breaks: "seed= 2" is seed=2 (split there, "seed=" found
    // every study run by its name, and the filter let all of them through).
    static const std::regex kSpacedEquals("[ \t]*=[ \t]*");
    std::istringstream words(std::regex_replace(filter.text, kSpacedEquals, "="));
    std::vector<std::string> terms;
    for (std::string word; words >> word;) terms.push_back(word);
    if (terms.size() > 1) texts.insert(texts.end(), terms.begin(), terms.end());
    for (const auto& t : texts) queries.push_back(parseTextQuery(t));
  }
  const auto termSql = [&](size_t i) {
    const std::string n = std::to_string(i);
    // A setting's text value too ("gmm" finds an unnamed run of head gmm): numbers are left
    // out, as "1" would find nearly every run. CASE keeps json_each from a config that is not
    // JSON. A run's id ("ID", "#ID") is looked up as such.
    const std::string text =
        "(instr(lower(name), lower(:text" + n + ")) OR instr(lower(notes), lower(:text" + n +
        ")) OR instr(lower(experiment), lower(:text" + n +
        ")) OR CASE WHEN json_valid(config) THEN EXISTS (SELECT 1 FROM json_each(config) AS "
        "setting WHERE setting.type = 'text' AND instr(lower(setting.value), lower(:text" +
        n + "))) ELSE 0 END" + (queries[i].id ? " OR id = :id" + n : "") + ")";
    if (queries[i].key.empty()) return text;
    // KEY=VALUE is the setting alone, as the value reads (a number as a number, text in any
    // case): matched as text too, "seed=4" found the runs named "... seed=42", and no other.
    // A run without such a setting is looked through as text ("N=12" of "fourier N=12").
    return "CASE WHEN json_valid(config) AND json_type(config, :path" + n +
           ") IS NOT NULL THEN json_extract(config, :path" + n + ") = :value" + n +
           " OR lower(CAST(json_extract(config, :path" + n + ") AS TEXT)) = lower(:raw" + n +
           ") ELSE " + text + " END";
  };
  if (queries.size() == 1) {
    sql += " AND " + termSql(0);
  } else if (queries.size() > 1) {
    std::string every;
    for (size_t i = 1; i < queries.size(); ++i) every += (i > 1 ? " AND " : "") + termSql(i);
    sql += " AND ((" + termSql(0) + ") OR (" + every + "))";
  }
  sql += " ORDER BY id";
  auto s = m_db.prepare(sql);
  auto bindNamed = [&](const std::string& name, const std::string& value) {
    const int index = s.parameterIndex(name.c_str());
    if (index > 0) s.bind(index, value);
  };
  bindNamed(":experiment", filter.experiment);
  if (filter.status) bindNamed(":status", toString(*filter.status));
  bindNamed(":tag", filter.tag);
  bindNamed(":tagpart", filter.tagPart);
  for (size_t i = 0; i < queries.size(); ++i) {
    const std::string n = std::to_string(i);
    const TextQuery& query = queries[i];
    bindNamed(":text" + n, texts[i]);
    if (query.id) s.bind(s.parameterIndex((":id" + n).c_str()), *query.id);
    if (query.key.empty()) continue;
    bindNamed(":path" + n, "$.\"" + query.key + "\"");
    bindNamed(":raw" + n, query.value);
    const int value = s.parameterIndex((":value" + n).c_str());
    if (query.number)  // 42 finds 42.0 too: SQLite compares numbers as numbers
      s.bind(value, *query.number);
    else
      s.bind(value, query.value);
  }
  std::vector<RunRecord> runs;
  while (s.step()) runs.push_back(readRun(s));
  if (filter.usesSetting) {
    // A KEY=VALUE term of a setting the run holds and does not use matches nothing: its value
    // sets no run apart ("(not used)"), whatever it happens to be.
    std::vector<std::string> keys;
    for (size_t i = queries.size() > 1 ? 1 : 0; i < queries.size(); ++i)
      if (!queries[i].key.empty()) keys.push_back(queries[i].key);
    std::erase_if(runs, [&](const RunRecord& run) {
      return std::any_of(keys.begin(), keys.end(), [&](const std::string& key) {
        return run.config.is_object() && run.config.contains(key) && !filter.usesSetting(run, key);
      });
    });
  }
  attachTagsAndSummaries(runs);
  return runs;
}

int64_t RunStore::listedRunCount() const {
  auto s = m_db.prepare("SELECT count(*) FROM runs WHERE archived = 0");
  return s.step() ? s.int64(0) : 0;
}

int64_t RunStore::dataVersion() const {
  auto s = m_db.prepare("PRAGMA data_version");
  return s.step() ? s.int64(0) : 0;
}

std::vector<std::string> RunStore::experimentNames() const {
  auto s = m_db.prepare("SELECT DISTINCT experiment FROM runs ORDER BY experiment");
  std::vector<std::string> names;
  while (s.step()) names.push_back(s.text(0));
  return names;
}

void RunStore::attachTagsAndSummaries(std::vector<RunRecord>& runs) const {
  if (runs.empty()) return;
  std::map<int64_t, RunRecord*> byId;
  for (auto& r : runs) byId[r.id] = &r;
  // One pass over each table (bounded by the listed id range), never over the metric history.
  const std::string range = " WHERE run_id BETWEEN " + std::to_string(byId.begin()->first) +
                            " AND " + std::to_string(byId.rbegin()->first);
  auto tags = m_db.prepare("SELECT run_id, tag FROM tags" + range + " ORDER BY run_id, tag");
  while (tags.step())
    if (auto it = byId.find(tags.int64(0)); it != byId.end())
      it->second->tags.push_back(tags.text(1));
  auto series = m_db.prepare(
      "SELECT run_id, key, count, last, last_step, min, min_step, max, max_step FROM series" +
      range + " ORDER BY run_id, key");
  while (series.step()) {
    auto it = byId.find(series.int64(0));
    if (it == byId.end()) continue;
    MetricSummary m;
    m.key = series.text(1);
    m.count = series.int64(2);
    m.last = series.isNull(3) ? NAN : series.real(3);
    m.lastStep = series.int64(4);
    m.min = series.isNull(5) ? NAN : series.real(5);
    m.minStep = series.int64(6);
    m.max = series.isNull(7) ? NAN : series.real(7);
    m.maxStep = series.int64(8);
    it->second->metrics.push_back(m);
  }
  // In the order a reader counts them: val/ppl@48 before val/ppl@192 (SQL's order put it last).
  for (auto& [id, run] : byId)
    std::stable_sort(
        run->metrics.begin(), run->metrics.end(),
        [](const MetricSummary& a, const MetricSummary& b) { return NaturalLess{}(a.key, b.key); });
  for (auto& [id, verdicts] : readVerdicts(m_db, byId.begin()->first, byId.rbegin()->first))
    if (auto it = byId.find(id); it != byId.end()) it->second->verdicts = std::move(verdicts);
}

void RunStore::rename(int64_t id, const std::string& name) {
  checkText(name, "name");
  auto s = m_db.prepare("UPDATE runs SET name = ? WHERE id = ?");
  s.bind(1, name).bind(2, id).run();
}

void RunStore::setNotes(int64_t id, const std::string& notes) {
  checkText(notes, "notes");
  auto s = m_db.prepare("UPDATE runs SET notes = ? WHERE id = ?");
  s.bind(1, notes).bind(2, id).run();
}

void RunStore::addTags(int64_t id, const std::vector<std::string>& tags) {
  checkTags(tags);
  Transaction tx(m_db);
  insertTags(id, tags);
  tx.commit();
}

void RunStore::removeTag(int64_t id, const std::string& tag) {
  auto s = m_db.prepare("DELETE FROM tags WHERE run_id = ? AND lower(tag) = lower(?)");
  s.bind(1, id).bind(2, tag).run();
}

void RunStore::setArchived(int64_t id, bool archived) {
  auto s = m_db.prepare("UPDATE runs SET archived = ? WHERE id = ?");
  s.bind(1, int64_t(archived ? 1 : 0)).bind(2, id).run();
}

int RunStore::deleteRuns(const std::vector<int64_t>& ids) {
  if (ids.empty()) return 0;
  Transaction tx(m_db);
  auto s = m_db.prepare("DELETE FROM runs WHERE id IN (" + placeholders(ids.size()) + ")");
  for (size_t i = 0; i < ids.size(); ++i) s.bind(static_cast<int>(i + 1), ids[i]);
  s.run();
  const int deleted = m_db.changes();
  tx.commit();
  for (auto id : ids) {
    std::error_code ec;
    fs::remove_all(artifactFolder(id), ec);  // the rows are gone; a stale file is harmless
  }
  for (auto it = m_seriesIds.begin(); it != m_seriesIds.end();)
    it = std::find(ids.begin(), ids.end(), it->first.first) != ids.end() ? m_seriesIds.erase(it)
                                                                         : std::next(it);
  return deleted;
}

void RunStore::markRunning(int64_t id, const std::string& device, int64_t totalSteps,
                           const ProcessIdentity& writer, int batchSize) {
  if (batchSize > 0) {
    auto read = m_db.prepare("SELECT build FROM runs WHERE id = ?");
    read.bind(1, id);
    if (read.step()) {
      const auto build = nlohmann::json::parse(read.text(0), nullptr, false);
      auto write = m_db.prepare("UPDATE runs SET build = ? WHERE id = ?");
      write
          .bind(1, withBatchSize(build.is_discarded() ? nlohmann::json() : build, batchSize).dump())
          .bind(2, id)
          .run();
    }
  }
  // A length of 0 keeps the stored one: a resume that failed before its first progress (a
  // corpus changed since) left "steps 510 (length not stored)" of a run of 600.
  auto s = m_db.prepare(
      "UPDATE runs SET status = 'running', device = ?1, started = coalesce(started, ?2), "
      "finished = NULL, message = '', total_steps = CASE WHEN ?3 > 0 THEN ?3 ELSE total_steps "
      "END, host = ?4, pid = ?5, pid_start = ?6 WHERE id = ?7");
  s.bind(1, device)
      .bind(2, nowSeconds())
      .bind(3, totalSteps)
      .bind(4, writer.host)
      .bind(5, writer.pid)
      .bind(6, writer.startTicks)
      .bind(7, id)
      .run();
}

std::string RunStore::metaValue(const std::string& key) const {
  auto s = m_db.prepare("SELECT value FROM meta WHERE key = ?");
  s.bind(1, key);
  return s.step() ? s.text(0) : std::string();
}

int64_t RunStore::verdictCount(VerdictSource source) const {
  auto s =
      m_db.prepare(std::string("SELECT count(*) FROM ") + kVerdictsTable + " WHERE source = ?");
  s.bind(1, toString(source));
  s.step();
  return s.int64(0);
}

void RunStore::restateVerdicts(const std::vector<RestatedRun>& runs, const std::string& key,
                               const std::string& value) {
  Transaction tx(m_db);
  auto message = m_db.prepare("UPDATE runs SET message = ? WHERE id = ?");
  for (const auto& run : runs) {
    message.bind(1, run.message).bind(2, run.id).run();
    writeVerdicts(m_db, run.id, run.verdicts);
  }
  auto meta = m_db.prepare("INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)");
  meta.bind(1, key).bind(2, value).run();
  tx.commit();
}

void RunStore::finishRun(int64_t id, RunStatus status, const std::string& message) {
  auto s = m_db.prepare("UPDATE runs SET status = ?, message = ?, finished = ? WHERE id = ?");
  s.bind(1, toString(status)).bind(2, message).bind(3, nowSeconds()).bind(4, id).run();
  // A run deleted meanwhile: saying its end was recorded would be false.
  if (m_db.changes() == 0) throw StoreError(path(), "has no run " + std::to_string(id));
}

void RunStore::restoreEnd(const RunRecord& before) {
  auto s = m_db.prepare("UPDATE runs SET status = ?, message = ?, finished = ? WHERE id = ?");
  s.bind(1, toString(before.status))
      .bind(2, before.message)
      .bind(3, before.finished)
      .bind(4, before.id)
      .run();
  if (m_db.changes() == 0) throw StoreError(path(), "has no run " + std::to_string(before.id));
}

int64_t RunStore::seriesId(int64_t runId, const std::string& key) {
  const auto cacheKey = std::make_pair(runId, key);
  if (auto it = m_seriesIds.find(cacheKey); it != m_seriesIds.end()) return it->second;
  auto insert = m_db.prepare("INSERT OR IGNORE INTO series(run_id, key) VALUES (?, ?)");
  insert.bind(1, runId).bind(2, key).run();
  auto select = m_db.prepare("SELECT id FROM series WHERE run_id = ? AND key = ?");
  select.bind(1, runId).bind(2, key);
  select.step();
  const int64_t id = select.int64(0);
  m_seriesIds[cacheKey] = id;
  return id;
}

void RunStore::insertMetricRows(std::vector<MetricRow>& rows) {
  // In key order, rows append to the end of each series' range of the (series, step) index
  // instead of landing all over it; and many rows per statement save the per-statement work.
  std::sort(rows.begin(), rows.end(), [](const MetricRow& a, const MetricRow& b) {
    return a.series != b.series ? a.series < b.series : a.step < b.step;
  });
  constexpr size_t kRowsPerStatement = 64;
  auto sqlFor = [](size_t n) {
    std::string sql = "INSERT OR REPLACE INTO metrics(series_id, step, wall, value) VALUES ";
    for (size_t i = 0; i < n; ++i) sql += i ? ",(?,?,?,?)" : "(?,?,?,?)";
    return sql;
  };
  std::optional<Statement> full;
  for (size_t start = 0; start < rows.size(); start += kRowsPerStatement) {
    const size_t n = std::min(kRowsPerStatement, rows.size() - start);
    std::optional<Statement> partial;
    if (n == kRowsPerStatement && !full) full.emplace(m_db.prepare(sqlFor(n)));
    if (n != kRowsPerStatement) partial.emplace(m_db.prepare(sqlFor(n)));
    Statement& insert = n == kRowsPerStatement ? *full : *partial;
    for (size_t i = 0; i < n; ++i) {
      const auto& r = rows[start + i];
      const int base = static_cast<int>(4 * i);
      insert.bind(base + 1, r.series).bind(base + 2, r.step).bind(base + 3, r.wall);
      if (std::isfinite(r.value))
        insert.bind(base + 4, r.value);
      else
        insert.bindNull(base + 4);
    }
    insert.run();
  }
}

void RunStore::writeEvents(int64_t id, const std::vector<Event>& events) {
  writeEvents(std::vector<RunEvents>{{id, &events}});
}

void RunStore::writeEvents(const std::vector<RunEvents>& runs) {
  std::vector<std::string> supersededFiles;
  try {
    std::optional<Transaction> tx;
    for (const auto& run : runs) {
      if (run.events->empty()) continue;
      if (!tx) tx.emplace(m_db);
      writeBatch(run.runId, *run.events, supersededFiles);
    }
    if (!tx) return;
    tx->commit();
  } catch (...) {
    // The rollback took back the series rows this batch inserted: forget every cached id, or
    // the retried batch would point its metrics at rows that no longer exist.
    m_seriesIds.clear();
    throw;
  }
  // Only now that the commit dropped their rows: a crash before this line leaves a stray file,
  // never a row naming a file that is gone.
  for (const auto& file : supersededFiles) {
    std::error_code ec;
    if (isOwnArtifact(file)) fs::remove(file, ec);  // never another store's (a copy's original)
  }
  // A run's last event (its Runner has stopped writing files): nothing unnamed stays behind.
  // Tidying only, after the commit: it must not throw, or a caller would take the committed
  // batches for failed and write them again. What it leaves, the store's next open removes.
  for (const auto& run : runs) {
    if (run.events->empty()) continue;
    const auto* last = std::get_if<StatusEvent>(&run.events->back());
    if (!last || !isTerminal(last->status)) continue;
    try {
      removeStrayFiles(run.runId);
    } catch (const std::exception&) {
    }
  }
}

void RunStore::writeBatch(int64_t id, const std::vector<Event>& events,
                          std::vector<std::string>& supersededFiles) {
  std::vector<MetricRow> rows;
  std::optional<Statement> insertSnapshot;
  std::optional<Statement> deleteEarlier;  // a latest-step snapshot's earlier rows
  std::map<int64_t, SeriesBatch> batches;
  int64_t lastStep = -1;
  int64_t totalSteps = -1;
  int64_t stoppedAt = -1;  // the step a run ended at, from its terminal status
  for (const auto& event : events) {
    if (auto* m = std::get_if<MetricEvent>(&event)) {
      const int64_t series = seriesId(id, m->key);
      rows.push_back({series, m->step, m->wallSeconds, m->value});
      addToBatch(batches[series], *m);
    } else if (auto* s = std::get_if<SnapshotEvent>(&event)) {
      if (s->requestId != 0) continue;  // probe answers are transient, not history
      if (s->snapshot.keep == SnapshotKeep::NotStored) continue;
      if (s->snapshot.keep == SnapshotKeep::LatestStep) {
        if (!deleteEarlier)
          deleteEarlier.emplace(
              m_db.prepare("DELETE FROM snapshots WHERE run_id = ? AND name = ?"));
        deleteEarlier->bind(1, id).bind(2, s->snapshot.name).run();
      }
      if (!insertSnapshot)
        insertSnapshot.emplace(m_db.prepare(
            "INSERT INTO snapshots(run_id, step, name, shape, data, axes, value_label, meta, "
            "role) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"));
      insertSnapshotRow(*insertSnapshot, id, *s);
    } else if (auto* p = std::get_if<ProgressEvent>(&event)) {
      lastStep = std::max(lastStep, p->step);
      totalSteps = p->totalSteps;
    } else if (auto* st = std::get_if<StatusEvent>(&event)) {
      if (st->status == RunStatus::Running)
        markRunning(id, st->device, 0, currentProcess(), st->batchSize);
      else if (isTerminal(st->status)) {
        finishRun(id, st->status, st->message);
        writeVerdicts(m_db, id, st->verdicts);
        stoppedAt = st->step;
      }
    } else if (auto* c = std::get_if<CheckpointEvent>(&event)) {
      writeCheckpointEvent(id, *c, supersededFiles);
    }
  }
  insertMetricRows(rows);
  updateSeriesSummaries(m_db, batches);
  if (lastStep >= 0) {
    auto s =
        m_db.prepare("UPDATE runs SET last_step = max(last_step, ?), total_steps = ? WHERE id = ?");
    s.bind(1, lastStep).bind(2, totalSteps).bind(3, id).run();
  }
  // A run cancelled or failed between two progress reports trained past the last one: the
  // stored step is where it stopped, as its message ("cancelled after 12227 steps") and its
  // kept checkpoint say, not where it last reported.
  if (stoppedAt > 0)
    m_db.prepare("UPDATE runs SET last_step = max(last_step, ?) WHERE id = ?")
        .bind(1, stoppedAt)
        .bind(2, id)
        .run();
}

void RunStore::writeCheckpointEvent(int64_t id, const CheckpointEvent& c,
                                    std::vector<std::string>& supersededFiles) {
  if (!c.removed) {
    addCheckpoint(id, c.step, c.path);
    return;
  }
  const auto removed = fs::path(c.path).lexically_normal().string();
  for (const auto& existing : checkpoints(id))
    if (existing.path == removed) forgetCheckpoint(existing.id);
  supersededFiles.push_back(removed);
}

void RunStore::addCheckpoint(int64_t id, int64_t step, const std::string& path) {
  std::error_code ec;
  const auto bytes = fs::file_size(path, ec);
  const auto relative = fs::relative(path, fs::path(this->path()).parent_path(), ec);
  auto s = m_db.prepare(
      "INSERT INTO artifacts(run_id, kind, step, path, bytes, created) VALUES (?, 'checkpoint', ?, "
      "?, ?, ?)");
  s.bind(1, id)
      .bind(2, step)
      .bind(3, ec ? path : relative.string())
      .bind(4, static_cast<int64_t>(bytes))
      .bind(5, nowSeconds())
      .run();
}

std::vector<Checkpoint> RunStore::checkpoints(int64_t id) const {
  auto s = m_db.prepare(
      "SELECT id, step, path, bytes FROM artifacts WHERE run_id = ? AND kind = 'checkpoint' "
      "ORDER BY step");
  s.bind(1, id);
  std::vector<Checkpoint> out;
  while (s.step()) out.push_back({s.int64(0), s.int64(1), resolveArtifact(s.text(2)), s.int64(3)});
  return out;
}

void RunStore::removeCheckpoint(int64_t checkpointId) {
  const std::string file = forgetCheckpoint(checkpointId);  // committed: not in a transaction
  std::error_code ec;
  if (!file.empty() && isOwnArtifact(file)) fs::remove(file, ec);
}

std::string RunStore::forgetCheckpoint(int64_t checkpointId) {
  std::string file;
  {
    auto s = m_db.prepare("SELECT path FROM artifacts WHERE id = ?");
    s.bind(1, checkpointId);
    if (!s.step()) return file;
    file = resolveArtifact(s.text(0));
  }
  auto del = m_db.prepare("DELETE FROM artifacts WHERE id = ?");
  del.bind(1, checkpointId).run();
  return file;
}

double RunStore::wallSecondsAt(int64_t id, int64_t step) const {
  auto s = m_db.prepare(
      "SELECT coalesce(max(m.wall), 0) FROM metrics m JOIN series s ON s.id = m.series_id "
      "WHERE s.run_id = ?1 AND m.step <= ?2");
  s.bind(1, id).bind(2, step);
  return s.step() ? s.real(0) : 0.0;
}

void RunStore::truncateAfter(int64_t id, int64_t step) {
  Transaction tx(m_db);
  auto metrics = m_db.prepare(
      "DELETE FROM metrics WHERE series_id IN (SELECT id FROM series WHERE run_id = ?1) AND step > "
      "?2");
  metrics.bind(1, id).bind(2, step).run();
  auto snaps = m_db.prepare("DELETE FROM snapshots WHERE run_id = ? AND step > ?");
  snaps.bind(1, id).bind(2, step).run();
  // Summaries from what is left (a resume is rare; listing stays O(runs)).
  auto summary = m_db.prepare(
      "UPDATE series SET "
      "count = (SELECT count(*) FROM metrics m WHERE m.series_id = series.id), "
      "last_step = (SELECT max(step) FROM metrics m WHERE m.series_id = series.id), "
      "last = (SELECT value FROM metrics m WHERE m.series_id = series.id ORDER BY step DESC LIMIT "
      "1), "
      "min = (SELECT min(value) FROM metrics m WHERE m.series_id = series.id), "
      "min_step = (SELECT step FROM metrics m WHERE m.series_id = series.id AND value IS NOT NULL "
      "ORDER BY value ASC, step LIMIT 1), "
      "max = (SELECT max(value) FROM metrics m WHERE m.series_id = series.id), "
      "max_step = (SELECT step FROM metrics m WHERE m.series_id = series.id AND value IS NOT NULL "
      "ORDER BY value DESC, step LIMIT 1) "
      "WHERE run_id = ?");
  summary.bind(1, id).run();
  auto run = m_db.prepare("UPDATE runs SET last_step = ? WHERE id = ?");
  run.bind(1, step).bind(2, id).run();
  tx.commit();
  // Checkpoints after the step describe a future that no longer exists.
  for (const auto& c : checkpoints(id))
    if (c.step > step) removeCheckpoint(c.id);
}

std::vector<std::string> RunStore::metricKeys(int64_t id) const {
  auto s = m_db.prepare("SELECT key FROM series WHERE run_id = ? ORDER BY key");
  s.bind(1, id);
  std::vector<std::string> keys;
  while (s.step()) keys.push_back(s.text(0));
  std::sort(keys.begin(), keys.end(), NaturalLess{});
  return keys;
}

std::vector<MetricPoint> RunStore::metric(int64_t id, const std::string& key) const {
  auto count = m_db.prepare("SELECT id, count FROM series WHERE run_id = ? AND key = ?");
  count.bind(1, id).bind(2, key);
  if (!count.step()) return {};
  const int64_t series = count.int64(0);
  std::vector<MetricPoint> points;
  // The stored count is only a hint: a damaged one must not ask for terabytes (length_error).
  points.reserve(static_cast<size_t>(std::clamp<int64_t>(count.int64(1), 0, 1 << 20)));
  auto s = m_db.prepare("SELECT step, wall, value FROM metrics WHERE series_id = ? ORDER BY step");
  s.bind(1, series);
  while (s.step()) points.push_back({s.int64(0), s.real(1), s.isNull(2) ? NAN : s.real(2)});
  return points;
}

std::vector<std::string> RunStore::snapshotNames(int64_t id) const {
  auto s = m_db.prepare("SELECT DISTINCT name FROM snapshots WHERE run_id = ? ORDER BY name");
  s.bind(1, id);
  std::vector<std::string> names;
  while (s.step()) names.push_back(s.text(0));
  return names;
}

std::vector<StoredSnapshot> RunStore::snapshots(int64_t id, const std::string& name,
                                                bool latestOnly) const {
  std::string sql =
      "SELECT step, name, shape, data, axes, value_label, meta, role FROM snapshots "
      "WHERE run_id = ? AND name = ? ORDER BY step";
  if (latestOnly) sql += " DESC LIMIT 1";
  auto s = m_db.prepare(sql);
  s.bind(1, id).bind(2, name);
  std::vector<StoredSnapshot> out;
  while (s.step()) {
    StoredSnapshot st;
    st.step = s.int64(0);
    st.snapshot.name = s.text(1);
    try {
      const auto bytes = s.blob(3);
      if (bytes.size() % sizeof(float) != 0)
        throw BadSnapshotRow("its data is " + std::to_string(bytes.size()) +
                             " bytes, not whole float32 values");
      st.snapshot.data.resize(bytes.size() / sizeof(float));
      // An empty vector's data() is null, and memcpy's pointers must not be, even for 0 bytes.
      if (!bytes.empty()) std::memcpy(st.snapshot.data.data(), bytes.data(), bytes.size());
      st.snapshot.shape = shapeFromJson(s.text(2), st.snapshot.data.size());
      st.snapshot.axes = axesFromJson(s.text(4));
      // Unchecked, a damaged meta was dumped into exports as `<discarded>`: invalid JSON.
      st.snapshot.meta = nlohmann::json::parse(s.text(6), nullptr, /*allow_exceptions=*/false);
      if (st.snapshot.meta.is_discarded()) throw BadSnapshotRow("its meta is not JSON");
    } catch (const BadSnapshotRow& e) {
      throw StoreError(path(), "snapshot '" + st.snapshot.name + "' of run " + std::to_string(id) +
                                   " at step " + std::to_string(st.step) +
                                   " cannot be read: " + e.what());
    }
    st.snapshot.valueLabel = s.text(5);
    st.snapshot.role = parseSnapshotRole(s.text(7));
    out.push_back(std::move(st));
  }
  return out;
}

int RunStore::schemaVersion() const { return readSchemaVersion(m_db); }

std::string RunStore::integrityCheck() const {
  auto s = m_db.prepare("PRAGMA integrity_check");
  std::string out;
  while (s.step()) out += (out.empty() ? "" : "\n") + s.text(0);
  return out;
}

}  // namespace fl::store
