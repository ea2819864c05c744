// `fourierlab-cli sweep run|resume --slurm`, `sweep work`, `sweep status`, `sweep collect`:
// studies on a Slurm cluster, each task training into its own shard store, the shards merged
// into the user's store afterwards (core/cluster/slurm_job.h, shard_task.h, shard_merge.h).
#include "app/cli/sweep_slurm.h"

#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>

#include "app/cli/console_progress.h"
#include "app/cli/json_text.h"
#include "app/cli/next_command.h"
#include "app/cli/sweep_options.h"
#include "core/cluster/shard_merge.h"
#include "core/cluster/shard_task.h"
#include "core/cluster/slurm_job.h"
#include "core/engine/interrupt_signals.h"
#include "core/engine/openmp_wait_policy.h"
#include "core/store/run_store.h"
#include "core/study/study_store.h"

namespace fl::cli {

namespace fs = std::filesystem;
using cluster::SlurmOptions;

namespace {

long long ll(int64_t v) { return static_cast<long long>(v); }

std::string clockTime(double unixSeconds) {
  const std::time_t t = static_cast<std::time_t>(unixSeconds);
  std::tm local{};
  localtime_r(&t, &local);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%S", &local);
  return buf;
}

SlurmOptions slurmOptionsOf(const SweepArgs& args, const ExperimentRegistry& registry) {
  SlurmOptions o;
  o.batch = askedBatchMode(args);
  o.registry = &registry;
  o.partition = args.partition;
  o.time = args.time;
  o.mem = args.mem;
  o.cpusPerTask = args.cpusPerTask;
  o.maxParallel = args.maxParallel;
  o.tasks = args.tasks;
  o.workDir = args.workDir;
  o.scratch = args.scratch;
  o.device = args.device;
  // The tasks run this very build: with a shared home the nodes see the same path.
  std::error_code ec;
  o.cliPath = fs::read_symlink("/proc/self/exe", ec).string();
  return o;
}

std::string countsText(const study::StudyRecord& r) {
  std::string out;
  for (const auto& [status, n] : r.statusCounts)
    out += (out.empty() ? "" : ", ") + std::to_string(n) + " " + study::toString(status);
  return out.empty() ? "no runs" : out;
}

std::string cellList(const std::vector<int64_t>& cells) {
  std::string out;
  for (size_t i = 0; i < cells.size() && i < 12; ++i)
    out += (out.empty() ? "" : ", ") + std::to_string(cells[i]);
  if (cells.size() > 12) out += ", ...";
  return out;
}

// The options with the study's own batch mode, unless --batch named another: its array tasks
// are given it by name.
SlurmOptions withStudysBatchMode(store::RunStore& runs, int64_t studyId, SlurmOptions options,
                                 bool batchAsked) {
  if (const auto record = study::StudyStore(runs).study(studyId))
    options.batch = study::studyBatchMode(record->batch, options.batch, batchAsked);
  return options;
}

int submitStudy(store::RunStore& runs, int64_t studyId, const SlurmOptions& asked,
                bool batchAsked) {
  const SlurmOptions options = withStudysBatchMode(runs, studyId, asked, batchAsked);
  study::StudyStore(runs).recordFirstBatchMode(studyId, options.batch.argument());
  const auto plan = cluster::planSlurmJob(runs, studyId, options);
  if (!plan.heldLocally.empty())
    std::fprintf(stderr, "%zu runs are training in a local process: left to it (cells %s)\n",
                 plan.heldLocally.size(), cellList(plan.heldLocally).c_str());
  if (!plan.heldByActiveTasks.empty())
    std::fprintf(stderr,
                 "%zu runs belong to tasks still queued or running: left to them (cells %s)\n",
                 plan.heldByActiveTasks.size(), cellList(plan.heldByActiveTasks).c_str());
  if (plan.job.tasks.empty()) {
    std::fprintf(stderr, "nothing to submit: every run of study %lld is finished or taken\n",
                 ll(studyId));
    return kExitOk;
  }
  const cluster::StudyJob job = cluster::submitSlurmJob(runs, plan);
  std::fprintf(stderr, "submitted Slurm job %s: %zu runs of study %lld in %zu array tasks%s\n",
               job.jobId.c_str(), plan.runs(), ll(studyId), job.tasks.size(),
               plan.continued.empty() ? ""
                                      : (" (" + std::to_string(plan.continued.size()) +
                                         " stopped or failed runs continue from their checkpoints)")
                                            .c_str());
  std::fprintf(stderr, "work folder: %s\n", job.workDir.c_str());
  const std::string id = std::to_string(studyId);
  std::fprintf(stderr, "follow it with `%s`; merge what the tasks publish with `%s`\n",
               nextCommand("sweep status " + id, runs.path()).c_str(),
               nextCommand("sweep collect " + id, runs.path()).c_str());
  std::printf("%s\n", job.jobId.c_str());
  return kExitOk;
}

// After a submission refused: the study is stored all the same, and how to send it again.
void sayStoredAndHowToSubmit(const store::RunStore& runs, int64_t studyId) {
  std::fprintf(
      stderr, "the study is stored as %lld; `%s` submits it again\n", ll(studyId),
      nextCommand("sweep resume " + std::to_string(studyId) + " --slurm", runs.path()).c_str());
}

// After an answer without a job id: the job may be queued, so submitting again is not the
// first thing to do.
void sayStoredAndWhatToCheck(const store::RunStore& runs, int64_t studyId) {
  std::fprintf(
      stderr,
      "the study is stored as %lld; if `squeue --me` does not show the job, `%s` "
      "submits it again\n",
      ll(studyId),
      nextCommand("sweep resume " + std::to_string(studyId) + " --slurm", runs.path()).c_str());
}

std::optional<study::StudyRecord> requireStudy(store::RunStore& runs, int64_t id) {
  auto record = study::StudyStore(runs).study(id);
  if (!record) std::fprintf(stderr, "error: no study %lld in %s\n", ll(id), runs.path().c_str());
  return record;
}

bool requireSbatch() {
  if (cluster::slurmAvailable()) return true;
  std::fprintf(stderr,
               "error: --slurm needs Slurm's sbatch on the PATH (run it on the cluster's login "
               "node; scripts/slurm/local-cluster.sh starts a test cluster here)\n");
  return false;
}

// Prints what a collect merged; returns how many shards were refused.
int reportCollect(const std::vector<cluster::ShardMergeResult>& results, int64_t studyId) {
  int refused = 0, added = 0, replaced = 0;
  for (const auto& r : results) {
    if (!r.merged) {
      ++refused;
      std::fprintf(stderr, "task %d: refused %s\n", r.task, r.refusal.c_str());
      continue;
    }
    added += r.added;
    replaced += r.replaced;
    std::fprintf(stderr, "task %d: %s\n", r.task, r.summary().c_str());
  }
  if (results.empty())
    std::fprintf(stderr, "no task of study %lld has published a shard yet\n", ll(studyId));
  else
    std::fprintf(stderr, "collected %zu shards: %d runs added, %d replaced%s\n",
                 results.size() - static_cast<size_t>(refused), added, replaced,
                 refused ? (", " + std::to_string(refused) + " shards refused").c_str() : "");
  return refused;
}

nlohmann::json mergeJson(const cluster::ShardMergeResult& r) {
  return {{"task", r.task},
          {"shard", r.shard},
          {"merged", r.merged},
          {"unchanged", r.unchanged},
          {"refusal", r.refusal},
          {"added", r.added},
          {"replaced", r.replaced},
          {"kept", r.kept},
          {"unfinished", r.unfinished},
          {"cells_linked", r.cellsLinked},
          {"checkpoints", r.checkpoints}};
}

int collect(store::RunStore& runs, int64_t studyId, bool json) {
  const auto results = cluster::collectFinishedShards(runs, studyId);
  const int refused = reportCollect(results, studyId);
  const auto record = study::StudyStore(runs).study(studyId);
  std::fprintf(stderr, "study %lld: %lld runs: %s\n", ll(studyId), ll(record->cells),
               countsText(*record).c_str());
  if (json) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& r : results) out.push_back(mergeJson(r));
    std::printf("%s\n", jsonText(out, 2).c_str());
  }
  return refused ? kExitStoreError : kExitOk;
}

