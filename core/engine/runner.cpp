#include "core/engine/runner.h"

#include <cmath>
#include <filesystem>
#include <sstream>

#include <ATen/Parallel.h>
#include <c10/util/Exception.h>

#include "core/engine/allocator_tuning.h"
#include "core/engine/atomic_file.h"
#include "core/engine/checkpoint_keeper.h"
#include "core/engine/config.h"
#include "core/engine/device.h"
#include "core/engine/preset_verdicts.h"
#include "core/engine/seeding.h"

namespace fl {

namespace {

std::string formatLoss(double v) {
  std::ostringstream out;
  out << v;
  return out.str();
}

}  // namespace

Runner::Runner(std::shared_ptr<const Experiment> experiment, nlohmann::json config, EventSink& sink,
               RunnerOptions options)
    : m_experiment(std::move(experiment)),
      m_config(std::move(config)),
      m_sink(sink),
      m_options(options) {}

Runner::~Runner() {
  cancel();
  join();
}

void Runner::start() {
  keepLargeAllocationsInHeap();  // process-wide, once: per-step T x T temporaries reuse the heap
  m_startTime = std::chrono::steady_clock::now();
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

double Runner::elapsed() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - m_startTime).count();
}

void Runner::emitStatus(RunStatus status, std::string message, int64_t step, bool fileWriteFailed) {
  StatusEvent e;
  e.status = status;
  e.message = std::move(message);
  e.fileWriteFailed = fileWriteFailed;
  e.device = m_deviceName;
  e.step = step;
  e.wallSeconds = elapsed();
  if (isTerminal(status)) e.verdicts = m_verdicts;  // empty unless it finished
  m_sink.onEvent(e);
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
    m_deviceName = device.name;
    emitStatus(RunStatus::Running, "running on " + device.description, 0);

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
      trial->loadCheckpoint(m_options.resume->checkpointPath);
      m_lowestEval = m_options.resume->lowestBefore;
      m_sink.onEvent(
          LogEvent{LogLevel::Info,
                   "resumed from the checkpoint at step " + std::to_string(m_options.resume->step),
                   elapsed()});
    }
    status =
        m_options.serveProbesOnly
            ? serveProbes(*trial, message)
            : trainLoop(*trial,
                        CheckpointSchedule(config.values.at("checkpoint_every").get<int64_t>(),
                                           config.values.at("checkpoint_seconds").get<double>()),
                        message);
    if (status == RunStatus::Finished) message = finishedSummary(config.values);
  } catch (const FileWriteError& e) {
    // A checkpoint the disk could not take (full, read-only): said apart, so the CLI can answer
    // with its store-error exit code rather than "the run failed".
    message = e.what();
    status = RunStatus::Failed;
    fileWriteFailed = true;
  } catch (const c10::Error& e) {
    // LibTorch's messages carry a C++ backtrace after the first line; keep the first line.
    message = e.what_without_backtrace();
    status = RunStatus::Failed;
  } catch (const std::exception& e) {
    message = e.what();
    status = RunStatus::Failed;
  }
  m_finalStatus = status;
  emitStatus(status, message, m_lastStep, fileWriteFailed);
  m_done = true;
}

std::string Runner::finishedSummary(const nlohmann::json& config) {
  std::string text = m_verdict ? m_verdict->detail : std::string();
  if (m_divergenceVerdict)
    text += (text.empty() ? "" : "; ") + m_divergenceVerdict->detail;  // "DIVERGED -- ..."
  m_paperVerdicts = checkAgainstPresets(*m_experiment, config, m_lastEval, m_lowestEval);
  if (m_verdict) m_verdicts.push_back(*m_verdict);
  if (m_divergenceVerdict) m_verdicts.push_back(*m_divergenceVerdict);
  for (const auto& paper : m_paperVerdicts) m_verdicts.push_back(verdictOfReference(paper));
  const std::string paper = joinVerdicts(m_paperVerdicts);
  if (!paper.empty()) text += (text.empty() ? "" : "; ") + paper;
  return text;
}

