#include "core/engine/interrupt_signals.h"

#include <atomic>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <mutex>

#include <pthread.h>

namespace fl {

namespace {

constexpr int kSignals[] = {SIGINT, SIGTERM, SIGHUP};

// Lock-free, so the handler may touch it (async-signal-safe).
std::atomic<int> g_received{0};
std::atomic<int> g_count{0};
// Instances alive: the first installs the handlers, the last restores the previous ones, so a
// command that runs another inside it (a study running its cells) shares one flag.
std::mutex g_mutex;
int g_instances = 0;
struct sigaction g_previous[3];

sigset_t interruptSet() {
  sigset_t set;
  sigemptyset(&set);
  for (int signal : kSignals) sigaddset(&set, signal);
  return set;
}

extern "C" void onInterruptSignal(int signal) {
  int none = 0;
  g_received.compare_exchange_strong(none, signal);  // keep the first
  g_count.fetch_add(1);
}

}  // namespace

InterruptSignals::InterruptSignals() {
  std::lock_guard<std::mutex> lock(g_mutex);
  if (g_instances++ > 0) return;
  g_received = 0;
  g_count = 0;
  struct sigaction action {};
  action.sa_handler = onInterruptSignal;
  sigemptyset(&action.sa_mask);
  // Restart interrupted reads and writes instead of failing them with EINTR.
  action.sa_flags = SA_RESTART;
  for (size_t i = 0; i < 3; ++i) sigaction(kSignals[i], &action, &g_previous[i]);
  releaseHeld();  // a signal held since start-up is delivered now, to the handler
}

void InterruptSignals::holdUntilHandled() {
  const sigset_t set = interruptSet();
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
}

void InterruptSignals::releaseHeld() {
  const sigset_t set = interruptSet();
  pthread_sigmask(SIG_UNBLOCK, &set, nullptr);
}

void InterruptSignals::ignoreAfterWork() {
  std::lock_guard<std::mutex> lock(g_mutex);
  struct sigaction ignore {};
  ignore.sa_handler = SIG_IGN;
  sigemptyset(&ignore.sa_mask);
  for (size_t i = 0; i < 3; ++i) {
    g_previous[i] = ignore;  // what the last instance restores
    if (g_instances == 0) sigaction(kSignals[i], &ignore, nullptr);
  }
}

InterruptSignals::~InterruptSignals() {
  std::lock_guard<std::mutex> lock(g_mutex);
  if (--g_instances > 0) return;
  for (size_t i = 0; i < 3; ++i) sigaction(kSignals[i], &g_previous[i], nullptr);
}

int InterruptSignals::received() const { return g_received.load(); }

int InterruptSignals::count() const { return g_count.load(); }

const std::atomic<int>& InterruptSignals::flag() { return g_received; }

const std::atomic<int>& InterruptSignals::countFlag() { return g_count; }

std::chrono::milliseconds InterruptSignals::stopGrace() {
  if (const char* env = std::getenv("FOURIERLAB_STOP_GRACE_MS"))
    return std::chrono::milliseconds(std::atoll(env));
  return std::chrono::seconds(20);
}

std::string InterruptSignals::stuckStepReason(int signal, const std::string& step,
                                              std::chrono::milliseconds waited,
                                              bool signalledAgain) {
  // Tenths below ten seconds: a second signal 0.2 s after the first read "0 s".
  char seconds[32];
  const double s = static_cast<double>(waited.count()) / 1000.0;
  std::snprintf(seconds, sizeof seconds, s < 10 ? "%.1f" : "%.0f", s);
  return (signal ? name(signal) : std::string("stop")) + ": " + step + " had not ended " + seconds +
         " s after the signal" + (signalledAgain ? " (signalled again)" : "") +
         "; stopped without it, so its work is lost: resume continues from the last checkpoint";
}

void InterruptSignals::exitLeavingStuckThreads(int exitCode) {
  std::fflush(stdout);
  std::fflush(stderr);
  std::_Exit(exitCode);
}

std::string InterruptSignals::name(int signal) {
  switch (signal) {
    case SIGINT:
      return "SIGINT";
    case SIGTERM:
      return "SIGTERM";
    case SIGHUP:
      return "SIGHUP";
    default:
      return "signal " + std::to_string(signal);
  }
}

}  // namespace fl