std::string taskCounts(const cluster::TaskState& t) {
  std::string out = std::to_string(t.cells.size()) + " runs";
  if (t.report.is_object() && t.report.contains("counts")) {
    const auto& c = t.report["counts"];
    out += ": " + std::to_string(c.value("finished", 0)) + " finished";
    if (c.value("failed", 0)) out += ", " + std::to_string(c.value("failed", 0)) + " failed";
    if (c.value("cancelled", 0))
      out += ", " + std::to_string(c.value("cancelled", 0)) + " cancelled";
    if (c.value("active", 0)) out += ", " + std::to_string(c.value("active", 0)) + " training";
  }
  return out;
}

int status(store::RunStore& runs, const study::StudyRecord& record, bool json) {
  const auto jobs = cluster::StudyJobs(runs).ofStudy(record.id);
  nlohmann::json out = {{"study", record.id},
                        {"name", record.name},
                        {"runs", record.cells},
                        {"status_counts", study::countsJson(record.statusCounts)},
                        {"jobs", nlohmann::json::array()}};
  if (!json)
    std::printf("study %lld \"%s\" (%s): %lld runs in the store: %s\n", ll(record.id),
                record.name.c_str(), record.experiment.c_str(), ll(record.cells),
                countsText(record).c_str());
  int uncollected = 0;
  for (const auto& job : jobs) {
    const auto states = cluster::taskStates(job);
    nlohmann::json tasks = nlohmann::json::array();
    size_t runsInJob = 0;
    for (const auto& t : states) runsInJob += t.cells.size();
    if (!json)
      std::printf("job %s (submitted %s, %zu tasks, %zu runs) in %s\n", job.jobId.c_str(),
                  clockTime(job.submitted).c_str(), job.tasks.size(), runsInJob,
                  job.workDir.c_str());
    for (const auto& t : states) {
      if (t.published && !t.collected) ++uncollected;
      const std::string shard = t.collected   ? "shard collected"
                                : t.published ? "shard not collected yet"
                                              : "";
      const std::string host =
          t.report.is_object() ? t.report.value("host", std::string()) : std::string();
      if (!json)
        std::printf(
            "  task %-3d %-8s %-34s %-22s %s [%s]\n", t.task,
            (cluster::toString(t.state) + (t.detail.empty() ? "" : " (" + t.detail + ")")).c_str(),
            taskCounts(t).c_str(), shard.c_str(), host.c_str(), t.source.c_str());
      tasks.push_back({{"task", t.task},
                       {"state", cluster::toString(t.state)},
                       {"detail", t.detail},
                       {"source", t.source},
                       {"cells", t.cells},
                       {"published", t.published},
                       {"collected", t.collected},
                       {"report", t.report}});
    }
    out["jobs"].push_back({{"job_id", job.jobId},
                           {"work_dir", job.workDir},
                           {"submitted", job.submitted},
                           {"options", job.options},
                           {"tasks", tasks}});
  }
  if (json) {
    std::printf("%s\n", jsonText(out, 2).c_str());
    return kExitOk;
  }
  // A finished study has nothing to send: it had been told to send its runs all the same.
  if (jobs.empty() && record.status() == study::StudyStatus::Finished)
    std::printf("no Slurm job; every run is finished\n");
  else if (jobs.empty())
    std::printf(
        "no Slurm job; send its runs with `%s`\n",
        nextCommand("sweep resume " + std::to_string(record.id) + " --slurm", runs.path()).c_str());
  else if (uncollected)
    std::printf("%d shards not collected yet: `%s`\n", uncollected,
                nextCommand("sweep collect " + std::to_string(record.id), runs.path()).c_str());
  return kExitOk;
}

