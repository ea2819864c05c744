// A study's runs as a Slurm job array: the engine side of `fourierlab-cli sweep run --slurm`,
// `sweep status`, `sweep resume --slurm` and of the GUI's "send to cluster" (Qt-free, so the
// GUI calls these same functions).
//
//   SlurmJobPlan plan = planSlurmJob(store, studyId, options);   // nothing written yet
//   std::cout << plan.script;                                    // --dry-run stops here
//   StudyJob job = submitSlurmJob(store, plan);                  // files, sbatch, recorded
//   for (const TaskState& t : taskStates(job)) ...               // squeue, sacct or the files
//   collectFinishedShards(store, studyId);                       // core/cluster/shard_merge.h
//
// Task i of the array runs `fourierlab-cli sweep work WORK --task i --batch MODE`: it trains its
// cells under the thread budget of SLURM_CPUS_PER_TASK, into its own shard
// (core/cluster/shard_task.h), batching those whose shapes agree as `sweep run` does. Unbatched,
// cells are dealt round robin, so every task gets a mix of the study's settings; batched, the
// cells that would train as one group go to one task (whole groups dealt to the task with the
// fewest cells), since a group split over tasks trains as several smaller ones. SIGTERM
// (scancel, preemption, the time limit: the script asks for it 60 s before) makes every run
// checkpoint and end cancelled, and the shard is published before the task exits.
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/cluster/shard_task.h"
#include "core/cluster/study_jobs.h"
#include "core/cluster/task_stage.h"
#include "core/engine/registry.h"
#include "core/store/run_store.h"
#include "core/study/run_groups.h"
#include "core/study/study_expansion.h"

namespace fl::cluster {

constexpr int kMaxArrayTasks = 1000;  // Slurm's default MaxArraySize is 1001 (indices 0-1000)

struct SlurmOptions {
  std::string partition;  // "" : the cluster's default
  std::string time;       // "" : the partition's default; else MM, HH:MM:SS, D-HH:MM...
  std::string mem;        // "" : the cluster's default; else 500M, 4G...
  int cpusPerTask = 1;
  int maxParallel = 0;     // at most this many tasks at once (the array's %M); 0: no limit
  int tasks = 0;           // 0: one per run (batched: one per group), up to kMaxArrayTasks
  std::string workDir;     // "" : <store>.slurm/<study name>-<spec hash>/job-<n>
  std::string cliPath;     // fourierlab-cli as the nodes see it (the same path with a shared home)
  std::string scratch;     // the node's folder for shards; "" : $SLURM_TMPDIR, $TMPDIR or /tmp
  study::BatchMode batch;  // how the tasks batch (`sweep work --batch`); off: one run at a time
  // `sweep work --device` on the nodes: where the runs train there ("" keeps each run's own). It
  // is the nodes' to have, not the submitting machine's (a login node without GPUs).
  std::string device;
  // Where the study's experiment is found, to deal cells that train as one group to one task;
  // null: round robin whatever `batch` says.
  const ExperimentRegistry* registry = nullptr;
};

// The first problem with the options, naming the option; nullopt when they are fine.
std::optional<std::string> checkSlurmOptions(const SlurmOptions& options);

struct SlurmJobPlan {
  int64_t studyId = 0;  // 0: a study not stored yet (a dry run)
  JobFile job;          // the study and each task's cells
  JobFolder folder;
  SlurmOptions options;
  std::vector<int64_t> continued;          // cells whose stopped or failed run goes along in a seed
  std::vector<int64_t> heldByActiveTasks;  // unfinished, but a queued or running task has them
  std::vector<int64_t> heldLocally;        // a local process trains them now
  std::string script;

  size_t runs() const;
};

class SlurmError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// sbatch refused a job that was ready (its options were fine here): told apart from a plan
// refused before anything was written, which is the caller's usage.
class SbatchRefused : public SlurmError {
 public:
  using SlurmError::SlurmError;
};

// sbatch said yes without the job's id: the job may be queued, and is not recorded with the
// study. Neither bad usage nor a refusal: submitting again could queue the runs twice.
class SbatchAnswerUnclear : public SlurmError {
 public:
  using SlurmError::SlurmError;
};

// A job for the unfinished cells of stored study `studyId`, leaving out those a queued or
// running task of an earlier job holds (squeue) and those a live local process trains. Call
// collectFinishedShards first, so runs that finished on the cluster are not sent again.
// Throws SlurmError for bad options, store::StoreError.
SlurmJobPlan planSlurmJob(store::RunStore& store, int64_t studyId, const SlurmOptions& options);

// The same for a study not stored yet (`sweep run --slurm --dry-run`): all its cells.
SlurmJobPlan planNewStudyJob(const std::string& storePath, const study::StudySpec& spec,
                             const study::StudyExpansion& expansion, const SlurmOptions& options);

// The batch script of a plan.
std::string sbatchScript(const SlurmJobPlan& plan);

// Writes the work folder: job.json, job.sbatch, and the seeds (copies of the stopped and failed
// runs the tasks continue, with their checkpoints). Returns the job to record, without its
// scheduler id.
StudyJob writeJobFolder(store::RunStore& store, const SlurmJobPlan& plan);

// writeJobFolder, then `sbatch --parsable`, then the job recorded with the study. Throws
// SbatchRefused with sbatch's message (then nothing is recorded; the script and job file stay
// for a look, the seeds are removed).
StudyJob submitSlurmJob(store::RunStore& store, const SlurmJobPlan& plan);

struct TaskState {
  int task = 0;
  TaskStage state = TaskStage::Queued;  // queued, running, done or failed
  std::string detail;      // Slurm's state when it is not the obvious one (CANCELLED, TIMEOUT...)
  std::string source;      // where the state comes from: squeue, sacct, or "task report"
  nlohmann::json report;   // the task's own report (WORK/tasks/task-I.json), when it wrote one
  bool published = false;  // its shard is in WORK/shards
  bool collected = false;  // and merged, as it is now
  std::vector<int64_t> cells;
};

// Each task of a job, from squeue (while Slurm remembers the job), else sacct (with
// accounting), else the task's own report and shard.
std::vector<TaskState> taskStates(const StudyJob& job);

// Whether sbatch is on the PATH (the GUI offers "send to cluster" only then).
bool slurmAvailable();

}  // namespace fl::cluster
