// `fourierlab-cli sweep run|resume`: train a study (core/study) with progress on stderr; the
// reading subcommands are in sweep_reading.cpp.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "app/cli/commands.h"
#include "app/cli/console_progress.h"
#include "app/cli/json_text.h"
#include "app/cli/next_command.h"
#include "app/cli/sweep_options.h"
#include "app/cli/sweep_reading.h"
#include "app/cli/sweep_slurm.h"
#include "app/cli/sweep_spec.h"
#include "core/engine/device.h"
#include "core/engine/interrupt_signals.h"
#include "core/engine/openmp_wait_policy.h"
#include "core/store/run_store.h"
#include "core/store/store_folder.h"
#include "core/study/cell_launch.h"
#include "core/study/metric_names.h"
#include "core/study/study_aggregate.h"
#include "core/study/study_expansion.h"
#include "core/study/study_scheduler.h"
#include "core/study/study_store.h"
#include "core/study/study_table.h"

namespace fl::cli {

namespace fs = std::filesystem;

namespace {

// The metrics a progress line shows: the study's table metrics, else its test/val metrics.
std::vector<std::string> headlineMetrics(const study::StudySpec& spec,
                                         const std::map<std::string, double>& finalMetrics) {
  std::vector<std::string> keys;
  if (spec.table)
    for (const auto& m : spec.table->metrics)
      if (finalMetrics.count(m)) keys.push_back(m);
  if (keys.empty())
    for (const auto& [k, v] : finalMetrics)
      if (k.rfind("test/", 0) == 0 || k.rfind("val/", 0) == 0) keys.push_back(k);
  if (keys.size() > 3) keys.resize(3);
  return keys;
}

std::string progressPrefix(const study::StudyProgress& p) {
  char buf[48];
  const int width = static_cast<int>(std::to_string(p.total).size());
  std::snprintf(buf, sizeof buf, "[%*lld/%lld]", width, static_cast<long long>(p.finished),
                static_cast<long long>(p.total));
  return buf;
}

std::string progressSuffix(const study::StudyProgress& p) {
  std::string out;
  if (p.failed) out += " | " + std::to_string(p.failed) + " failed";
  if (p.interrupted) out += " | " + std::to_string(p.interrupted) + " interrupted";
  if (p.elsewhere) out += " | " + std::to_string(p.elsewhere) + " in another process";
  if (p.etaSeconds) out += " | ETA " + formatDuration(*p.etaSeconds);
  return out;
}

// The study's runs another live process is training. Each look opens the store afresh: the
// opening records the runs of a process that died (kill -9) interrupted, so none is waited on
// for ever. A store busy past its timeout is looked at again later.
std::optional<int64_t> runningElsewhere(const std::string& dbPath, int64_t studyId) {
  try {
    store::RunStore fresh(dbPath);
    const auto record = study::StudyStore(fresh).study(studyId);
    return record ? study::countOf(record->statusCounts, study::CellStatus(RunStatus::Running)) : 0;
  } catch (const store::StoreError& e) {
    if (!e.isBusy()) throw;
    return std::nullopt;
  }
}

// Waits for the runs of the study another process trains: this command's table and exit code
// speak for the whole study (it exited 0 with no table while the other process still trained,
// and a script's `sweep run && sweep table` read an unfinished study). A signal stops the
// waiting, not those runs. Returns the signal that stopped it, or 0.
int waitForOtherProcesses(const std::string& dbPath, int64_t studyId,
                          const InterruptSignals& signals) {
  auto running = runningElsewhere(dbPath, studyId);
  if (running.value_or(1) == 0) return 0;
  std::fprintf(stderr,
               "waiting for the runs of study %lld that another process trains (Ctrl-C stops "
               "waiting; they go on there)\n",
               static_cast<long long>(studyId));
  while (running.value_or(1) > 0 && !signals.received()) {
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    running = runningElsewhere(dbPath, studyId);
  }
  return signals.received();
}

// Asks LibTorch for each device the runs would train on (--device, else each run's own): one
// this machine lacks is a usage error (exit 2) before anything is stored or claimed. Each run
// had failed with "no CUDA device is visible", and the study's next resume trained them all
// again from step 0, their checkpoints replaced.
std::optional<int> checkDevices(const std::string& asked, const std::set<std::string>& own) {
  const std::set<std::string> devices = asked.empty() ? own : std::set<std::string>{asked};
  for (const auto& device : devices) {
    try {
      resolveDevice(device);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "error: %s%s\n",
                   asked.empty() ? "the study's runs: " : "--device: ", e.what());
      return kExitBadUsage;
    }
  }
  return std::nullopt;
}

std::set<std::string> devicesOf(const std::vector<nlohmann::json>& configs) {
  std::set<std::string> devices;
  for (const auto& config : configs)
    if (config.is_object() && config.contains("device") && config["device"].is_string())
      devices.insert(config["device"].get<std::string>());
  return devices;
}

int trainStudy(const ExperimentRegistry& registry, const std::string& dbPath, int64_t studyId,
               const SweepArgs& args) {
  const std::string resumeCommand = nextCommand("sweep resume " + std::to_string(studyId), dbPath);
  study::StudySchedulerOptions options;
  options.requestedParallel = args.parallel;
  options.requestedThreads = args.threads;
  options.device = args.device;
  options.batch = askedBatchMode(args);
  options.batchOverridesStudy = !args.batch.empty();
  // Ctrl-C, `kill`, a closed terminal and a cluster's preemption (SIGTERM before SIGKILL) all
  // stop the study the same way: every run checkpoints where it is and ends cancelled.
  options.stopFlag = &InterruptSignals::flag();
  // A step that never ends after the signal (stuck where no cancel reaches it) must not keep
  // the process alive: past the grace, or at a second signal, its run is recorded cancelled.
  options.stopGrace = InterruptSignals::stopGrace();
  options.stopCount = &InterruptSignals::countFlag();
  study::StudyScheduler scheduler(registry, dbPath, studyId, options);

  store::RunStore runs(dbPath);
  study::StudyStore studies(runs);
  const auto record = studies.study(studyId);
  const auto unfinished = studies.unfinishedCells(studyId);
  const auto toTrain = unfinished.size();
  std::fprintf(stderr, "study %lld \"%s\" (%s): %lld runs, %lld finished, %zu to train, in %s\n",
               static_cast<long long>(studyId), record->name.c_str(), record->experiment.c_str(),
               static_cast<long long>(record->cells),
               static_cast<long long>(record->cells - static_cast<int64_t>(toTrain)), toTrain,
               runs.path().c_str());
  if (const std::string reused = study::reusedRunsText(studies.results(studyId)); !reused.empty())
    std::fprintf(stderr, "%s\n", reused.c_str());
  // The study's own mode unless --batch names another: say which, and warn where its runs will
  // not all have trained one way.
  const study::BatchMode batch =
      study::studyBatchMode(record->batch, options.batch, options.batchOverridesStudy);
  if (toTrain > 0 && !record->batch.empty()) {
    if (batch.argument() != record->batch)
      std::fprintf(stderr,
                   "WARNING: study %lld first trained with --batch %s; these runs train with "
                   "--batch %s as asked: batched products add in another order, so its seeds "
                   "may differ by more than their spread\n",
                   static_cast<long long>(studyId), record->batch.c_str(),
                   batch.argument().c_str());
    else if (args.batch.empty())
      std::fprintf(stderr, "--batch %s, as the study first trained (--batch overrides)\n",
                   batch.argument().c_str());
  }
  if (toTrain > 0) {
    const auto groups = scheduler.planGroups();
    const auto budget = scheduler.budgetFor(static_cast<int64_t>(groups.size()));
    if (groups.size() < toTrain) {
      size_t largest = 0;
      for (const auto& g : groups) largest = std::max(largest, g.size());
      std::fprintf(stderr, "batched (--batch %s): %zu runs in %zu group%s of at most %zu\n",
                   batch.describe().c_str(), toTrain, groups.size(), groups.size() == 1 ? "" : "s",
                   largest);
    } else if (toTrain > 1 && !batch.isOff()) {
      // Say why, rather than leave a study that could be batched elsewhere (on the CPU, say)
      // training run by run without a word.
      if (const auto experiment = registry.find(record->experiment)) {
        const auto why =
            study::groupingObstacle(studies, *experiment, studyId, unfinished, options.device);
        if (!why.empty())
          std::fprintf(stderr, "not batched (%s): each run trains alone\n", why.c_str());
      }
    }
    std::fprintf(stderr, "budget: %s (OpenMP wait policy: %s)%s\n", budget.describe().c_str(),
                 openMpWaitPolicy().c_str(),
                 budget.oversubscribed() ? "; WARNING: more threads than cores, as requested" : "");
  }

  InterruptSignals signals;
  study::StudyOutcome outcome;
  try {
    outcome = scheduler.run(
        [&](const study::StudyRunReport& r, const study::StudyProgress& p) {
          if (!r.ended) {
            std::fprintf(stderr, "%s start run %lld: %s (%s)\n", progressPrefix(p).c_str(),
                         static_cast<long long>(r.runId), r.label.c_str(), r.how.c_str());
            return;
          }
          std::string metrics;
          for (const auto& key : headlineMetrics(record->spec, r.finalMetrics)) {
            char buf[96];
            std::snprintf(buf, sizeof buf, " %s=%.4g", key.c_str(), r.finalMetrics.at(key));
            metrics += buf;
          }
          std::fprintf(stderr, "%s run %lld %s in %s: %s%s%s%s\n", progressPrefix(p).c_str(),
                       static_cast<long long>(r.runId), toString(r.status).c_str(),
                       formatDuration(r.seconds).c_str(), r.label.c_str(),
                       metrics.empty() ? "" : " |", metrics.c_str(), progressSuffix(p).c_str());
          if (r.status == RunStatus::Failed || r.status == RunStatus::Interrupted)
            std::fprintf(stderr, "    why: %s\n", r.message.c_str());
        },
        [](const std::string& notice) { std::fprintf(stderr, "%s\n", notice.c_str()); });
  } catch (const store::StoreError& e) {
    // A write that failed (a full disk) stopped the study: every run the store holds is
    // resumable, so say how to go on once there is room.
    std::fprintf(stderr, "store error: %s\n", e.what());
    std::fprintf(stderr,
                 "study %lld stopped: not everything was written to the store; once it can be "
                 "written, `%s` finishes the study\n",
                 static_cast<long long>(studyId), resumeCommand.c_str());
    return kExitStoreError;
  }
  if (outcome.abandoned > 0) {
    // Every run's end is in the store; their threads are inside steps that never ended.
    const int signal = signals.received();
    std::fprintf(stderr, "stopped by %s: %d run%s recorded cancelled (%s); continue with `%s`\n",
                 signal ? InterruptSignals::name(signal).c_str() : "a stop request",
                 outcome.abandoned, outcome.abandoned == 1 ? "" : "s", outcome.abandonedWhy.c_str(),
                 resumeCommand.c_str());
    InterruptSignals::exitLeavingStuckThreads(signal ? InterruptSignals::exitCode(signal)
                                                     : kExitCancelled);
  }
  auto p = outcome.progress;
  if (p.elsewhere > 0 && !outcome.cancelled) {
    if (const int signal = waitForOtherProcesses(dbPath, studyId, signals)) {
      std::fprintf(stderr,
                   "stopped waiting (%s): study %lld still has runs another process trains; "
                   "`%s` says how they end\n",
                   InterruptSignals::name(signal).c_str(), static_cast<long long>(studyId),
                   nextCommand("sweep show " + std::to_string(studyId), dbPath).c_str());
      return InterruptSignals::exitCode(signal);
    }
    // The whole study's outcome now: how the other process's runs ended counts too.
    const auto whole = studies.study(studyId);
    p.finished = study::countOf(whole->statusCounts, study::CellStatus(RunStatus::Finished));
    p.failed = study::countOf(whole->statusCounts, study::CellStatus(RunStatus::Failed));
  }
  std::fprintf(stderr, "study %lld: %lld of %lld finished, %lld failed%s%s in %s\n",
               static_cast<long long>(studyId), static_cast<long long>(p.finished),
               static_cast<long long>(p.total), static_cast<long long>(p.failed),
               p.interrupted ? (", " + std::to_string(p.interrupted) + " interrupted").c_str() : "",
               p.elsewhere
                   ? (", " + std::to_string(p.elsewhere) + " trained by another process").c_str()
                   : "",
               formatDuration(p.elapsedSeconds).c_str());
  if (outcome.cancelled) {
    const int signal = signals.received();
    std::fprintf(stderr, "stopped by %s: every run saved a checkpoint; continue with `%s`\n",
                 signal ? InterruptSignals::name(signal).c_str() : "a stop request",
                 resumeCommand.c_str());
    return signal ? InterruptSignals::exitCode(signal) : kExitCancelled;
  }
  // Of the runs that finished, where some did not too: the table's cells say how many of each
  // finished, and the line below says why the rest are missing.
  if (p.finished > 0) {
    SweepArgs table = args;
    table.id = studyId;
    table.format = "md";
    // The runs are trained and stored: a table that cannot be drawn is said, never an abort.
    try {
      printStudyTable(registry, runs, studyId, table, stdout);
    } catch (const std::exception& e) {
      std::fprintf(
          stderr, "warning: the study's table could not be drawn: %s; its runs are stored (`%s`)\n",
          e.what(), nextCommand("sweep show " + std::to_string(studyId), dbPath).c_str());
    }
  }
  if (p.finished < p.total) {
    const int64_t unfinished = p.total - p.finished;
    std::fprintf(stderr, "%lld %s not finish; `%s` says why, `%s` trains %s again\n",
                 static_cast<long long>(unfinished), unfinished == 1 ? "run did" : "runs did",
                 nextCommand("sweep show " + std::to_string(studyId), dbPath).c_str(),
                 resumeCommand.c_str(), unfinished == 1 ? "it" : "them");
  }
  // Exit 0 only for a study whose every run finished, wherever it trained.
  return p.failed > 0 || p.finished < p.total ? kExitRunFailed : kExitOk;
}

// What a study file names that the runs of the file as written would not record, or nullopt
// where that study cannot be expanded alone (it needs the command line's --set corpus=...).
std::optional<std::vector<study::UnrecordedMetric>> unrecordedAsWritten(
    const ExperimentRegistry& registry, const SweepArgs& args) {
  SweepArgs asWritten = args;
  asWritten.assignments.clear();
  asWritten.grid.clear();
  asWritten.zip.clear();
  asWritten.preset.clear();
  const SweepSpec built = sweepSpecFromArgs(registry, asWritten);
  if (!built.error.empty()) return std::nullopt;
  const auto expansion = study::expandStudy(*built.experiment, built.spec);
  if (!expansion.ok()) return std::nullopt;
  const auto recorded = study::metricsRecordedBy(*built.experiment, expansion);
  if (!recorded) return std::nullopt;
  return study::unrecordedMetrics(built.spec, *recorded);
}

// The metrics a study names that its runs will not record, found before they train. A name
// the study file's own runs would not record is the file's typo: refused (exit 2). One that
// only the command line's changes leave unrecorded (--set, --grid, --zip, --preset, or a
// built-in study changed) is a note: the change may have turned off what a claim reads
// (--set passkey_samples=0), which then reads "not measured".
int checkMetricsRecorded(const ExperimentRegistry& registry, const SweepSpec& built,
                         const study::StudyExpansion& expansion, const SweepArgs& args) {
  const auto recorded = study::metricsRecordedBy(*built.experiment, expansion);
  if (!recorded) return kExitOk;
  const auto unrecorded = study::unrecordedMetrics(built.spec, *recorded);
  if (unrecorded.empty()) return kExitOk;
  const bool changed =
      !args.assignments.empty() || !args.grid.empty() || !args.zip.empty() || !args.preset.empty();
  std::set<std::string> typos;  // "where\nmetric" of the file's own
  if (!args.studyFile.empty()) {
    const auto own = changed ? unrecordedAsWritten(registry, args) : std::optional(unrecorded);
    if (own)
      for (const auto& u : *own) typos.insert(u.place.where + "\n" + u.place.metric);
  }
  for (const auto& u : unrecorded) {
    const bool typo = typos.count(u.place.where + "\n" + u.place.metric) > 0;
    std::fprintf(stderr, "%s: %s%s\n", typo ? "error" : "note",
                 typo ? ("--study-file " + args.studyFile + ": ").c_str()
                      : (changed ? "with the command line's changes, " : ""),
                 u.text().c_str());
  }
  std::fprintf(stderr, "  (the runs of this study record %s)\n",
               study::recordedMetricsText(*recorded).c_str());
  if (typos.empty()) return kExitOk;
  std::fprintf(stderr, "nothing was stored\n");
  return kExitBadUsage;
}

int sweepRun(const ExperimentRegistry& registry, const std::string& dbPath, const SweepArgs& args) {
  SweepSpec built = sweepSpecFromArgs(registry, args);
  if (!built.error.empty()) {
    std::fprintf(stderr, "error: %s\n", built.error.c_str());
    return kExitBadUsage;
  }
  const study::StudyExpansion expansion = study::expandStudy(*built.experiment, built.spec);
  if (!expansion.ok()) {
    for (const auto& e : expansion.errors) std::fprintf(stderr, "error: %s\n", e.c_str());
    std::fprintf(stderr, "nothing was stored\n");
    return kExitBadUsage;
  }
  if (const int refused = checkMetricsRecorded(registry, built, expansion, args);
      refused != kExitOk)
    return refused;
  if (const auto unmatched =
          study::unmatchedWheres(built.spec, expansion, built.experiment->allParams());
      !unmatched.empty()) {
    std::string list;
    for (const auto& u : unmatched) list += (list.empty() ? "" : "; ") + u;
    const bool one = unmatched.size() == 1;
    const std::string what =
        one ? "one claim side or reference row matches"
            : std::to_string(unmatched.size()) + " claim sides or reference rows match";
    std::fprintf(stderr,
                 "note: %s none of this study's runs, so %s not used (a claim reads \"not "
                 "measured\"): %s\n",
                 what.c_str(), one ? "it is" : "they are", list.c_str());
  }
  if (expansion.duplicatesDropped > 0 && !args.dryRun)
    std::fprintf(stderr,
                 "note: %lld setting(s) dropped, each the same run as another: they differ only "
                 "in values those runs do not use (a linear head's frequencies), or two arms set "
                 "them alike\n",
                 static_cast<long long>(expansion.duplicatesDropped));
  if (args.slurm) return sweepRunOnSlurm(registry, dbPath, built.spec, expansion, args);
  // Here, where the runs train (a cluster's tasks train on its nodes). A dry run says so too:
  // it exited 0 for a device this machine lacks, where the run itself exits 2.
  std::vector<nlohmann::json> configs;
  for (const auto& cell : expansion.cells) configs.push_back(cell.config);
  if (auto refused = checkDevices(args.device, devicesOf(configs))) {
    std::fprintf(stderr, "nothing was stored\n");
    return *refused;
  }
  if (args.dryRun) {
    std::printf("%s: %zu runs of %s%s\n", built.spec.name.c_str(), expansion.cells.size(),
                built.spec.experiment.c_str(),
                expansion.duplicatesDropped ? (" (" + std::to_string(expansion.duplicatesDropped) +
                                               " duplicate settings dropped)")
                                                  .c_str()
                                            : "");
    // Which runs the store already has finished (the study takes them as they are), and the
    // study this spec continues, if stored: read without writing, and only from a store there
    // is (a dry run creates nothing).
    std::map<std::string, int64_t> finished;
    std::optional<int64_t> continued;
    std::error_code ec;
    if (fs::is_regular_file(dbPath, ec)) {
      try {
        store::RunStore runs(dbPath, /*readOnly=*/true);
        const study::StudyStore studies(runs);
        continued = studies.findSameSpec(built.spec);
        for (const auto& cell : expansion.cells)
          if (auto run = studies.finishedRunOf(built.spec.experiment, cell.hash))
            finished[cell.hash] = *run;
      } catch (const std::exception& e) {
        std::fprintf(stderr, "note: which runs are finished already is not known: %s\n", e.what());
      }
    }
    for (const auto& cell : expansion.cells) {
      const auto run = finished.find(cell.hash);
      const std::string done =
          run == finished.end() ? "" : "  finished already: run #" + std::to_string(run->second);
      std::printf("  %s%s  [%s]%s\n", cell.arm.empty() ? "" : (cell.arm + ": ").c_str(),
                  study::cellLabel(cell.axes, cell.seed).c_str(), cell.hash.c_str(), done.c_str());
    }
    if (continued)
      std::printf("study %lld has this exact spec: running it continues that study\n",
                  static_cast<long long>(*continued));
    if (!finished.empty())
      std::printf("%zu of them finished already, taken as %s; %zu to train\n", finished.size(),
                  finished.size() == 1 ? "it is" : "they are",
                  expansion.cells.size() - finished.size());
    std::printf("%s\n", jsonText(built.spec.toJson(), 2).c_str());
    return kExitOk;
  }
  int64_t studyId = 0;
  {
    store::RunStore runs(dbPath);
    study::StudyStore studies(runs);
    if (auto same = studies.findSameSpec(built.spec)) {
      studyId = *same;
      std::fprintf(stderr, "study %lld has this exact spec: continuing it\n",
                   static_cast<long long>(studyId));
    } else {
      studyId = studies.create(built.spec, expansion);
    }
  }
  return trainStudy(registry, dbPath, studyId, args);
}

}  // namespace