std::string progressPrefix(const study::StudyProgress& p) {
  return "[" + std::to_string(p.finished) + "/" + std::to_string(p.total) + "]";
}

}  // namespace

int sweepRunOnSlurm(const ExperimentRegistry& registry, const std::string& dbPath,
                    const study::StudySpec& spec, const study::StudyExpansion& expansion,
                    const SweepArgs& args) {
  const SlurmOptions options = slurmOptionsOf(args, registry);
  try {
    if (auto problem = cluster::checkSlurmOptions(options)) throw cluster::SlurmError(*problem);
    if (args.dryRun) {
      cluster::SlurmJobPlan plan;
      std::optional<int64_t> existing;
      if (fs::exists(dbPath)) {
        store::RunStore runs(dbPath, /*readOnly=*/true);
        existing = study::StudyStore(runs).findSameSpec(spec);
        if (existing)
          plan = cluster::planSlurmJob(
              runs, *existing, withStudysBatchMode(runs, *existing, options, !args.batch.empty()));
      }
      if (!existing) plan = cluster::planNewStudyJob(dbPath, spec, expansion, options);
      std::fprintf(stderr,
                   "dry run: %zu runs of %s in %zu array tasks, work folder %s; nothing stored or "
                   "submitted\n",
                   plan.runs(),
                   existing ? ("study " + std::to_string(*existing)).c_str() : "a new study",
                   plan.job.tasks.size(), plan.folder.root.c_str());
      std::printf("%s", plan.script.c_str());
      return kExitOk;
    }
    if (!requireSbatch()) return kExitBadUsage;
    store::RunStore runs(dbPath);
    study::StudyStore studies(runs);
    int64_t studyId = 0;
    if (auto same = studies.findSameSpec(spec)) {
      studyId = *same;
      std::fprintf(stderr, "study %lld has this exact spec: continuing it\n", ll(studyId));
    } else {
      studyId = studies.create(spec, expansion);
      std::fprintf(stderr, "study %lld \"%s\": %zu runs stored in %s\n", ll(studyId),
                   spec.name.c_str(), expansion.cells.size(), runs.path().c_str());
    }
    try {
      return submitStudy(runs, studyId, options, !args.batch.empty());
    } catch (const cluster::SbatchAnswerUnclear& e) {
      std::fprintf(stderr, "error: %s\n", e.what());
      sayStoredAndWhatToCheck(runs, studyId);
      return kExitSchedulerUnclear;
    } catch (const cluster::SlurmError& e) {
      // Stored, whichever refused the job: sbatch, or the plan (a --work-dir already taken).
      std::fprintf(stderr, "error: %s\n", e.what());
      sayStoredAndHowToSubmit(runs, studyId);
      return dynamic_cast<const cluster::SbatchRefused*>(&e) ? kExitSchedulerRefused
                                                             : kExitBadUsage;
    }
  } catch (const cluster::SlurmError& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return kExitBadUsage;
  }
}

