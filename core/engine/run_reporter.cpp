#include "core/engine/run_reporter.h"

#include <cmath>
#include <filesystem>
#include <sstream>

#include <torch/torch.h>

#include "core/engine/atomic_file.h"
#include "core/engine/preset_verdicts.h"
#include "core/optim/archive_rider.h"

namespace fl {

namespace {

// The checkpoint entry of the training losses since the last logged mean: (sum, count).
const std::string kUnloggedLossEntry = "run.unlogged_loss";
// The checkpoint entry of the last logged mean: (step, value).
const std::string kLoggedLossEntry = "run.logged_loss";

// A rider entry of two numbers, or nothing where it is missing or damaged.
std::optional<std::pair<double, double>> pairEntry(const std::string& path,
                                                   const std::string& key) {
  const auto entry = optim::riddenEntry(path, key);
  if (!entry) return std::nullopt;  // written before it rode along, or by a trial that saves none
  const auto values = entry->to(torch::kDouble).flatten();
  if (values.numel() != 2) return std::nullopt;
  return std::pair{values[0].item<double>(), values[1].item<double>()};
}

bool isCount(double v) { return v >= 0 && v < 0x1p53 && v == std::floor(v); }

std::string formatLoss(double v) {
  std::ostringstream out;
  out << v;
  return out.str();
}

}  // namespace

RunReporter::RunReporter(std::shared_ptr<const Experiment> experiment, EventSink& sink)
    : m_experiment(std::move(experiment)),
      m_sink(sink),
      m_keeper(m_experiment->selectionMetric()) {}

void RunReporter::startClock() { m_startTime = std::chrono::steady_clock::now(); }

double RunReporter::elapsed() const {
  return m_wallOffset +
         std::chrono::duration<double>(std::chrono::steady_clock::now() - m_startTime).count();
}

void RunReporter::emitStatus(RunStatus status, std::string message, int64_t step,
                             bool fileWriteFailed) {
  StatusEvent e;
  e.status = status;
  e.message = std::move(message);
  e.fileWriteFailed = fileWriteFailed;
  e.device = m_deviceName;
  e.batchSize = m_batchSize;
  e.step = step;
  e.wallSeconds = elapsed();
  if (isTerminal(status)) {
    e.verdicts = m_verdicts;  // empty unless it finished
    m_system.end();
  }
  m_sink.onEvent(e);
}

void RunReporter::resumed(const ResumePoint& resume) {
  m_lowestEval = resume.lowestBefore;
  m_wallOffset = resume.wallSecondsBefore;
  m_checkpointsBefore = resume.checkpointsBefore;
  m_evaluationMissing = !resume.evaluatedAtStep;
  m_sink.onEvent(LogEvent{LogLevel::Info,
                          "resumed from the checkpoint at step " + std::to_string(resume.step),
                          elapsed()});
  restoreLosses(resume);
}

void RunReporter::restoreLosses(const ResumePoint& resume) {
  // A damaged entry costs one logged mean, not the run: it starts from the resume as before.
  if (const auto unlogged = pairEntry(resume.checkpointPath, kUnloggedLossEntry);
      unlogged && std::isfinite(unlogged->first) && isCount(unlogged->second)) {
    m_lossSum = unlogged->first;
    m_lossCount = static_cast<int64_t>(unlogged->second);
  }
  // The store refused the run's last writes (a full disk) after this checkpoint was saved: the
  // mean logged at its step is logged again, or the run would end without its last loss.
  const auto logged = pairEntry(resume.checkpointPath, kLoggedLossEntry);
  if (!resume.lossLoggedAtStep && logged && logged->first == static_cast<double>(resume.step) &&
      std::isfinite(logged->second)) {
    m_loggedLoss = {resume.step, logged->second};
    m_sink.onEvent(MetricEvent{"train/loss", resume.step, elapsed(), logged->second});
  }
}

void RunReporter::begin(const TrialPlan& plan, const nlohmann::json& config,
                        std::string checkpointDir, bool checkpointsSupported, int64_t firstStep,
                        std::optional<std::string> resumedCheckpoint) {
  m_plan = plan;
  m_checkpointDir = checkpointsSupported ? std::move(checkpointDir) : std::string();
  m_schedule.emplace(config.at("checkpoint_every").get<int64_t>(),
                     config.at("checkpoint_seconds").get<double>());
  if (resumedCheckpoint) {
    // What the run kept before the interruption, then the checkpoint it continues from (last):
    // files the policy no longer keeps are announced for the store's writer to delete.
    bool resumedAdded = false;
    for (const auto& kept : m_checkpointsBefore) {
      for (const auto& old : m_keeper.add(kept.step, kept.path, kept.score))
        m_sink.onEvent(CheckpointEvent{0, old, true});
      resumedAdded = resumedAdded || kept.path == *resumedCheckpoint;
    }
    if (!resumedAdded) m_keeper.add(firstStep, *resumedCheckpoint, std::nullopt);
  }
  m_lastCheckpointStep = firstStep;
  m_lastStep = firstStep;
  m_system.begin(m_deviceName);
}

void RunReporter::sampleSystem(int64_t stepsDone, bool lastStep) {
  if (!m_system.due(lastStep)) return;
  const double now = elapsed();
  for (const auto& [key, value] : m_system.sample(lastStep))
    m_sink.onEvent(MetricEvent{key, stepsDone, now, value});
}

bool RunReporter::absorbPendingLosses(std::string& message) {
  if (m_pendingLosses.empty()) return true;
  std::vector<double> values;
  values.reserve(m_pendingLosses.size());
  std::vector<torch::Tensor> onDevice;
  for (const auto& [step, loss] : m_pendingLosses)
    if (const auto* tensor = loss.tensor()) onDevice.push_back(*tensor);
  // One synchronisation for every lone loss the device still holds (a group's are read a step,
  // all members, at a time).
  torch::Tensor read;
  if (!onDevice.empty()) read = torch::stack(onDevice).to(torch::kCPU, torch::kDouble);
  int64_t next = 0;
  for (const auto& [step, loss] : m_pendingLosses)
    values.push_back(loss.tensor() ? read[next++].item<double>() : loss.read());
  const auto pending = std::move(m_pendingLosses);
  m_pendingLosses.clear();
  for (size_t i = 0; i < pending.size(); ++i) {
    const int64_t stepsDone = pending[i].first;
    const double loss = values[i];
    if (!std::isfinite(loss)) {
      message = "training loss became " + formatLoss(loss) + " at step " +
                std::to_string(stepsDone) + " (epoch " +
                std::to_string((stepsDone - 1) / m_plan.stepsPerEpoch + 1) + ")";
      m_sink.onEvent(MetricEvent{"train/loss", stepsDone, elapsed(), loss});
      m_lastStep = stepsDone;
      return false;
    }
    m_lossSum += loss;
    ++m_lossCount;
    m_divergence.step(loss);
  }
  return true;
}

bool RunReporter::afterStep(Trial& trial, int64_t stepsDone, StepLoss loss, std::string& message) {
  const TrialPlan& plan = m_plan;
  const int64_t totalEpochs = (plan.totalSteps + plan.stepsPerEpoch - 1) / plan.stepsPerEpoch;
  const bool checkpointing = !m_checkpointDir.empty();
  m_lastStep = stepsDone;
  const bool readNow = loss.onHost();
  m_pendingLosses.emplace_back(stepsDone, std::move(loss));

  const bool last = stepsDone == plan.totalSteps;
  const bool logNow = stepsDone % plan.logEvery == 0 || last;
  const bool evaluateNow = plan.evaluatesAt(stepsDone);
  const bool checkpointByTime = checkpointing && m_schedule->dueByTime();
  if (readNow || logNow || evaluateNow || checkpointByTime) {
    if (!absorbPendingLosses(message)) return false;
  }
  if (!logNow && !evaluateNow) {
    // The time bound holds between evaluations too (a slow epoch, a rare evaluation).
    if (checkpointByTime) {
      saveCheckpoint(trial, stepsDone, std::nullopt);
      m_schedule->written();
      m_lastCheckpointStep = stepsDone;
    }
    sampleSystem(stepsDone, last);
    return true;
  }
  const double meanLoss = m_lossCount ? m_lossSum / static_cast<double>(m_lossCount) : NAN;
  if (logNow && m_lossCount) {
    m_sink.onEvent(MetricEvent{"train/loss", stepsDone, elapsed(), meanLoss});
    m_loggedLoss = {stepsDone, meanLoss};
    m_divergence.logged(meanLoss);
    m_lossSum = 0;
    m_lossCount = 0;
  }
  std::optional<double> score;
  bool due = false;
  if (evaluateNow) {
    score = evaluateAndReport(trial, stepsDone, last);
    due = m_schedule->dueAfterEvaluation() || last;
  }
  if (checkpointing && (due || m_schedule->dueByTime())) {
    saveCheckpoint(trial, stepsDone, score);
    m_schedule->written();
    m_lastCheckpointStep = stepsDone;
  }
  sampleSystem(stepsDone, last);
  // At the end every epoch is done, the last one partial where the steps do not divide evenly
  // (a finished run said "epoch 9/10").
  const int64_t epochsDone = last ? totalEpochs : stepsDone / plan.stepsPerEpoch;
  m_sink.onEvent(ProgressEvent{stepsDone, plan.totalSteps, epochsDone, totalEpochs, elapsed(),
                               meanLoss, evaluateNow});
  m_progressReported = true;
  return true;
}

std::string RunReporter::cancel(Trial& trial, int64_t step) {
  return "cancelled after " + std::to_string(step) + " steps" + keepWork(trial, step);
}

std::string RunReporter::keepWork(Trial& trial, int64_t step) {
  m_lastStep = step;
  std::string lossFailure;
  // A loss not read yet that was already not finite: those parameters are not worth keeping.
  if (!absorbPendingLosses(lossFailure)) return "; " + lossFailure + ", so no checkpoint was saved";
  // Keep the work: the run resumes where it stopped, not at its last checkpoint.
  if (m_checkpointDir.empty() || step <= m_lastCheckpointStep) return "";
  try {
    saveCheckpoint(trial, step, std::nullopt);
    m_lastCheckpointStep = step;
    return "; checkpoint saved";
  } catch (const std::exception& e) {
    return "; its checkpoint could not be saved: " + std::string(e.what());
  }
}

void RunReporter::finishTraining(Trial& trial) {
  std::string unused;  // the last step always reports, so nothing is pending here
  absorbPendingLosses(unused);
  if (m_plan.totalSteps == 0) evaluateAndReport(trial, 0, true);
  // Resumed at its last step with that step's evaluation lost: evaluate the restored model
  // again, or the run would be finished with the metrics of an earlier evaluation.
  if (!m_progressReported && m_evaluationMissing && m_plan.totalSteps > 0 &&
      m_lastStep == m_plan.totalSteps && m_plan.evaluatesAt(m_plan.totalSteps))
    evaluateAndReport(trial, m_plan.totalSteps, true);
  // A run resumed at its last step takes none here, so nothing has told the store its length
  // (an earlier attempt's writes may have been lost to a full disk): say it once.
  if (!m_progressReported && m_plan.totalSteps > 0)
    m_sink.onEvent(
        ProgressEvent{m_lastStep, m_plan.totalSteps, m_lastStep / m_plan.stepsPerEpoch,
                      (m_plan.totalSteps + m_plan.stepsPerEpoch - 1) / m_plan.stepsPerEpoch,
                      elapsed(), NAN, false});
  if (auto diverged = m_divergence.verdict()) {
    const std::string judgement =
        diverged->meta.value("verdict", "") + " -- " + diverged->meta.value("detail", "");
    m_divergenceVerdict = verdictOfSnapshot(*diverged);
    m_sink.onEvent(LogEvent{LogLevel::Warning, judgement, elapsed()});
    m_sink.onEvent(SnapshotEvent{m_plan.totalSteps, elapsed(), std::move(*diverged), 0});
  }
}

std::string RunReporter::finishedSummary(const nlohmann::json& config) {
  std::string text = m_verdict ? m_verdict->detail : std::string();
  if (m_divergenceVerdict)
    text += (text.empty() ? "" : "; ") + m_divergenceVerdict->detail;  // "DIVERGED -- ..."
  m_paperVerdicts = checkAgainstPresets(*m_experiment, config, m_lastEval, m_lowestEval);
  if (m_verdict) m_verdicts.push_back(*m_verdict);
  if (m_divergenceVerdict) m_verdicts.push_back(*m_divergenceVerdict);
  for (const auto& paper : m_paperVerdicts) m_verdicts.push_back(verdictOfReference(paper));
  // A shortened paper run says why it has no verdict against the paper, where it is shown.
  const std::string paper = m_paperVerdicts.empty() ? whyNotComparedWithPaper(*m_experiment, config)
                                                    : joinVerdicts(m_paperVerdicts);
  if (!paper.empty()) text += (text.empty() ? "" : "; ") + paper;
  return text;
}

std::optional<double> RunReporter::evaluateAndReport(Trial& trial, int64_t stepsDone, bool final) {
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

void RunReporter::saveCheckpoint(Trial& trial, int64_t stepsDone, std::optional<double> score) {
  namespace fs = std::filesystem;
  // A folder that cannot be made fails as a checkpoint's write does (the store or file error,
  // the folder named), not as the run's own failure with the library's words.
  std::error_code made;
  fs::create_directories(m_checkpointDir, made);
  if (made)
    throw FileWriteError(m_checkpointDir, describeWriteFailure(m_checkpointDir, made.value()),
                         made.value());
  const auto path =
      (fs::path(m_checkpointDir) / ("step-" + std::to_string(stepsDone) + ".pt")).string();
  // The Trial writes through AtomicFile (optim::saveArchive): step-N.pt.partial, renamed when
  // complete, so a crash never leaves a half-written file under the final name, and a full
  // disk throws FileWriteError with the partial file removed.
  {
    // The losses since the last logged mean ride along: resumed here, the run logs the mean
    // the uninterrupted run would have.
    // So does the last logged mean: the store may lose it after this file is written.
    std::map<std::string, torch::Tensor> riders{
        {kUnloggedLossEntry,
         torch::tensor({m_lossSum, static_cast<double>(m_lossCount)}, torch::kDouble)}};
    if (m_loggedLoss)
      riders[kLoggedLossEntry] = torch::tensor(
          {static_cast<double>(m_loggedLoss->first), m_loggedLoss->second}, torch::kDouble);
    optim::ArchiveRider rider(riders);
    trial.saveCheckpoint(path);
  }
  m_sink.onEvent(CheckpointEvent{stepsDone, path, false});
  // Superseded files are announced, not deleted: the run store's writer deletes each one once
  // the transaction that drops its row has committed. Deleting here raced that writer, and a
  // kill -9 in between left the store naming a file that was gone (a run that cannot resume).
  // Without a store, the superseded files stay for whoever owns checkpointDir.
  for (const auto& old : m_keeper.add(stepsDone, path, score))
    m_sink.onEvent(CheckpointEvent{0, old, true});
}

}  // namespace fl
