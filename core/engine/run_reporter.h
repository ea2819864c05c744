// RunReporter: one run's bookkeeping between its steps, shared by the Runner (one Trial) and the
// GroupRunner (each member of a BatchedTrial), so a member of a group reports exactly as a single
// run: train/loss means over the plan's logging interval (a resumed run's too: the losses not
// yet logged ride along in its checkpoints), evaluations stamped with step and wall
// time, checkpoints on the CheckpointSchedule kept by the CheckpointKeeper, a non-finite loss
// failing the run at its step, the divergence verdict, and the finished run's summary and
// verdicts (the experiment's and the paper's) on its terminal StatusEvent. While it trains it also
// samples the process (and its GPU) into "system/" metrics, at most about once a second
// (core/engine/system_usage.h): a group's members each record the same process's figures.
//
//   RunReporter reporter(experiment, sink);   reporter.startClock();
//   reporter.begin(trial.plan(), config, checkpointDir, trial.supportsCheckpoints(), resume);
//   for each step: reporter.setLastStep(step); loss = trainStep();
//                  if (!reporter.afterStep(trial, step + 1, loss, message)) -> failed
//   cancelled: message = reporter.cancel(trial, step);
//   finished: reporter.finishTraining(trial); message = reporter.finishedSummary(config);
//   reporter.emitStatus(status, message, reporter.lastStep());
//
// Not thread-safe: used by the one thread that trains the run.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/engine/checkpoint_keeper.h"
#include "core/engine/checkpoint_schedule.h"
#include "core/engine/events.h"
#include "core/engine/experiment.h"
#include "core/engine/loss_divergence.h"
#include "core/engine/reference_check.h"
#include "core/engine/system_usage.h"

namespace fl {

struct ResumePoint {
  std::string checkpointPath;
  int64_t step = 0;  // the checkpoint's step: training continues at step + 1
  // Each metric's lowest value up to `step` (the run's past, from the store): a comparison with
  // a paper's best value must see the evaluations before the interruption too.
  std::map<std::string, double> lowestBefore;
  // The run's wall time at `step`: the resumed run's clock continues from it.
  double wallSecondsBefore = 0;
  // The run's checkpoints up to `step` (this one included), by step, with their scores on the
  // selection metric: the keep policy goes on weighing them, so the best from before the
  // interruption is deleted once a newer one beats it instead of staying in the store for good.
  struct Kept {
    int64_t step = 0;
    std::string path;
    std::optional<double> score;
  };
  std::vector<Kept> checkpointsBefore;
  // Whether the store holds an evaluation at `step`. A run whose last writes the store refused
  // kept its final checkpoint but lost that evaluation: resumed there, it has no step left to
  // train, and would be finished with its metrics from the middle of training.
  bool evaluatedAtStep = true;
  // Whether the store holds the training loss logged at `step`. Lost with those last writes, it
  // would never come back: the resumed run trains no step up to it again.
  bool lossLoggedAtStep = true;
};

class RunReporter {
 public:
  RunReporter(std::shared_ptr<const Experiment> experiment, EventSink& sink);

  void startClock();  // wall times count from here
  double elapsed() const;
  void setDevice(std::string name) { m_deviceName = std::move(name); }
  // Trained alone (1, a Runner's) or in a batched group of `size` runs (StatusEvent::batchSize).
  void setBatchSize(int size) { m_batchSize = size; }
  EventSink& sink() { return m_sink; }

  // A resumed run: its past lowest metrics, and a log line saying where it continues.
  void resumed(const ResumePoint& resume);
  // Training starts at `firstStep`; checkpoints go to `checkpointDir` (empty: none) when the
  // trial supports them; the schedule is the config's checkpoint_every / checkpoint_seconds.
  void begin(const TrialPlan& plan, const nlohmann::json& config, std::string checkpointDir,
             bool checkpointsSupported, int64_t firstStep,
             std::optional<std::string> resumedCheckpoint);

  // The step about to be taken (where a cancel or a failure is reported).
  void setLastStep(int64_t step) { m_lastStep = step; }
  const std::string& deviceName() const { return m_deviceName; }
  int64_t lastStep() const { return m_lastStep; }

