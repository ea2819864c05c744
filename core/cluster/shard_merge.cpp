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

struct ShardCell {
  int64_t cell = 0;
  std::string hash;
  int64_t runId = 0;  // 0: never started
  std::string status;
  std::string uid;
  double finished = 0;
};

struct StoredRun {
  int64_t id = 0;
  std::string status;
  double finished = 0;
};

std::optional<StoredRun> runByUid(const Database& db, const std::string& uid) {
  auto s = db.prepare("SELECT id, status, coalesce(finished, 0) FROM runs WHERE uid = ?");
  s.bind(1, uid);
  if (!s.step()) return std::nullopt;
  return StoredRun{s.int64(0), s.text(1), s.real(2)};
}

bool ended(const std::string& status) {
  return status == "finished" || status == "failed" || status == "cancelled" ||
         status == "interrupted";
}

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
    ShardCell c{s.int64(0), s.text(1), s.int64(2), s.text(3), s.text(4), s.real(5)};
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

ShardMergeResult mergeShard(store::RunStore& store, int64_t studyId, const std::string& shardPath) {
  ShardMergeResult out;
  const std::string path = fs::absolute(shardPath).lexically_normal().string();
  out.shard = path;
  const Database& db = store.database();

  std::string studyUid, studyTitle;
  {
    auto s = db.prepare("SELECT uid, name FROM studies WHERE id = ?");
    s.bind(1, studyId);
    if (!s.step()) throw StoreError(store.path(), "has no study " + std::to_string(studyId));
    studyUid = s.text(0);
    studyTitle = "study " + std::to_string(studyId) + " '" + s.text(1) + "'";
  }
  std::map<int64_t, std::string> hashes;
  {
    auto s = db.prepare("SELECT cell, config_hash FROM study_cells WHERE study_id = ?");
    s.bind(1, studyId);
    while (s.step()) hashes[s.int64(0)] = s.text(1);
  }
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
    const std::string problem = readShard(*shard, studyUid, studyTitle, hashes, cells);
    if (!problem.empty()) return refuse(problem);
  } catch (const StoreError& e) {
    return refusalOf(e);
  }

  std::vector<std::string> written, superseded;
  try {
    Transaction tx(db);
    std::map<std::string, int64_t> merged;  // uid -> run in the store
    auto currentLink = db.prepare(
        "SELECT coalesce(c.run_id, 0), coalesce(r.status, '') FROM study_cells c "
        "LEFT JOIN runs r ON r.id = c.run_id WHERE c.study_id = ? AND c.cell = ?");
    auto link = db.prepare("UPDATE study_cells SET run_id = ? WHERE study_id = ? AND cell = ?");
    for (const auto& cell : cells) {
      if (!cell.runId) continue;
      if (!ended(cell.status)) {
        ++out.unfinished;
        continue;
      }
      int64_t runId = 0;
      if (auto it = merged.find(cell.uid); it != merged.end()) {
        runId = it->second;
      } else {
        const auto stored = runByUid(db, cell.uid);
        const bool later = stored && stored->status != "finished" &&
                           (cell.status == "finished" || cell.finished > stored->finished);
        if (!stored || later) {
          auto copy = store::copyRun(*shard, cell.runId, store, stored ? stored->id : 0);
          written.insert(written.end(), copy.writtenFiles.begin(), copy.writtenFiles.end());
          superseded.insert(superseded.end(), copy.supersededFiles.begin(),
                            copy.supersededFiles.end());
          out.missingFiles.insert(out.missingFiles.end(), copy.missingFiles.begin(),
                                  copy.missingFiles.end());
          out.checkpoints += copy.checkpoints;
          ++(stored ? out.replaced : out.added);
          runId = copy.id;
        } else {
          ++out.kept;
          runId = stored->id;
        }
        merged[cell.uid] = runId;
      }
      currentLink.bind(1, studyId).bind(2, cell.cell);
      currentLink.step();
      const int64_t linked = currentLink.int64(0);
      const bool linkedFinished = currentLink.text(1) == "finished";
      currentLink.reset();
      if (linked != runId && !(linked && linkedFinished)) {
        link.bind(1, runId).bind(2, studyId).bind(3, cell.cell).run();
        ++out.cellsLinked;
      }
    }
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
