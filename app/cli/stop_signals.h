// Ctrl-C, `kill`, a closed terminal and a cluster's preemption, scancel or time limit (SIGTERM
// before SIGKILL) all stop a study the same way: StopSignals records the signal in
// stopSignal(), which the study scheduler polls (StudySchedulerOptions::stopFlag); every run
// then checkpoints where it is and ends cancelled.
#pragma once

#include <atomic>
#include <utility>
#include <vector>

namespace fl::cli {

// The number of the last stop signal that arrived while a StopSignals lived (0: none).
std::atomic<int>& stopSignal();

// Catches SIGINT, SIGTERM and SIGHUP while it lives; restores the previous handlers after.
class StopSignals {
 public:
  StopSignals();
  ~StopSignals();
  StopSignals(const StopSignals&) = delete;
  StopSignals& operator=(const StopSignals&) = delete;

 private:
  std::vector<std::pair<int, void (*)(int)>> m_previous;
};

// "SIGTERM", "SIGHUP", "Ctrl-C"
const char* stopSignalName(int signal);

}  // namespace fl::cli