int sweepCommand(const ExperimentRegistry& registry, const SweepArgs& args) {
  const std::string dbPath = args.db.empty() ? store::RunStore::defaultPath() : args.db;
  if (const std::string missing =
          args.action == "run" && !args.db.empty() ? store::missingStoreFolder(args.db) : "";
      !missing.empty()) {
    std::fprintf(stderr, "error: --db %s: %s\n", args.db.c_str(), missing.c_str());
    return kExitBadUsage;
  }
  try {
    if (args.action == "run") return sweepRun(registry, dbPath, args);
    if (args.action == "resume" && args.slurm) return sweepResumeOnSlurm(registry, dbPath, args);
    if (args.action == "work") return sweepWork(registry, args);
    if (args.action == "status" || args.action == "collect") return sweepSlurmCommand(dbPath, args);
    if (args.action == "resume") {
      {
        store::RunStore::requireExisting(dbPath);  // a resume never creates the store
        store::RunStore runs(dbPath);
        const study::StudyStore studies(runs);
        if (!studies.study(args.id)) {
          std::fprintf(stderr, "error: no study %lld in %s\n", static_cast<long long>(args.id),
                       runs.path().c_str());
          return kExitBadUsage;
        }
        std::vector<nlohmann::json> configs;
        for (const int64_t cell : studies.unfinishedCells(args.id))
          configs.push_back(studies.cellConfig(args.id, cell));
        if (auto refused = checkDevices(args.device, devicesOf(configs))) {
          std::fprintf(stderr, "nothing was changed\n");
          return *refused;
        }
      }
      return trainStudy(registry, dbPath, args.id, args);
    }
    return sweepReadingCommand(registry, dbPath, args);
  } catch (const store::StoreError& e) {
    std::fprintf(stderr, "store error: %s\n", e.what());
    return kExitStoreError;
  }
}

}  // namespace fl::cli
