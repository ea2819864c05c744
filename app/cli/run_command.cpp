#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <map>

#include <nlohmann/json.hpp>

#include "app/cli/commands.h"
#include "app/cli/console_progress.h"
#include "core/engine/build_info.h"
#include "core/engine/device.h"
#include "core/engine/event_queue.h"
#include "core/engine/interrupt_signals.h"
#include "core/engine/runner.h"
#include "core/store/resume_plan.h"
#include "core/store/run_store.h"
#include "core/store/store_sink.h"
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
  auto plan = store::prepareResume(registry, store, args.resume, args.device, args.experiment);
  if (!plan.ok()) {
    std::fprintf(stderr, "%s: %s\n", plan.storeProblem ? "store error" : "error",
                 plan.error.c_str());
    return plan.storeProblem ? kExitStoreError : kExitBadUsage;
  }
  out.experiment = plan.experiment;
  out.config = plan.config;
  out.runId = plan.runId;
  if (plan.fromStart) {
    std::fprintf(stderr, "resuming run %lld from step 0\n", static_cast<long long>(plan.runId));
  } else {
    out.resume = plan.point;
    std::fprintf(stderr, "resuming run %lld from its checkpoint at step %lld\n",
                 static_cast<long long>(plan.runId), static_cast<long long>(plan.point.step));
  }
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

}  // namespace

