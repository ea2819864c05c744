#include "core/engine/checkpoint_schedule.h"

#include <chrono>

namespace fl {

double CheckpointSchedule::steadySeconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

CheckpointSchedule::CheckpointSchedule(int64_t everyEvaluations, double maxSeconds, Clock clock)
    : m_everyEvaluations(everyEvaluations),
      m_maxSeconds(maxSeconds),
      m_clock(std::move(clock)),
      m_lastWritten(m_clock()) {}

bool CheckpointSchedule::dueAfterEvaluation() {
  ++m_evaluations;
  return m_everyEvaluations > 0 && m_evaluations % m_everyEvaluations == 0;
}

bool CheckpointSchedule::dueByTime() const {
  return m_maxSeconds > 0 && m_clock() - m_lastWritten >= m_maxSeconds;
}

void CheckpointSchedule::written() { m_lastWritten = m_clock(); }

}  // namespace fl