int sweepResumeOnSlurm(const ExperimentRegistry& registry, const std::string& dbPath,
                       const SweepArgs& args) {
  const SlurmOptions options = slurmOptionsOf(args, registry);
  if (auto problem = cluster::checkSlurmOptions(options)) {
    std::fprintf(stderr, "error: %s\n", problem->c_str());
    return kExitBadUsage;
  }
  if (!fs::exists(dbPath)) {
    std::fprintf(stderr, "error: no run store at %s\n", dbPath.c_str());
    return kExitStoreError;
  }
  store::RunStore runs(dbPath);
  if (!requireStudy(runs, args.id)) return kExitBadUsage;
  if (!requireSbatch()) return kExitBadUsage;
  // What finished on the cluster is merged first, so it is not sent again.
  if (!cluster::StudyJobs(runs).ofStudy(args.id).empty())
    reportCollect(cluster::collectFinishedShards(runs, args.id), args.id);
  try {
    return submitStudy(runs, args.id, options, !args.batch.empty());
  } catch (const cluster::SbatchRefused& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    sayStoredAndHowToSubmit(runs, args.id);
    return kExitSchedulerRefused;
  } catch (const cluster::SbatchAnswerUnclear& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    sayStoredAndWhatToCheck(runs, args.id);
    return kExitSchedulerUnclear;
  } catch (const cluster::SlurmError& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return kExitBadUsage;
  }
}