int runCommand(const ExperimentRegistry& registry, const RunArgs& args) {
  const std::string dbPath = args.db.empty() ? store::RunStore::defaultPath() : args.db;
  for (const auto& t : args.tags)
    if (auto problem = store::tagProblem(t)) {
      std::fprintf(stderr, "error: --tag: %s\n", problem->c_str());
      return kExitBadUsage;
    }
  // Ctrl-C, kill (SIGTERM: also `timeout` and Slurm's preemption) and a closed terminal
  // (SIGHUP) all cancel cleanly: a checkpoint where the run stopped, resumable. Installed first:
  // preparing a run (the store's check, a resume's rewind) can take seconds on a loaded machine,
  // and a signal then must not kill the process with the run half set up.
  InterruptSignals signals;
  Prepared prepared;
  std::optional<store::RunStore> store;
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
  const auto& experiment = prepared.experiment;
  const auto& config = prepared.config;
  // A resumed run's device (stored, or --device) is asked of LibTorch now, before it starts.
  if (args.resume != 0) {
    if (auto code = checkDevice(config)) return *code;
  }
  if (signals.received()) {  // before any run was created or continued: nothing to save
    std::fprintf(stderr, "%s: stopped before training started\n",
                 InterruptSignals::name(signals.received()).c_str());
    return InterruptSignals::exitCode(signals.received());
  }
  try {
    if (prepared.runId == 0)
      prepared.runId = store->createRun(
          {experiment->name(), args.name, config.values, args.tags, currentBuildInfo().toJson()});
    else if (!args.tags.empty())
      store->addTags(prepared.runId, args.tags);
  } catch (const store::StoreError& e) {
    std::fprintf(stderr, "store error: %s\n", e.what());
    return kExitStoreError;
  }

  EventQueue events;
  store::StoreSink storeSink(store->path(), prepared.runId);
  FanOutSink sinks({&storeSink, &events});
  RunnerOptions options;
  // The same budget as a study of one run: a tiny model gets one thread, a large one the cores.
  options.threads = args.threads > 0
                        ? args.threads
                        : study::planThreadBudget(availableCores(), 1,
                                                  experiment->usefulThreads(config.values))
                              .threadsPerRun;
  options.checkpointDir = store->artifactFolder(prepared.runId);
  options.resume = prepared.resume;
  Runner runner(experiment, config.values, sinks, options);
  ConsoleProgress progress(stderr, isatty(fileno(stderr)) != 0);
  std::fprintf(stderr, "run %lld in %s\n", static_cast<long long>(prepared.runId),
               store->path().c_str());

  const auto started = std::chrono::steady_clock::now();
  runner.start();

  std::map<std::string, double> finalMetrics;
  std::map<std::string, nlohmann::json> verdicts;  // snapshot name -> its latest verdict meta
  StatusEvent finalStatus;
  std::string device;
  bool done = false;
  bool cancelRequested = false;
  while (!done) {
    for (auto& event : events.waitAndTakeAll(std::chrono::milliseconds(100))) {
      progress.handle(event);
      if (auto* metric = std::get_if<MetricEvent>(&event))
        finalMetrics[metric->key] = metric->value;
      if (auto* snapshot = std::get_if<SnapshotEvent>(&event))
        if (snapshot->snapshot.meta.contains("verdict"))
          verdicts[snapshot->snapshot.name] = snapshot->snapshot.meta;
      if (auto* status = std::get_if<StatusEvent>(&event)) {
        if (!status->device.empty()) device = status->device;
        if (isTerminal(status->status)) {
          finalStatus = *status;
          done = true;
        }
      }
    }
    if (signals.received() && !cancelRequested) {
      progress.finish();
      std::fprintf(stderr, "%s: cancelling after the current step...\n",
                   InterruptSignals::name(signals.received()).c_str());
      runner.cancel();
      cancelRequested = true;
    }
  }
  runner.join();
  storeSink.close();
  progress.finish();
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();

  if (finalStatus.status == RunStatus::Failed)
    std::fprintf(stderr, "run failed: %s\n", finalStatus.message.c_str());
  else if (finalStatus.status == RunStatus::Cancelled)
    std::fprintf(stderr, "run cancelled: %s\n", finalStatus.message.c_str());
  std::fprintf(stderr, "run %lld: %s %s in %s on %s\n", static_cast<long long>(prepared.runId),
               experiment->name().c_str(), toString(finalStatus.status).c_str(),
               formatDuration(seconds).c_str(), device.c_str());
  // Verdicts first (e.g. LEAKS), so no one reads a loss without them.
  for (const auto& [name, meta] : verdicts)
    std::fprintf(stderr, "  %s: %s -- %s\n", name.c_str(), meta.value("verdict", "").c_str(),
                 meta.value("detail", "").c_str());
  for (const auto& [key, value] : finalMetrics) {
    std::string mark;
    for (const auto& [name, meta] : verdicts)
      if (key.rfind("val/", 0) == 0 && !meta.value("ok", true))
        mark = "   " + meta.value("verdict", "");
    std::fprintf(stderr, "  %-20s %.6g%s\n", key.c_str(), value, mark.c_str());
  }
  // Against the published figures of every preset this config is (e.g. paper-fourier on gmm2),
  // as the Runner judged it.
  const auto& paper = runner.paperVerdicts();
  for (const auto& v : paper)
    std::fprintf(stderr, "  paper (%s): %s\n", v.preset.c_str(), v.text.c_str());

  if (args.json) {
    nlohmann::json summary = {
        {"experiment", experiment->name()},
        {"status", toString(finalStatus.status)},
        {"config", config.values},
        {"device", device},
        {"seed", config.values.at("seed")},
        {"metrics", finalMetrics},
        {"seconds", seconds},
        {"run_id", prepared.runId},
        {"db", store->path()},
    };
    if (!verdicts.empty()) {
      summary["verdicts"] = nlohmann::json::object();
      for (const auto& [name, meta] : verdicts) summary["verdicts"][name] = meta;
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
    if (!finalStatus.message.empty() && finalStatus.status != RunStatus::Finished)
      summary["message"] = finalStatus.message;
    std::printf("%s\n", summary.dump().c_str());
    std::fflush(stdout);
  }
  if (auto error = storeSink.error()) {
    std::fprintf(stderr, "store error: %s (the run's last events may not be recorded)\n",
                 error->c_str());
    return kExitStoreError;
  }
  return exitCodeFor(finalStatus, cancelRequested ? signals.received() : 0);
}

}  // namespace fl::cli
