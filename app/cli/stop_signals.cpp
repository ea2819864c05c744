#include "app/cli/stop_signals.h"

#include <csignal>

namespace fl::cli {

namespace {

std::atomic<int> g_signal{0};
extern "C" void onStopSignal(int signal) { g_signal = signal; }

}  // namespace

std::atomic<int>& stopSignal() { return g_signal; }

StopSignals::StopSignals() {
  g_signal = 0;
  for (int s : {SIGINT, SIGTERM, SIGHUP}) m_previous.emplace_back(s, std::signal(s, onStopSignal));
}

StopSignals::~StopSignals() {
  for (auto& [s, handler] : m_previous) std::signal(s, handler);
}

const char* stopSignalName(int signal) {
  return signal == SIGTERM ? "SIGTERM" : signal == SIGHUP ? "SIGHUP" : "Ctrl-C";
}

}  // namespace fl::cli
