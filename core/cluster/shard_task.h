// One cluster task of a study (`fourierlab-cli sweep work`): trains its share of the study's
// cells into its own shard store and publishes the shard to the job's work folder, where
// `sweep collect` merges it into the user's store.
//
// SQLite is never shared between nodes: the task writes its shard on the node's own disk
// (scratch: $SLURM_TMPDIR, $TMPDIR or /tmp) and publishes a consistent copy into
// WORK/shards/task-I.db (checkpoint files first, then the database by rename, as one file
// without a WAL), after runs end (at most every publishEverySeconds) and when it stops.
// A published shard is therefore always whole: a collect never reads one being written.
// A task that starts again (Slurm requeued it) continues its published shard; a resubmitted
// task continues the runs its seed holds (WORK/seeds/task-I.db) from their checkpoints.
//
//   ShardTaskOptions o{folder, task, scratchRoot};
//   o.stopFlag = &signalNumber;    // SIGTERM from scancel, preemption or the time limit
//   ShardTaskOutcome r = runShardTask(registry, o, reporter);
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/cluster/study_jobs.h"
#include "core/cluster/task_stage.h"
#include "core/engine/registry.h"
#include "core/engine/study_spec.h"
#include "core/store/run_store.h"
#include "core/study/study_expansion.h"
#include "core/study/study_scheduler.h"

namespace fl::cluster {

// WORK/job.json: what the tasks need, so they never open the user's store.
struct JobFile {
  static constexpr int kFormat = 1;
  std::string studyUid;
  std::string studyName;
  std::string experiment;
  study::StudySpec spec;
  std::string store;  // the user's store, for people reading the file
  std::vector<std::vector<study::StudyCell>> tasks;

  nlohmann::ordered_json toJson() const;
  // Throws std::runtime_error naming the file and the field.
  static JobFile read(const std::string& path);
  void write(const std::string& path) const;
};

// The study of a shard: the user's study's uid and spec, with only `cells` (at their own
// indices). Finds it when the shard already has it. Returns its id in the shard.
int64_t ensureShardStudy(store::RunStore& shard, const JobFile& job,
                         const std::vector<study::StudyCell>& cells);

struct ShardTaskOptions {
  JobFolder folder;
  int task = 0;
  std::string scratchRoot;  // "" : $SLURM_TMPDIR, $TMPDIR or /tmp
  study::StudySchedulerOptions
      scheduler;  // its stopFlag stops the task (runs checkpoint, end cancelled)
  double publishEverySeconds = 30;
  std::string slurmJobId;  // for the report ($SLURM_JOB_ID)
};

struct ShardTaskOutcome {
  study::StudyOutcome study;
  TaskStage state = TaskStage::Done;  // done, failed or cancelled
  std::string shard;                  // the published shard
  int exitCode = 0;                   // 0 done, 1 a run failed, 128 + signal when stopped
};

// Throws std::runtime_error (a bad work folder or task number) or store::StoreError.
ShardTaskOutcome runShardTask(const ExperimentRegistry& registry, const ShardTaskOptions& options,
                              const study::StudyScheduler::Reporter& report);

// Publishes a consistent copy of `shardPath` (a shard on scratch named JobFolder::shardName)
// into `publishedPath`: its checkpoint files, then the database as one file by rename.
void publishShard(const std::string& shardPath, const std::string& publishedPath);

// Copies a published shard or a seed (database and its .files folder) to `to`.
void copyShard(const std::string& from, const std::string& to);

// Writes `content` to `path` through a temporary file and a rename: readers see the old or the
// new file, never half of one.
void writeFileAtomically(const std::string& path, const std::string& content);

}  // namespace fl::cluster
