// A study's runs sent to a cluster: each submission is a job (the scheduler's id, its work
// folder, the cells of each array task), stored with the study (schema version 4), and the
// folder the job's tasks read and write:
//
//   WORK/job.json            the study (uid, spec) and each task's cells: tasks never need the
//                            user's store
//   WORK/job.sbatch          the batch script that was submitted
//   WORK/seeds/task-I.db     runs task I continues (a resubmission's stopped runs), if any
//   WORK/shards/task-I.db    task I's shard store, published whole (with task-I.db.files/, its
//                            checkpoints) each time it lands runs; `sweep collect` merges it
//   WORK/tasks/task-I.json   task I's own report: running / done / failed / cancelled, counts
//   WORK/logs/task-I.out     its stdout and stderr (Slurm's --output)
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/store/run_store.h"

namespace fl::cluster {

struct JobFolder {
  std::string root;

  std::string jobFile() const { return root + "/job.json"; }
  std::string script() const { return root + "/job.sbatch"; }
  std::string shardsDir() const { return root + "/shards"; }
  std::string shard(int task) const { return shardsDir() + "/" + shardName(task); }
  std::string seed(int task) const { return root + "/seeds/" + shardName(task); }
  std::string taskReport(int task) const {
    return root + "/tasks/task-" + std::to_string(task) + ".json";
  }
  std::string logPattern() const { return root + "/logs/task-%a.out"; }
  std::string log(int task) const { return root + "/logs/task-" + std::to_string(task) + ".out"; }
  // The same name everywhere (seed, node scratch, published), so the relative checkpoint paths
  // inside it stay valid when it is copied with its .files folder.
  static std::string shardName(int task) { return "task-" + std::to_string(task) + ".db"; }
};

struct StudyJobTask {
  int task = 0;
  std::vector<int64_t> cells;
  std::optional<double> collected;  // when its shard was last merged
  std::string shardSignature;       // that shard's size and modification time then
};

struct StudyJob {
  int64_t id = 0;  // the row, not the scheduler's id
  int64_t studyId = 0;
  std::string scheduler = "slurm";
  std::string jobId;  // the scheduler's
  std::string workDir;
  nlohmann::json options = nlohmann::json::object();
  double submitted = 0;
  std::vector<StudyJobTask> tasks;

  JobFolder folder() const { return {workDir}; }
};

class StudyJobs {
 public:
  explicit StudyJobs(store::RunStore& runs) : m_runs(runs) {}

  // Stores the job and its tasks; returns its row id.
  int64_t record(const StudyJob& job);
  std::vector<StudyJob> ofStudy(int64_t studyId) const;
  void markCollected(int64_t jobRow, int task, const std::string& shardSignature);

 private:
  store::RunStore& m_runs;
};

// "<bytes>:<modification time in ns>", "" when the file is missing: a shard republished since
// its last merge has another.
std::string fileSignature(const std::string& path);

}  // namespace fl::cluster
