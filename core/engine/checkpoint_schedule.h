// CheckpointSchedule: when the Runner writes a checkpoint. Every `everyEvaluations` evaluations
// (the config's `checkpoint_every`) and, whatever those settings are, as soon as `maxSeconds`
// have passed since the last checkpoint or the start (`checkpoint_seconds`, default 60), between
// any two steps: a run killed at any moment loses at most about that much training. With the
// defaults a 500-epoch fourier-head run evaluates every 10 epochs and checkpoints every 5
// evaluations, so without the time bound a slow run could go minutes without one.
//
//   CheckpointSchedule schedule(checkpointEvery, checkpointSeconds);
//   after an evaluation: if (schedule.dueAfterEvaluation() || schedule.dueByTime()) save();
//   after any other step: if (schedule.dueByTime()) save();
//   save() ends with schedule.written();
#pragma once

#include <cstdint>
#include <functional>

namespace fl {

class CheckpointSchedule {
 public:
  using Clock = std::function<double()>;  // monotonic seconds
  static double steadySeconds();

  // everyEvaluations 0: no evaluation-driven checkpoints; maxSeconds <= 0: no time bound.
  CheckpointSchedule(int64_t everyEvaluations, double maxSeconds, Clock clock = steadySeconds);

  // Counts an evaluation; true when it is the Nth since the run (or its resume) started.
  bool dueAfterEvaluation();
  // True once maxSeconds have passed since the last written() (or construction).
  bool dueByTime() const;
  // A checkpoint was just written: the time bound starts again.
  void written();

 private:
  int64_t m_everyEvaluations;
  double m_maxSeconds;
  Clock m_clock;
  int64_t m_evaluations = 0;
  double m_lastWritten;
};

}  // namespace fl