int sweepWork(const ExperimentRegistry& registry, const SweepArgs& args) {
  int task = args.task;
  if (task < 0) {
    const char* fromSlurm = std::getenv("SLURM_ARRAY_TASK_ID");
    if (!fromSlurm || !*fromSlurm) {
      std::fprintf(stderr, "error: sweep work needs --task (or $SLURM_ARRAY_TASK_ID)\n");
      return kExitBadUsage;
    }
    task = std::atoi(fromSlurm);
  }
  cluster::ShardTaskOptions options;
  options.folder.root = fs::absolute(args.workDir).lexically_normal().string();
  options.task = task;
  options.scratchRoot = args.scratch;
  options.scheduler.requestedParallel = args.parallel;
  options.scheduler.requestedThreads = args.threads;
  options.scheduler.device = args.device;
  // The submission resolved the study's mode and passed it by name.
  options.scheduler.batch = askedBatchMode(args);
  options.scheduler.batchOverridesStudy = true;
  options.scheduler.stopFlag = &InterruptSignals::flag();
  // A step stuck past the grace is left behind with its run recorded cancelled, well before
  // Slurm's SIGKILL (30 s after SIGTERM by default) would leave the run `running` in the shard.
  options.scheduler.stopGrace = InterruptSignals::stopGrace();
  options.scheduler.stopCount = &InterruptSignals::countFlag();
  if (const char* id = std::getenv("SLURM_JOB_ID")) options.slurmJobId = id;

  InterruptSignals signals;
  std::fprintf(
      stderr, "task %d of the job in %s%s; OpenMP wait policy: %s\n", task,
      options.folder.root.c_str(),
      options.slurmJobId.empty() ? "" : (" (Slurm job " + options.slurmJobId + ")").c_str(),
      openMpWaitPolicy().c_str());
  cluster::ShardTaskOutcome outcome;
  try {
    outcome = cluster::runShardTask(
        registry, options, [](const study::StudyRunReport& r, const study::StudyProgress& p) {
          if (!r.ended) {
            std::fprintf(stderr, "%s start shard run %lld: %s (%s)\n", progressPrefix(p).c_str(),
                         ll(r.runId), r.label.c_str(), r.how.c_str());
          } else {
            std::fprintf(stderr, "%s shard run %lld %s in %s: %s%s%s\n", progressPrefix(p).c_str(),
                         ll(r.runId), toString(r.status).c_str(), formatDuration(r.seconds).c_str(),
                         r.label.c_str(), r.message.empty() ? "" : ": ", r.message.c_str());
          }
          std::fflush(stderr);
        });
  } catch (const store::StoreError& e) {
    std::fprintf(stderr, "store error: %s\n", e.what());
    return kExitStoreError;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return kExitBadUsage;
  }
  const auto& p = outcome.study.progress;
  std::fprintf(stderr,
               "task %d %s: %lld of %lld runs finished, %lld failed, %lld cancelled%s (%s, %s); "
               "shard published to %s\n",
               task, cluster::toString(outcome.state).c_str(), ll(p.finished), ll(p.total),
               ll(p.failed), ll(p.cancelled),
               p.interrupted ? (", " + std::to_string(p.interrupted) + " interrupted").c_str() : "",
               outcome.study.budget.describe().c_str(), formatDuration(p.elapsedSeconds).c_str(),
               outcome.shard.c_str());
  if (outcome.study.abandoned > 0) {
    // The shard holds their end; their threads are inside steps that never ended.
    std::fprintf(stderr,
                 "stopped by %s: %d run%s recorded cancelled (%s); `sweep collect` merges the "
                 "shard and `sweep resume --slurm` continues them\n",
                 InterruptSignals::name(signals.received()).c_str(), outcome.study.abandoned,
                 outcome.study.abandoned == 1 ? "" : "s", outcome.study.abandonedWhy.c_str());
    InterruptSignals::exitLeavingStuckThreads(outcome.exitCode);
  }
  if (outcome.state == cluster::TaskStage::Cancelled)
    std::fprintf(stderr,
                 "stopped by %s: every run saved a checkpoint; `sweep collect` merges them and "
                 "`sweep resume --slurm` continues them\n",
                 InterruptSignals::name(signals.received()).c_str());
  return outcome.exitCode;
}

int sweepSlurmCommand(const std::string& dbPath, const SweepArgs& args) {
  if (!fs::exists(dbPath)) {
    std::fprintf(stderr, "error: no run store at %s\n", dbPath.c_str());
    return kExitStoreError;
  }
  store::RunStore runs(dbPath);
  const auto record = requireStudy(runs, args.id);
  if (!record) return kExitBadUsage;
  if (args.action == "status") return status(runs, *record, args.json);
  return collect(runs, args.id, args.json);
}

}  // namespace fl::cli
