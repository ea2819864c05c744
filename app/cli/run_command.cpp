#include <unistd.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <map>

#include <nlohmann/json.hpp>

#include "app/cli/commands.h"
#include "app/cli/console_progress.h"
#include "core/engine/device.h"
#include "core/engine/event_queue.h"
#include "core/engine/runner.h"

namespace fl::cli {

namespace {

std::atomic<bool> g_interrupted{false};

extern "C" void onInterrupt(int) { g_interrupted = true; }

int exitCodeFor(RunStatus status) {
  switch (status) {
    case RunStatus::Finished: return kExitOk;
    case RunStatus::Cancelled: return kExitCancelled;
    default: return kExitRunFailed;
  }
}

}  // namespace

int runCommand(const ExperimentRegistry& registry, const RunArgs& args) {
  const auto experiment = registry.find(args.experiment);
  if (!experiment) {
    std::fprintf(stderr, "error: unknown experiment '%s' (known: %s)\n", args.experiment.c_str(),
                 registry.names().c_str());
    return kExitBadUsage;
  }
  auto assignments = args.assignments;
  if (!args.device.empty()) assignments.push_back("device=" + args.device);
  const ValidatedConfig config = buildConfig(*experiment, args.preset, assignments);
  if (!config.ok()) {
    for (const auto& issue : config.issues)
      std::fprintf(stderr, "error: %s\n", issue.message.c_str());
    return kExitBadUsage;
  }
  // Ask LibTorch now, so that a missing CUDA is a usage error before anything starts.
  try {
    resolveDevice(config.values.at("device").get<std::string>());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return kExitBadUsage;
  }

  EventQueue events;
  RunnerOptions options;
  options.threads = args.threads;
  Runner runner(experiment, config.values, events, options);
  ConsoleProgress progress(stderr, isatty(fileno(stderr)) != 0);

  g_interrupted = false;
  auto previousHandler = std::signal(SIGINT, onInterrupt);
  const auto started = std::chrono::steady_clock::now();
  runner.start();

  std::map<std::string, double> finalMetrics;
  StatusEvent finalStatus;
  std::string device;
  bool done = false;
  bool cancelRequested = false;
  while (!done) {
    for (auto& event : events.waitAndTakeAll(std::chrono::milliseconds(100))) {
      progress.handle(event);
      if (auto* metric = std::get_if<MetricEvent>(&event)) finalMetrics[metric->key] = metric->value;
      if (auto* status = std::get_if<StatusEvent>(&event)) {
        if (!status->device.empty()) device = status->device;
        if (isTerminal(status->status)) {
          finalStatus = *status;
          done = true;
        }
      }
    }
    if (g_interrupted && !cancelRequested) {
      progress.finish();
      std::fprintf(stderr, "interrupted: cancelling after the current step...\n");
      runner.cancel();
      cancelRequested = true;
    }
  }
  runner.join();
  std::signal(SIGINT, previousHandler);
  progress.finish();
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();

  if (finalStatus.status == RunStatus::Failed)
    std::fprintf(stderr, "run failed: %s\n", finalStatus.message.c_str());
  else if (finalStatus.status == RunStatus::Cancelled)
    std::fprintf(stderr, "run cancelled: %s\n", finalStatus.message.c_str());
  std::fprintf(stderr, "%s %s in %s on %s\n", experiment->name().c_str(),
               toString(finalStatus.status).c_str(), formatDuration(seconds).c_str(),
               device.c_str());
  for (const auto& [key, value] : finalMetrics)
    std::fprintf(stderr, "  %-20s %.6g\n", key.c_str(), value);

  if (args.json) {
    nlohmann::json summary = {
        {"experiment", experiment->name()},
        {"status", toString(finalStatus.status)},
        {"config", config.values},
        {"device", device},
        {"seed", config.values.at("seed")},
        {"metrics", finalMetrics},
        {"seconds", seconds},
    };
    if (!finalStatus.message.empty() && finalStatus.status != RunStatus::Finished)
      summary["message"] = finalStatus.message;
    std::printf("%s\n", summary.dump().c_str());
    std::fflush(stdout);
  }
  return exitCodeFor(finalStatus.status);
}

}  // namespace fl::cli
