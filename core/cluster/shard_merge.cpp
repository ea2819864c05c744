#include "core/cluster/shard_merge.h"

#include <filesystem>
#include <map>
#include <optional>
#include <set>

#include "core/cluster/study_jobs.h"
#include "core/store/open_checks.h"
#include "core/store/run_copy.h"
#include "core/store/schema.h"

namespace fl::cluster {

namespace fs = std::filesystem;
using store::Database;
using store::StoreError;
using store::Transaction;

namespace {

// Statuses are read as the store writes them; none for no run, or a word this build does not
// know (never ended, never finished).
struct ShardCell {
  int64_t cell = 0;
  std::string hash;
  int64_t runId = 0;  // 0: never started
  std::optional<RunStatus> status;
  std::string uid;
  double finished = 0;
};

struct StoredRun {
  int64_t id = 0;
  std::optional<RunStatus> status;
  double finished = 0;
};

std::optional<StoredRun> runByUid(const Database& db, const std::string& uid) {
  auto s = db.prepare("SELECT id, status, coalesce(finished, 0) FROM runs WHERE uid = ?");
  s.bind(1, uid);
  if (!s.step()) return std::nullopt;
  return StoredRun{s.int64(0), store::parseRunStatus(s.text(1)), s.real(2)};
}

bool ended(const std::optional<RunStatus>& status) { return status && isTerminal(*status); }

void removeFiles(const std::vector<std::string>& files) {
  for (const auto& f : files) {
    std::error_code ec;
    fs::remove(f, ec);
  }
}

// The shard's study cells, checked against the user's study: same uid, same cells and configs.
// Returns the refusal ("" when it fits).
std::string readShard(const Database& shard, const std::string& studyUid,
                      const std::string& studyTitle, const std::map<int64_t, std::string>& hashes,
                      std::vector<ShardCell>& cells) {
  store::checkExistingFile(shard, /*checkPages=*/true);  // foreign, newer, truncated, corrupt
  const int version = store::readSchemaVersion(shard);
  if (version < 3)
    return "is a run store of schema version " + std::to_string(version) +
           ", without studies: not a study's shard";
  auto study = shard.prepare("SELECT id FROM studies WHERE uid = ?");
  study.bind(1, studyUid);
  if (!study.step()) {
    auto other = shard.prepare("SELECT name, uid FROM studies ORDER BY id LIMIT 1");
    if (!other.step()) return "holds no study: not a study's shard";
    return "is a shard of study '" + other.text(0) + "' (uid " + other.text(1) + "), not of " +
           studyTitle + " (uid " + studyUid + ")";
  }
  auto s = shard.prepare(
      "SELECT c.cell, c.config_hash, coalesce(c.run_id, 0), coalesce(r.status, ''), "
      "coalesce(r.uid, ''), coalesce(r.finished, 0) FROM study_cells c "
      "LEFT JOIN runs r ON r.id = c.run_id WHERE c.study_id = ? ORDER BY c.cell");
  s.bind(1, study.int64(0));
  while (s.step()) {
    ShardCell c{s.int64(0), s.text(1), s.int64(2), store::parseRunStatus(s.text(3)),
                s.text(4),  s.real(5)};
    auto it = hashes.find(c.cell);
    if (it == hashes.end())
      return "has cell " + std::to_string(c.cell) + ", which " + studyTitle + " does not have";
    if (it->second != c.hash)
      return "cell " + std::to_string(c.cell) + " has another config (hash " + c.hash +
             ") than in " + studyTitle + " (" + it->second + ")";
    if (c.runId && c.uid.empty()) return "run " + std::to_string(c.runId) + " has no uid";
    cells.push_back(std::move(c));
  }
  return "";
}

}  // namespace

std::string ShardMergeResult::summary() const {
  const std::string name = fs::path(shard).filename().string();
  if (!merged) return "refused " + refusal;
  if (unchanged) return name + ": unchanged since its last collect";
  std::string out = name + ": " + std::to_string(added) + " runs added, " +
                    std::to_string(replaced) + " replaced, " + std::to_string(kept) + " kept";
  if (unfinished) out += ", " + std::to_string(unfinished) + " still training (not merged)";
  out += "; " + std::to_string(cellsLinked) + " cells linked";
  if (checkpoints) out += "; " + std::to_string(checkpoints) + " checkpoints copied";
  if (!missingFiles.empty())
    out += "; " + std::to_string(missingFiles.size()) + " checkpoint files missing in the shard";
  return out;
}

namespace {

// The user's study as a shard must match it: its uid, a title for messages, each cell's config
// hash.
struct StudyIdentity {
  std::string uid;
  std::string title;
  std::map<int64_t, std::string> hashes;
};

StudyIdentity studyIdentityOf(const store::RunStore& store, int64_t studyId) {
  const Database& db = store.database();
  StudyIdentity study;
  auto s = db.prepare("SELECT uid, name FROM studies WHERE id = ?");
  s.bind(1, studyId);
  if (!s.step()) throw StoreError(store.path(), "has no study " + std::to_string(studyId));
  study.uid = s.text(0);
  study.title = "study " + std::to_string(studyId) + " '" + s.text(1) + "'";
  auto cells = db.prepare("SELECT cell, config_hash FROM study_cells WHERE study_id = ?");
  cells.bind(1, studyId);
  while (cells.step()) study.hashes[cells.int64(0)] = cells.text(1);
  return study;
}

// Copies the shard's ended runs into the store, once per uid (a later attempt replaces a copy
// that did not finish), and links the study's cells to them; inside the caller's transaction.
class RunMerger {
 public:
  // `written`: checkpoint files copied into the store's folder (removed if the merge fails);
  // `superseded`: the files of the copies replaced (removed once it succeeded).
  RunMerger(const Database& shard, store::RunStore& store, int64_t studyId, ShardMergeResult& out,
            std::vector<std::string>& written, std::vector<std::string>& superseded)
      : m_shard(shard),
        m_store(store),
        m_studyId(studyId),
        m_out(out),
        m_written(written),
        m_superseded(superseded),
        m_currentLink(store.database().prepare(
            "SELECT coalesce(c.run_id, 0), coalesce(r.status, '') FROM study_cells c "
            "LEFT JOIN runs r ON r.id = c.run_id WHERE c.study_id = ? AND c.cell = ?")),
        m_link(store.database().prepare(
            "UPDATE study_cells SET run_id = ? WHERE study_id = ? AND cell = ?")) {}

