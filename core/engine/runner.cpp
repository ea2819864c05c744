#include "core/engine/runner.h"

#include <ATen/Parallel.h>
#include <c10/util/Exception.h>

#include <new>

#include "core/engine/allocator_tuning.h"
#include "core/engine/atomic_file.h"
#include "core/engine/checkpoint_load.h"
#include "core/engine/config.h"
#include "core/engine/device.h"
#include "core/engine/resume_refused.h"
#include "core/engine/seeding.h"

namespace fl {

namespace {

std::string firstLine(const std::string& text) { return text.substr(0, text.find('\n')); }

}  // namespace

Runner::Runner(std::shared_ptr<const Experiment> experiment, nlohmann::json config, EventSink& sink,
               RunnerOptions options)
    : m_experiment(std::move(experiment)),
      m_config(std::move(config)),
      m_sink(sink),
      m_options(options),
      m_reporter(m_experiment, sink) {}

Runner::~Runner() {
  cancel();
  join();
}

void Runner::start() {
  keepLargeAllocationsInHeap();  // process-wide, once: per-step T x T temporaries reuse the heap
  m_reporter.startClock();
  m_thread = std::thread([this] { run(); });
}

void Runner::cancel() {
  m_cancel = true;
  m_wake.notify_all();
}

void Runner::setPaused(bool paused) {
  m_paused = paused;
  m_wake.notify_all();
}

int64_t Runner::requestProbe(std::map<std::string, double> inputs) {
  std::lock_guard<std::mutex> lock(m_requestMutex);
  const int64_t id = m_nextRequestId++;
  m_requests.push_back({id, std::move(inputs)});
  m_wake.notify_all();
  return id;
}

void Runner::join() {
  if (m_thread.joinable()) m_thread.join();
}

void Runner::run() {
  RunStatus status = RunStatus::Failed;
  std::string message;
  bool fileWriteFailed = false;
  try {
    if (m_options.threads > 0) at::set_num_threads(m_options.threads);
    const ValidatedConfig config = validateConfig(m_experiment->allParams(), m_config);
    if (!config.ok()) throw std::runtime_error("invalid config: " + config.summary());

    const ResolvedDevice device = resolveDevice(config.values.at("device").get<std::string>());
    m_reporter.setDevice(device.name);
    m_deviceDescription = device.description;
    m_reporter.emitStatus(RunStatus::Running, "running on " + m_deviceDescription, 0);

    TrialContext context;
    context.config = config.values;
    context.device = device.device;
    context.seed = config.values.at("seed").get<uint64_t>();
    std::unique_ptr<Trial> trial;
    {
      SeededScope seeded(context.seed);
      trial = m_experiment->createTrial(context);
    }
    if (m_options.resume) {
      loadForResume([&] { trial->loadCheckpoint(m_options.resume->checkpointPath); });
      m_reporter.resumed(*m_options.resume);
    }
    status = m_options.serveProbesOnly ? serveProbes(*trial, message)
                                       : trainLoop(*trial, config.values, message);
    if (status == RunStatus::Finished) message = m_reporter.finishedSummary(config.values);
  } catch (const ResumeRefused& e) {
    // Nothing of the run changed: it stays resumable, and says why it was not resumed.
    message = kNotResumed + std::string(e.what());
    status = RunStatus::Interrupted;
  } catch (const FileWriteError& e) {
    // A checkpoint the disk could not take (full, read-only): said apart, so the CLI can answer
    // with its store-error exit code rather than "the run failed".
    message = e.what();
    status = RunStatus::Failed;
    fileWriteFailed = true;
  } catch (const c10::OutOfMemoryError& e) {
    // Outside a training step (building the model, an evaluation): said as such all the same.
    message = "out of memory on " + m_reporter.deviceName() + " (" +
              firstLine(e.what_without_backtrace()) + ")";
    status = RunStatus::Failed;
  } catch (const std::bad_alloc& e) {
    message = "out of memory on " + m_reporter.deviceName() +
              " (a C++ allocation failed: " + e.what() + ")";
    status = RunStatus::Failed;
  } catch (const c10::Error& e) {
    // LibTorch's messages carry a C++ backtrace after the first line; keep the first line.
    message = e.what_without_backtrace();
    status = RunStatus::Failed;
  } catch (const std::exception& e) {
    message = e.what();
    status = RunStatus::Failed;
  }
  m_finalStatus = status;
  m_reporter.emitStatus(status, message, m_reporter.lastStep(), fileWriteFailed);
  m_done = true;
}

RunStatus Runner::trainLoop(Trial& trial, const nlohmann::json& config, std::string& message) {
  const TrialPlan plan = trial.plan();
  const int64_t firstStep = m_options.resume ? m_options.resume->step : 0;
  m_reporter.begin(plan, config, m_options.checkpointDir, trial.supportsCheckpoints(), firstStep,
                   m_options.resume ? std::optional<std::string>(m_options.resume->checkpointPath)
                                    : std::nullopt);
  std::string announcedHow;
  for (int64_t step = firstStep; step < plan.totalSteps; ++step) {
    m_reporter.setLastStep(step);
    if (!waitWhilePaused(trial, step)) {
      message = m_reporter.cancel(trial, step);
      return RunStatus::Cancelled;
    }
    answerRequests(trial, step);
    std::optional<StepLoss> loss;
    try {
      loss = trial.trainStep(step);
    } catch (const c10::OutOfMemoryError& e) {
      // A step the device had no memory for leaves the parameters as the previous step left
      // them (the optimiser never ran): keep them, so the run resumes here, smaller or elsewhere.
      message = outOfMemory(trial, step, firstLine(e.what_without_backtrace()));
      return RunStatus::Failed;
    } catch (const std::bad_alloc& e) {
      // The same from a C++ allocation (a buffer of our own, a vector) rather than a tensor's.
      message = outOfMemory(trial, step, std::string("a C++ allocation failed: ") + e.what());
      return RunStatus::Failed;
    }
    // Said once a step has shown it (a CUDA graph is recorded at the first step), and again if
    // it changes (a step recorded again after an evaluation whose capture failed).
    if (std::string how = trial.stepDescription(); how != announcedHow) {
      announcedHow = std::move(how);
      if (!announcedHow.empty())
        m_reporter.emitStatus(RunStatus::Running,
                              "running on " + m_deviceDescription + ", " + announcedHow, step + 1);
    }
    if (!m_reporter.afterStep(trial, step + 1, std::move(*loss), message)) return RunStatus::Failed;
  }
  m_reporter.finishTraining(trial);
  answerRequests(trial, plan.totalSteps);
  return RunStatus::Finished;
}

std::string Runner::outOfMemory(Trial& trial, int64_t step, const std::string& what) {
  return "out of memory on " + m_reporter.deviceName() + " at step " + std::to_string(step + 1) +
         " (" + what + ")" + m_reporter.keepWork(trial, step) +
         "; resume it on a device with more memory (--resume with --device), or train it "
         "again with a smaller batch_size (a resume keeps the run's config)";
}

RunStatus Runner::serveProbes(Trial& trial, std::string& message) {
  const int64_t step = m_options.resume ? m_options.resume->step : 0;
  while (!m_cancel) {
    answerRequests(trial, step);
    std::unique_lock<std::mutex> lock(m_requestMutex);
    m_wake.wait_for(lock, std::chrono::milliseconds(200),
                    [this] { return m_cancel || !m_requests.empty(); });
  }
  message = "probe server stopped";
  return RunStatus::Cancelled;
}

void Runner::answerRequests(Trial& trial, int64_t stepsDone) {
  std::deque<ProbeRequest> pending;
  {
    std::lock_guard<std::mutex> lock(m_requestMutex);
    pending.swap(m_requests);
  }
  for (auto& request : pending) {
    for (auto& snapshot : trial.probe(request.inputs))
      m_sink.onEvent(
          SnapshotEvent{stepsDone, m_reporter.elapsed(), std::move(snapshot), request.id});
  }
}

bool Runner::waitWhilePaused(Trial& trial, int64_t stepsDone) {
  while (m_paused && !m_cancel) {
    answerRequests(trial, stepsDone);
    std::unique_lock<std::mutex> lock(m_requestMutex);
    m_wake.wait_for(lock, std::chrono::milliseconds(100),
                    [this] { return !m_paused || m_cancel || !m_requests.empty(); });
  }
  return !m_cancel;
}

}  // namespace fl
