#include "core/engine/event_queue.h"

namespace fl {

std::string toString(RunStatus status) {
  switch (status) {
    case RunStatus::Queued:
      return "queued";
    case RunStatus::Running:
      return "running";
    case RunStatus::Finished:
      return "finished";
    case RunStatus::Cancelled:
      return "cancelled";
    case RunStatus::Failed:
      return "failed";
    case RunStatus::Interrupted:
      return "interrupted";
  }
  return "?";
}

bool isTerminal(RunStatus status) {
  return status != RunStatus::Queued && status != RunStatus::Running;
}

std::string toString(SnapshotRole role) {
  switch (role) {
    case SnapshotRole::Truth:
      return "truth";
    case SnapshotRole::Prediction:
      return "prediction";
    case SnapshotRole::Series:
      break;
  }
  return "series";
}

SnapshotRole parseSnapshotRole(const std::string& text) {
  if (text == "truth") return SnapshotRole::Truth;
  if (text == "prediction") return SnapshotRole::Prediction;
  return SnapshotRole::Series;
}

int64_t Snapshot::numel() const {
  int64_t n = 1;
  for (auto d : shape) n *= d;
  return shape.empty() ? 0 : n;
}

void EventQueue::onEvent(const Event& event) {
  {
    std::lock_guard<std::mutex> lock(m_mutex);
    m_events.push_back(event);
  }
  m_ready.notify_one();
}

std::vector<Event> EventQueue::takeAll() {
  std::lock_guard<std::mutex> lock(m_mutex);
  std::vector<Event> out;
  out.swap(m_events);
  return out;
}

std::vector<Event> EventQueue::waitAndTakeAll(std::chrono::milliseconds timeout) {
  std::unique_lock<std::mutex> lock(m_mutex);
  m_ready.wait_for(lock, timeout, [this] { return !m_events.empty(); });
  std::vector<Event> out;
  out.swap(m_events);
  return out;
}

}  // namespace fl
