#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "app/cli/commands.h"
#include "app/cli/console_progress.h"
#include "app/cli/json_text.h"
#include "app/cli/next_command.h"
#include "core/engine/build_info.h"
#include "core/engine/device.h"
#include "core/engine/event_queue.h"
#include "core/engine/interrupt_signals.h"
#include "core/engine/natural_order.h"
#include "core/engine/preset_verdicts.h"
#include "core/engine/run_name.h"
#include "core/engine/runner.h"
#include "core/engine/system_metrics.h"
#include "core/store/config_hash.h"
#include "core/store/resume_plan.h"
#include "core/store/run_store.h"
#include "core/store/store_folder.h"
#include "core/store/store_sink.h"
#include "core/store/store_writer.h"
#include "core/store/write_trouble.h"
#include "core/study/thread_budget.h"

namespace fl::cli {

namespace {

// A cancelled run answers with the signal that asked for it (130, 143, 129).
int exitCodeFor(const StatusEvent& status, int signal) {
  switch (status.status) {
    case RunStatus::Finished:
      return kExitOk;
    case RunStatus::Cancelled:
      return signal ? InterruptSignals::exitCode(signal) : kExitCancelled;
    case RunStatus::Interrupted:
      // The Runner ends a run so only where its checkpoint could not be continued for a reason
      // outside it (its corpus changed): a usage error, the run left resumable.
      return kExitBadUsage;
    default:
      return status.fileWriteFailed ? kExitStoreError : kExitRunFailed;
  }
}

}  // namespace

namespace {

// What `run` needs before it starts: the experiment, its validated config, and the store row.
struct Prepared {
  std::shared_ptr<const Experiment> experiment;
  ValidatedConfig config;
  int64_t runId = 0;
  std::optional<ResumePoint> resume;
  // A resumed run's record before the resume: a refused resume puts its status, message and
  // end time back (a cancelled run read "interrupted: not resumed: ..." after it).
  std::optional<store::RunRecord> before;
};

// Validates a fresh run's arguments; returns the exit code on failure.
std::optional<int> prepareFresh(const ExperimentRegistry& registry, const RunArgs& args,
                                Prepared& out) {
  out.experiment = registry.find(args.experiment);
  if (!out.experiment) {
    std::fprintf(stderr, "error: unknown experiment '%s' (known: %s)\n", args.experiment.c_str(),
                 registry.names().c_str());
    return kExitBadUsage;
  }
  if (args.presetGiven && args.preset.empty()) {
    // Not "no preset": an empty name is a mistake (a shell variable left unset), and the
    // defaults are a 500-epoch run.
    std::string known;
    for (const auto& p : out.experiment->presets()) known += (known.empty() ? "" : ", ") + p.name;
    std::fprintf(stderr, "error: --preset needs a name (known: %s)\n", known.c_str());
    return kExitBadUsage;
  }
  auto assignments = args.assignments;
  if (!args.device.empty()) assignments.push_back("device=" + args.device);
  out.config = buildConfig(*out.experiment, args.preset, assignments);
  if (!out.config.ok()) {
    for (const auto& issue : out.config.issues)
      std::fprintf(stderr, "error: %s\n", issue.message.c_str());
    return kExitBadUsage;
  }
  return std::nullopt;
}

// Loads a stored run to continue: its experiment, its config, its last checkpoint.
std::optional<int> prepareResumeArgs(const ExperimentRegistry& registry, store::RunStore& store,
                                     const RunArgs& args, Prepared& out) {
  if (!args.assignments.empty() || args.presetGiven) {
    std::fprintf(stderr,
                 "error: --resume continues the stored config; --set and --preset "
                 "do not apply\n");
    return kExitBadUsage;
  }
  out.before = store.run(args.resume);
  auto plan = store::prepareResume(registry, store, args.resume, args.device, args.experiment);
  if (!plan.ok()) {
    std::fprintf(stderr, "%s: %s\n", plan.storeProblem ? "store error" : "error",
                 plan.error.c_str());
    return plan.storeProblem ? kExitStoreError : kExitBadUsage;
  }
  out.experiment = plan.experiment;
  out.config = plan.config;
  out.runId = plan.runId;
  if (!plan.fromStart) out.resume = plan.point;
  std::fprintf(stderr, "resuming run %lld %s\n", static_cast<long long>(plan.runId),
               store::describeResume(plan).c_str());
  if (!plan.note.empty()) std::fprintf(stderr, "note: %s\n", plan.note.c_str());
  return std::nullopt;
}

// Asks LibTorch for the config's device: a missing CUDA device is a usage error (exit 2) that
// names the devices this machine has.
std::optional<int> checkDevice(const ValidatedConfig& config) {
  try {
    resolveDevice(config.values.at("device").get<std::string>());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return kExitBadUsage;
  }
  return std::nullopt;
}

// Every --tag, and --name, is checked before anything is created.
std::optional<int> checkTags(const RunArgs& args) {
  for (const auto& t : args.tags)
    if (auto problem = store::tagProblem(t)) {
      std::fprintf(stderr, "error: --tag: %s\n", problem->c_str());
      return kExitBadUsage;
    }
  if (auto problem = store::textProblem(args.name, "name")) {
    std::fprintf(stderr, "error: --name: %s\n", problem->c_str());
    return kExitBadUsage;
  }
  return std::nullopt;
}

// A fresh run's config and device, or a stored run to continue, and the store opened.
std::optional<int> prepareRun(const ExperimentRegistry& registry, const RunArgs& args,
                              const std::string& dbPath, Prepared& prepared,
                              std::optional<store::RunStore>& store) {
  try {
    if (args.resume == 0) {
      if (auto code = prepareFresh(registry, args, prepared)) return *code;
      // A device this machine lacks is a usage error before anything, the store included,
      // is created.
      if (auto code = checkDevice(prepared.config)) return *code;
    }
    // A resume continues a stored run: it never creates a store to look for it in.
    if (args.resume != 0) store::RunStore::requireExisting(dbPath);
    store.emplace(dbPath);
    if (args.resume != 0) {
      if (auto code = prepareResumeArgs(registry, *store, args, prepared)) return *code;
    }
  } catch (const store::StoreError& e) {
    std::fprintf(stderr, "store error: %s\n", e.what());
    return kExitStoreError;
  }
  // A resumed run's device (stored, or --device) is asked of LibTorch now, before it starts.
  if (args.resume != 0) {
    if (auto code = checkDevice(prepared.config)) return *code;
  }
  return std::nullopt;
}

// --name, or what the settings came from and what was changed from them, as the window names
// a run launched from its form.
std::string runName(const RunArgs& args, const Prepared& prepared) {
  if (!args.name.empty()) return args.name;
  const ValidatedConfig start = buildConfig(*prepared.experiment, args.preset, {});
  return settingsName(args.preset, start.values, prepared.config.values,
                      prepared.experiment->allParams());
}

// A fresh run's row, or the new name and tags of a continued one (its --name had been dropped
// without a word while its --tag was taken).
std::optional<int> recordRun(store::RunStore& store, const RunArgs& args, Prepared& prepared) {
  try {
    if (prepared.runId == 0) {
      prepared.runId = store.createRun(
          {prepared.experiment->name(), runName(args, prepared), prepared.config.values, args.tags,
           currentBuildInfo().toJson(),
           store::identityHash(prepared.experiment->name(), prepared.experiment->allParams(),
                               prepared.config.values)});
      return std::nullopt;
    }
    if (!args.name.empty()) store.rename(prepared.runId, args.name);
    if (!args.tags.empty()) store.addTags(prepared.runId, args.tags);
  } catch (const store::StoreError& e) {
    std::fprintf(stderr, "store error: %s\n", e.what());
    return kExitStoreError;
  }
  return std::nullopt;
}

RunnerOptions runnerOptionsFor(const RunArgs& args, const Prepared& prepared,
                               const store::RunStore& store) {
  RunnerOptions options;
  // The same budget as a study of one run: a tiny model gets one thread, a large one the cores.
  options.threads =
      args.threads > 0
          ? args.threads
          : study::planThreadBudget(availableCores(), 1,
                                    prepared.experiment->usefulThreads(prepared.config.values))
                .threadsPerRun;
  options.checkpointDir = store.artifactFolder(prepared.runId);
  options.resume = prepared.resume;
  return options;
}

// What the run's events said by the time it ended.
struct Outcome {
  std::map<std::string, double> finalMetrics;
  std::map<std::string, nlohmann::json> verdicts;  // snapshot name -> its latest verdict meta
  StatusEvent finalStatus;
  std::string device;
  bool cancelRequested = false;
  // The step in progress never ended after the signal: the run is recorded as cancelled here
  // and the process exits without waiting for the Runner's thread.
  bool abandoned = false;
  int64_t lastStep = 0;  // the last step whose progress was reported
};

// Says on stderr when the store stops taking the run's writes and when it takes them again.
void sayWriteTrouble(store::WriteTroubleWatch& writes, const store::StoreSink& storeSink,
                     int64_t runId, ConsoleProgress& progress) {
  store::WriteTrouble trouble;
  if (auto error = storeSink.error()) trouble = {{runId}, *error};
  const std::vector<int64_t> lost =
      storeSink.failure() ? std::vector<int64_t>{runId} : std::vector<int64_t>{};
  if (auto said = writes.update(trouble, lost)) {
    progress.finish();
    std::fprintf(stderr, "store: %s\n", said->c_str());
  }
}

// Writes the rest of the run's events, saying why it waits where the store refuses them (a run
// that has ended waits a while for another process's lock to pass). A signal, before or during
// the wait, ends it: the run's loss is then recorded as on any failed write.
void closeStoreSink(store::StoreSink& storeSink, store::WriteTroubleWatch& writes, int64_t runId,
                    ConsoleProgress& progress, const InterruptSignals& signals) {
  storeSink.beginClose();
  bool stopped = false;
  while (!storeSink.waitClosed(std::chrono::milliseconds(100))) {
    sayWriteTrouble(writes, storeSink, runId, progress);
    if (signals.received() && !stopped) {
      storeSink.stopWaiting();
      stopped = true;
    }
  }
  sayWriteTrouble(writes, storeSink, runId, progress);
}

// Shows the run's progress until its terminal status; a signal cancels it after the current
// step.
Outcome followRun(Runner& runner, EventQueue& events, ConsoleProgress& progress,
                  const InterruptSignals& signals, const store::StoreSink& storeSink,
                  store::WriteTroubleWatch& writes, int64_t runId) {
  Outcome out;
  bool done = false;
  std::chrono::steady_clock::time_point cancelledAt;
  while (!done) {
    for (auto& event : events.waitAndTakeAll(std::chrono::milliseconds(100))) {
      progress.handle(event);
      if (auto* p = std::get_if<ProgressEvent>(&event))
        out.lastStep = std::max(out.lastStep, p->step);
      if (auto* metric = std::get_if<MetricEvent>(&event)) {
        out.finalMetrics[metric->key] = metric->value;
        // An evaluation's metrics come before its progress event: a stop inside the
        // evaluation at step 5 read as "step 1 had not ended", and the run as 0 steps.
        out.lastStep = std::max(out.lastStep, metric->step);
      }
      if (auto* snapshot = std::get_if<SnapshotEvent>(&event))
        if (snapshot->snapshot.meta.contains("verdict"))
          out.verdicts[snapshot->snapshot.name] = snapshot->snapshot.meta;
      if (auto* status = std::get_if<StatusEvent>(&event)) {
        if (!status->device.empty()) out.device = status->device;
        if (isTerminal(status->status)) {
          out.finalStatus = *status;
          done = true;
        }
      }
    }
    sayWriteTrouble(writes, storeSink, runId, progress);
    if (signals.received() && !out.cancelRequested) {
      progress.finish();
      std::fprintf(stderr, "%s: cancelling after the current step...\n",
                   InterruptSignals::name(signals.received()).c_str());
      runner.cancel();
      out.cancelRequested = true;
      cancelledAt = std::chrono::steady_clock::now();
    }
    if (!done && out.cancelRequested &&
        (signals.count() > 1 ||
         std::chrono::steady_clock::now() - cancelledAt >= InterruptSignals::stopGrace())) {
      const auto waited = std::chrono::duration_cast<std::chrono::milliseconds>(
          std::chrono::steady_clock::now() - cancelledAt);
      out.abandoned = true;
      out.finalStatus.status = RunStatus::Cancelled;
      out.finalStatus.step = out.lastStep;
      out.finalStatus.message = InterruptSignals::stuckStepReason(
          signals.received(),
          "the step or evaluation under way after step " + std::to_string(out.lastStep), waited,
          signals.count() > 1);
      done = true;
    }
  }
  return out;
}

// The run's end on stderr: its status, verdicts, final metrics and the paper's figures.
// `notCompared`: why a finished run has no verdict against the paper (whyNotComparedWithPaper);
// `resume`: where a resumed run continued, so its time is said as this session's and in all.
void printOutcome(const Outcome& o, const std::string& experiment, int64_t runId, double seconds,
                  const std::vector<ReferenceVerdict>& paper, const std::string& notCompared,
                  const std::optional<ResumePoint>& resume) {
  if (o.finalStatus.status == RunStatus::Failed)
    std::fprintf(stderr, "run failed: %s\n", o.finalStatus.message.c_str());
  else if (o.finalStatus.status == RunStatus::Cancelled)
    std::fprintf(stderr, "run cancelled: %s\n", o.finalStatus.message.c_str());
  // A resumed run's "in 0:11" was this session's alone, read as the whole run's.
  const std::string resumed = resume ? " (resumed at step " + std::to_string(resume->step) + "; " +
                                           formatDuration(resume->wallSecondsBefore + seconds) +
                                           " in all)"
                                     : "";
  std::fprintf(stderr, "run %lld: %s %s in %s on %s%s\n", static_cast<long long>(runId),
               experiment.c_str(), toString(o.finalStatus.status).c_str(),
               formatDuration(seconds).c_str(), o.device.c_str(), resumed.c_str());
  // Verdicts first (e.g. LEAKS), so no one reads a loss without them.
  for (const auto& [name, meta] : o.verdicts)
    std::fprintf(stderr, "  %s: %s -- %s\n", name.c_str(), meta.value("verdict", "").c_str(),
                 meta.value("detail", "").c_str());
  // In the order a reader counts them: val/ppl@48 before val/ppl@192.
  std::vector<std::pair<std::string, double>> metrics(o.finalMetrics.begin(), o.finalMetrics.end());
  std::stable_sort(metrics.begin(), metrics.end(),
                   [](const auto& a, const auto& b) { return NaturalLess{}(a.first, b.first); });
  // The results, then the process's figures apart: among the results, "system/cpu_percent
  // 65.7" read as one of them.
  std::string machine;
  for (const auto& [key, value] : metrics) {
    if (isSystemMetric(key)) {
      char figure[64];
      std::snprintf(figure, sizeof figure, "%s %.4g", key.c_str() + std::strlen(kSystemPrefix),
                    value);
      machine += (machine.empty() ? "" : ", ") + std::string(figure);
      continue;
    }
    std::string mark;
    for (const auto& [name, meta] : o.verdicts)
      if (key.rfind("val/", 0) == 0 && !meta.value("ok", true))
        mark = "   " + meta.value("verdict", "");
    std::fprintf(stderr, "  %-20s %.6g%s\n", key.c_str(), value, mark.c_str());
  }
  if (!machine.empty())
    std::fprintf(stderr, "  the process, at the end (not results): %s\n", machine.c_str());
  // Against the published figures of every preset this config is (e.g. paper-fourier on gmm2),
  // as the Runner judged it.
  for (const auto& v : paper)
    std::fprintf(stderr, "  paper (%s): %s\n", v.preset.c_str(), v.text.c_str());
  // A shortened paper run says so here too: it was said only by `runs show`.
  if (!notCompared.empty()) std::fprintf(stderr, "  %s\n", notCompared.c_str());
}

// --json's summary, the last line of stdout.
nlohmann::json jsonSummary(const Outcome& o, const Prepared& prepared, double seconds,
                           const std::string& dbPath, const std::vector<ReferenceVerdict>& paper,
                           const std::string& notCompared) {
  const auto& config = prepared.config;
  nlohmann::json summary = {
      {"experiment", prepared.experiment->name()},
      {"status", toString(o.finalStatus.status)},
      {"config", config.values},
      {"device", o.device},
      {"seed", config.values.at("seed")},
      {"metrics", o.finalMetrics},
      {"seconds", seconds},
      {"run_id", prepared.runId},
      {"db", dbPath},
  };
  // As the stderr line says it: "seconds" is this session's, a resumed run's whole is apart.
  if (prepared.resume) {
    summary["resumed_at_step"] = prepared.resume->step;
    summary["seconds_in_all"] = prepared.resume->wallSecondsBefore + seconds;
  }
  if (!o.verdicts.empty()) {
    summary["verdicts"] = nlohmann::json::object();
    for (const auto& [name, meta] : o.verdicts) summary["verdicts"][name] = meta;
  }
  if (!paper.empty()) {
    summary["paper"] = nlohmann::json::array();
    for (const auto& v : paper) {
      nlohmann::json row = {{"preset", v.preset},
                            {"metric", v.metric},
                            {"value", v.value},
                            {"paper_mean", v.paperMean},
                            {"text", v.text}};
      row["paper_std"] = v.paperStd ? nlohmann::json(*v.paperStd) : nlohmann::json();
      row["within_spread"] = v.withinSpread ? nlohmann::json(*v.withinSpread) : nlohmann::json();
      summary["paper"].push_back(std::move(row));
    }
  }
  if (!notCompared.empty()) summary["not_compared"] = notCompared;
  if (!o.finalStatus.message.empty() && o.finalStatus.status != RunStatus::Finished)
    summary["message"] = o.finalStatus.message;
  return summary;
}

}  // namespace

int runCommand(const ExperimentRegistry& registry, const RunArgs& args) {
  const std::string dbPath = args.db.empty() ? store::RunStore::defaultPath() : args.db;
  if (auto code = checkTags(args)) return *code;
  // A resume reads a store that must exist (said when it is opened); a new run may make one.
  if (const std::string missing =
          args.db.empty() || args.resume ? "" : store::missingStoreFolder(args.db);
      !missing.empty()) {
    std::fprintf(stderr, "error: --db %s: %s\n", args.db.c_str(), missing.c_str());
    return kExitBadUsage;
  }
  // Ctrl-C, kill (SIGTERM: also `timeout` and Slurm's preemption) and a closed terminal
  // (SIGHUP) all cancel cleanly: a checkpoint where the run stopped, resumable. Installed first:
  // preparing a run (the store's check, a resume's rewind) can take seconds on a loaded machine,
  // and a signal then must not kill the process with the run half set up.
  InterruptSignals signals;
  Prepared prepared;
  std::optional<store::RunStore> store;
  if (auto code = prepareRun(registry, args, dbPath, prepared, store)) return *code;
  if (signals.received()) {  // before any run was created or continued: nothing to save
    std::fprintf(stderr, "%s: stopped before training started\n",
                 InterruptSignals::name(signals.received()).c_str());
    return InterruptSignals::exitCode(signals.received());
  }
  if (auto code = recordRun(*store, args, prepared)) return *code;

  EventQueue events;
  store::StoreSink storeSink(store->path(), prepared.runId);
  FanOutSink sinks({&storeSink, &events});
  Runner runner(prepared.experiment, prepared.config.values, sinks,
                runnerOptionsFor(args, prepared, *store));
  ConsoleProgress progress(stderr, isatty(fileno(stderr)) != 0);
  std::fprintf(stderr, "run %lld in %s\n", static_cast<long long>(prepared.runId),
               store->path().c_str());
  // As `sweep run` says of its budget: the threads asked for win, and are said to outrun the
  // cores (they slow every thread down, and other programs with them).
  if (args.threads > availableCores())
    std::fprintf(stderr,
                 "threads: %d on %d cores; WARNING: more threads than cores, as requested\n",
                 args.threads, availableCores());

  const auto started = std::chrono::steady_clock::now();
  runner.start();
  store::WriteTroubleWatch writes;
  const Outcome outcome =
      followRun(runner, events, progress, signals, storeSink, writes, prepared.runId);
  if (outcome.abandoned) {
    // The Runner's thread is stuck inside a step: record the run's end through the same
    // writer, then leave without joining it (its destructor would wait forever).
    storeSink.onEvent(outcome.finalStatus);
    closeStoreSink(storeSink, writes, prepared.runId, progress, signals);
    progress.finish();
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    printOutcome(outcome, prepared.experiment->name(), prepared.runId, seconds, {}, "",
                 prepared.resume);
    if (args.json)
      std::printf("%s\n",
                  jsonText(jsonSummary(outcome, prepared, seconds, store->path(), {}, "")).c_str());
    InterruptSignals::exitLeavingStuckThreads(
        storeSink.error() ? kExitStoreError : InterruptSignals::exitCode(signals.received()));
  }
  runner.join();
  closeStoreSink(storeSink, writes, prepared.runId, progress, signals);
  progress.finish();
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();

  // What the store holds, not what training ended with, when its last writes failed.
  const auto failure = storeSink.failure();
  Outcome shown = outcome;
  if (failure) {
    shown.finalStatus.status = failure->recorded.value_or(RunStatus::Interrupted);
    if (failure->recorded) shown.finalStatus.message = failure->recordedMessage;
  }
  const auto& paper = runner.paperVerdicts();
  const std::string notCompared =
      shown.finalStatus.status == RunStatus::Finished && paper.empty()
          ? whyNotComparedWithPaper(*prepared.experiment, prepared.config.values)
          : "";
  // The Runner ends a run interrupted only where its checkpoint could not be continued: the
  // run is left as it was.
  if (outcome.finalStatus.status == RunStatus::Interrupted) {
    if (prepared.before && !failure) {
      try {
        store->restoreEnd(*prepared.before);
        shown.finalStatus.status = prepared.before->status;
      } catch (const std::exception& e) {
        std::fprintf(stderr, "store error: run %lld's status before the resume not put back: %s\n",
                     static_cast<long long>(prepared.runId), e.what());
      }
    }
    std::fprintf(stderr, "error: run %lld %s; it stays resumable\n",
                 static_cast<long long>(prepared.runId), outcome.finalStatus.message.c_str());
  }
  // A refused resume trained nothing: the error above is all there is to say of it.
  if (outcome.finalStatus.status != RunStatus::Interrupted)
    printOutcome(shown, prepared.experiment->name(), prepared.runId, seconds, paper, notCompared,
                 prepared.resume);
  if (args.json) {
    std::printf(
        "%s\n",
        jsonText(jsonSummary(shown, prepared, seconds, store->path(), paper, notCompared)).c_str());
    std::fflush(stdout);
  }
  if (failure) {
    // Its last events never reached the store: the run is not what the lines above say (a
    // finished run is recorded interrupted), and resuming it continues from its last
    // stored checkpoint.
    std::fprintf(stderr, "store error: run %lld: not written to the store: %s (%s)\n",
                 static_cast<long long>(prepared.runId),
                 failure->unwritten.empty() ? "its last log lines" : failure->unwritten.c_str(),
                 failure->error.c_str());
    // As the store has it: where the write of its stand-in status failed too, the row still
    // says running, which the next process to open the store for writing turns interrupted.
    std::fprintf(
        stderr, "run %lld %s; once the store can be written, `%s` finishes it\n",
        static_cast<long long>(prepared.runId), store::recordedStatusText(*failure).c_str(),
        nextCommand("run --resume " + std::to_string(prepared.runId), store->path()).c_str());
    return kExitStoreError;
  }
  return exitCodeFor(outcome.finalStatus, outcome.cancelRequested ? signals.received() : 0);
}

}  // namespace fl::cli