  void merge(const ShardCell& cell) {
    if (!cell.runId) return;
    if (!ended(cell.status)) {
      ++m_out.unfinished;
      return;
    }
    auto it = m_merged.find(cell.uid);
    const int64_t runId = it != m_merged.end() ? it->second : copyOrKeep(cell);
    m_merged[cell.uid] = runId;
    link(cell.cell, runId);
  }

 private:
  // The store's run for the cell's uid: a copy of the shard's when the store has none, or has
  // one that this attempt supersedes.
  int64_t copyOrKeep(const ShardCell& cell) {
    const auto stored = runByUid(m_store.database(), cell.uid);
    const bool later = stored && stored->status != RunStatus::Finished &&
                       (cell.status == RunStatus::Finished || cell.finished > stored->finished);
    if (stored && !later) {
      ++m_out.kept;
      return stored->id;
    }
    auto copy = store::copyRun(m_shard, cell.runId, m_store, stored ? stored->id : 0);
    m_written.insert(m_written.end(), copy.writtenFiles.begin(), copy.writtenFiles.end());
    m_superseded.insert(m_superseded.end(), copy.supersededFiles.begin(),
                        copy.supersededFiles.end());
    m_out.missingFiles.insert(m_out.missingFiles.end(), copy.missingFiles.begin(),
                              copy.missingFiles.end());
    m_out.checkpoints += copy.checkpoints;
    ++(stored ? m_out.replaced : m_out.added);
    return copy.id;
  }