  // After the step that completed `stepsDone` with `loss`: logs, evaluates and checkpoints as
  // the plan and schedule say. False when a loss is not finite: the run has failed at that
  // loss's step and `message` says so. A loss still on the device waits, unread, until the
  // next report (at most the plan's logging interval). Throws what the trial's evaluation or
  // checkpoint throws.
  bool afterStep(Trial& trial, int64_t stepsDone, StepLoss loss, std::string& message);
  // A cancel before step `step`: saves a checkpoint when work would be lost; returns the
  // status message.
  std::string cancel(Trial& trial, int64_t step);
  // A run stopped before step `step` (cancelled, or out of memory between two steps): saves a
  // checkpoint there when work would be lost; returns "; checkpoint saved" or why not.
  std::string keepWork(Trial& trial, int64_t step);
  // After the last step: a run of no steps is evaluated, a diverged one gets its verdict.
  void finishTraining(Trial& trial);
  // A finished run's status message (the experiment's judgement, the paper's comparison).
  std::string finishedSummary(const nlohmann::json& config);

  void emitStatus(RunStatus status, std::string message, int64_t step,
                  bool fileWriteFailed = false);

  const std::vector<ReferenceVerdict>& paperVerdicts() const { return m_paperVerdicts; }
  const std::vector<Verdict>& verdicts() const { return m_verdicts; }

 private:
  // Evaluates, emits the results and returns the selection metric's value, if any.
  std::optional<double> evaluateAndReport(Trial& trial, int64_t stepsDone, bool final);
  void saveCheckpoint(Trial& trial, int64_t stepsDone, std::optional<double> score);
  // The losses since the last logged mean, as the checkpoint the trial just loaded kept them;
  // and the mean logged at its step again, where the store lost it.
  void restoreLosses(const ResumePoint& resume);
  // Reads the losses waiting since the last report (one device synchronisation for all) into
  // the logging mean and the divergence watch; false, with `message`, at a non-finite one.
  bool absorbPendingLosses(std::string& message);
  // The system figures at `stepsDone`, when a sample is due.
  void sampleSystem(int64_t stepsDone, bool lastStep);

  std::shared_ptr<const Experiment> m_experiment;
  EventSink& m_sink;
  std::string m_deviceName;
  int m_batchSize = 1;
  std::chrono::steady_clock::time_point m_startTime = std::chrono::steady_clock::now();
  double m_wallOffset = 0;           // a resumed run's wall time before this session
  bool m_evaluationMissing = false;  // resumed at a step whose evaluation the store lacks
  std::vector<ResumePoint::Kept> m_checkpointsBefore;

  TrialPlan m_plan;
  std::string m_checkpointDir;  // empty: no checkpoints
  std::optional<CheckpointSchedule> m_schedule;
  CheckpointKeeper m_keeper;
  int64_t m_lastCheckpointStep = 0;
  double m_lossSum = 0;
  int64_t m_lossCount = 0;
  std::optional<std::pair<int64_t, double>> m_loggedLoss;     // the last mean logged: step, value
  std::vector<std::pair<int64_t, StepLoss>> m_pendingLosses;  // (steps done, loss), unread

  // The latest verdict an evaluation gave (a snapshot whose meta states one): part of a
  // finished run's verdicts and, as "VERDICT -- detail", of its status message.
  std::optional<Verdict> m_verdict;
  std::optional<Verdict> m_divergenceVerdict;  // a finite loss far above its start
  std::vector<Verdict> m_verdicts;             // a finished run's, attached to its terminal status
  // Every evaluated metric's last and lowest value, for the comparison with published figures.
  std::map<std::string, double> m_lastEval;
  std::map<std::string, double> m_lowestEval;
  std::vector<ReferenceVerdict> m_paperVerdicts;
  LossDivergence m_divergence;      // a finite but exploding training loss
  bool m_progressReported = false;  // a ProgressEvent went out in this attempt
  int64_t m_lastStep = 0;           // the status events' step: where a run failed or was cancelled
  SystemSampler m_system;           // from begin() to the terminal status
};

}  // namespace fl