RunStatus Runner::trainLoop(Trial& trial, CheckpointSchedule schedule, std::string& message) {
  const TrialPlan plan = trial.plan();
  const int64_t totalEpochs = (plan.totalSteps + plan.stepsPerEpoch - 1) / plan.stepsPerEpoch;
  const int64_t firstStep = m_options.resume ? m_options.resume->step : 0;
  const bool checkpointing = !m_options.checkpointDir.empty() && trial.supportsCheckpoints();
  CheckpointKeeper keeper(m_experiment->selectionMetric());
  if (m_options.resume) keeper.add(firstStep, m_options.resume->checkpointPath, std::nullopt);
  double lossSum = 0;
  int64_t lossCount = 0;
  int64_t lastCheckpointStep = firstStep;

  for (int64_t step = firstStep; step < plan.totalSteps; ++step) {
    m_lastStep = step;
    if (!waitWhilePaused(trial, step)) {
      message = "cancelled after " + std::to_string(step) + " steps";
      // Keep the work: a cancelled run resumes where it stopped, not at its last checkpoint.
      if (checkpointing && step > lastCheckpointStep) {
        try {
          saveCheckpoint(trial, step, std::nullopt, keeper);
          message += "; checkpoint saved";
        } catch (const std::exception& e) {
          message += "; its checkpoint could not be saved: " + std::string(e.what());
        }
      }
      return RunStatus::Cancelled;
    }
    answerRequests(trial, step);

    const double loss = trial.trainStep(step);
    const int64_t stepsDone = step + 1;
    m_lastStep = stepsDone;
    if (!std::isfinite(loss)) {
      message = "training loss became " + formatLoss(loss) + " at step " +
                std::to_string(stepsDone) + " (epoch " +
                std::to_string(step / plan.stepsPerEpoch + 1) + ")";
      m_sink.onEvent(MetricEvent{"train/loss", stepsDone, elapsed(), loss});
      return RunStatus::Failed;
    }
    lossSum += loss;
    ++lossCount;
    m_divergence.step(loss);

    const bool last = stepsDone == plan.totalSteps;
    const bool logNow = stepsDone % plan.logEvery == 0 || last;
    const bool evaluateNow = last || (plan.evalEvery > 0 && stepsDone % plan.evalEvery == 0);
    if (!logNow && !evaluateNow) {
      // The time bound holds between evaluations too (a slow epoch, a rare evaluation).
      if (checkpointing && schedule.dueByTime()) {
        saveCheckpoint(trial, stepsDone, std::nullopt, keeper);
        schedule.written();
        lastCheckpointStep = stepsDone;
      }
      continue;
    }
    const double meanLoss = lossCount ? lossSum / static_cast<double>(lossCount) : NAN;
    if (logNow && lossCount) {
      m_sink.onEvent(MetricEvent{"train/loss", stepsDone, elapsed(), meanLoss});
      m_divergence.logged(meanLoss);
      lossSum = 0;
      lossCount = 0;
    }
    std::optional<double> score;
    bool due = false;
    if (evaluateNow) {
      score = evaluateAndReport(trial, stepsDone, last);
      due = schedule.dueAfterEvaluation() || last;
    }
    if (checkpointing && (due || schedule.dueByTime())) {
      saveCheckpoint(trial, stepsDone, score, keeper);
      schedule.written();
      lastCheckpointStep = stepsDone;
    }
    m_sink.onEvent(ProgressEvent{stepsDone, plan.totalSteps, stepsDone / plan.stepsPerEpoch,
                                 totalEpochs, elapsed(), meanLoss, evaluateNow});
  }
  if (plan.totalSteps == 0) evaluateAndReport(trial, 0, true);
  if (auto diverged = m_divergence.verdict()) {
    const std::string judgement =
        diverged->meta.value("verdict", "") + " -- " + diverged->meta.value("detail", "");
    m_divergenceVerdict = verdictOfSnapshot(*diverged);
    m_sink.onEvent(LogEvent{LogLevel::Warning, judgement, elapsed()});
    m_sink.onEvent(SnapshotEvent{plan.totalSteps, elapsed(), std::move(*diverged), 0});
  }
  answerRequests(trial, plan.totalSteps);
  return RunStatus::Finished;
}

std::optional<double> Runner::evaluateAndReport(Trial& trial, int64_t stepsDone, bool final) {
  EvalReport report;
  trial.evaluate(stepsDone, final, report);
  const double now = elapsed();
  const auto selection = m_experiment->selectionMetric();
  std::optional<double> score;
  for (auto& [key, value] : report.metrics) {
    m_sink.onEvent(MetricEvent{key, stepsDone, now, value});
    m_lastEval[key] = value;
    auto lowest = m_lowestEval.find(key);
    if (lowest == m_lowestEval.end())
      m_lowestEval.emplace(key, value);
    else if (value < lowest->second)
      lowest->second = value;
    if (selection && key == selection->key) score = value;
  }
  for (auto& snapshot : report.snapshots) {
    if (auto verdict = verdictOfSnapshot(snapshot)) m_verdict = std::move(verdict);
    m_sink.onEvent(SnapshotEvent{stepsDone, now, std::move(snapshot), 0});
  }
  return score;
}

void Runner::saveCheckpoint(Trial& trial, int64_t stepsDone, std::optional<double> score,
                            CheckpointKeeper& keeper) {
  namespace fs = std::filesystem;
  fs::create_directories(m_options.checkpointDir);
  const auto path =
      (fs::path(m_options.checkpointDir) / ("step-" + std::to_string(stepsDone) + ".pt")).string();
  // The Trial writes through AtomicFile (optim::saveArchive): step-N.pt.partial, renamed when
  // complete, so a crash never leaves a half-written file under the final name, and a full
  // disk throws FileWriteError with the partial file removed.
  trial.saveCheckpoint(path);
  m_sink.onEvent(CheckpointEvent{stepsDone, path, false});
  // Superseded files are announced, not deleted: the run store's writer deletes each one once
  // the transaction that drops its row has committed. Deleting here raced that writer, and a
  // kill -9 in between left the store naming a file that was gone (a run that cannot resume).
  // Without a store, the superseded files stay for whoever owns checkpointDir.
  for (const auto& old : keeper.add(stepsDone, path, score))
    m_sink.onEvent(CheckpointEvent{0, old, true});
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
      m_sink.onEvent(SnapshotEvent{stepsDone, elapsed(), std::move(snapshot), request.id});
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