  // Points the cell at the run, unless it already points at it or at another finished run.
  void link(int64_t cell, int64_t runId) {
    m_currentLink.bind(1, m_studyId).bind(2, cell);
    m_currentLink.step();
    const int64_t linked = m_currentLink.int64(0);
    const bool linkedFinished = store::parseRunStatus(m_currentLink.text(1)) == RunStatus::Finished;
    m_currentLink.reset();
    if (linked != runId && !(linked && linkedFinished)) {
      m_link.bind(1, runId).bind(2, m_studyId).bind(3, cell).run();
      ++m_out.cellsLinked;
    }
  }

  const Database& m_shard;
  store::RunStore& m_store;
  int64_t m_studyId;
  ShardMergeResult& m_out;
  std::vector<std::string>& m_written;
  std::vector<std::string>& m_superseded;
  store::Statement m_currentLink;
  store::Statement m_link;
  std::map<std::string, int64_t> m_merged;  // uid -> run in the store
};

}  // namespace

ShardMergeResult mergeShard(store::RunStore& store, int64_t studyId, const std::string& shardPath) {
  ShardMergeResult out;
  const std::string path = fs::absolute(shardPath).lexically_normal().string();
  out.shard = path;
  const StudyIdentity study = studyIdentityOf(store, studyId);
  auto refuse = [&](const std::string& problem) {
    out.refusal = path + ": " + problem;
    return out;
  };
  auto refusalOf = [&](const StoreError& e) {
    out.refusal = e.path() == path ? e.what() : path + ": " + e.what();
    return out;
  };
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) return refuse("does not exist or is not a file");

  std::optional<Database> shard;
  std::vector<ShardCell> cells;
  try {
    shard.emplace(Database::open(path, /*create=*/false, /*readOnly=*/true));
    shard->exec("PRAGMA busy_timeout = 5000");
    const std::string problem = readShard(*shard, study.uid, study.title, study.hashes, cells);
    if (!problem.empty()) return refuse(problem);
  } catch (const StoreError& e) {
    return refusalOf(e);
  }

  std::vector<std::string> written, superseded;
  try {
    Transaction tx(store.database());
    RunMerger merger(*shard, store, studyId, out, written, superseded);
    for (const auto& cell : cells) merger.merge(cell);
    tx.commit();
  } catch (const StoreError& e) {
    removeFiles(written);
    if (e.path() != path) throw;  // the user's store failed: not the shard's fault
    out = ShardMergeResult{};
    out.shard = path;
    return refusalOf(e);
  } catch (const std::filesystem::filesystem_error& e) {
    removeFiles(written);
    throw StoreError(store.path(), std::string("merging ") + path + ": " + e.what());
  }
  // Files the replaced attempts had, unless a copy reused the name (it never does: new names).
  const std::set<std::string> keep(written.begin(), written.end());
  for (const auto& f : superseded)
    if (!keep.count(f)) removeFiles({f});
  out.merged = true;
  return out;
}

std::vector<ShardMergeResult> collectFinishedShards(store::RunStore& store, int64_t studyId) {
  StudyJobs jobs(store);
  std::vector<ShardMergeResult> out;
  for (const auto& job : jobs.ofStudy(studyId)) {
    for (const auto& task : job.tasks) {
      const std::string path = job.folder().shard(task.task);
      const std::string signature = fileSignature(path);
      if (signature.empty()) continue;  // not published yet
      ShardMergeResult r;
      if (signature == task.shardSignature) {
        r.shard = path;
        r.merged = true;
        r.unchanged = true;
      } else {
        r = mergeShard(store, studyId, path);
        if (r.merged) jobs.markCollected(job.id, task.task, signature);
      }
      r.task = task.task;
      r.jobRow = job.id;
      out.push_back(std::move(r));
    }
  }
  return out;
}

}  // namespace fl::cluster
