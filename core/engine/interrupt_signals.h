// InterruptSignals: SIGINT (Ctrl-C), SIGTERM (kill, timeout, a cluster's preemption: Slurm sends
// it before SIGKILL) and SIGHUP (a closed terminal, a logout) all become one polite request to
// stop: a flag that a front end's loop polls, then cancels its runs the way Stop does (a
// checkpoint where each stopped, status `cancelled`, resumable). Without it SIGTERM and SIGHUP
// kill the process like kill -9.
//
//   InterruptSignals signals;             // installs the handlers; the destructor restores them
//   while (training) {
//     if (signals.received() && !cancelling) { runner.cancel(); cancelling = true; }
//     ...
//   }
//   return signals.received() ? InterruptSignals::exitCode(signals.received()) : ...;
//
// Exit codes follow the shell's convention, 128 + the signal: 130 after SIGINT, 143 after
// SIGTERM, 129 after SIGHUP. Users: the fourierlab-cli `run`, a study's `sweep run`, the GUI's
// main(). Instances nest (a study running `run` for each cell): the first installs the
// handlers and clears the flag, the last restores the previous handlers; all see one flag.
// The handler only stores the signal number.
#pragma once

#include <atomic>
#include <chrono>
#include <string>

namespace fl {

class InterruptSignals {
 public:
  InterruptSignals();
  ~InterruptSignals();
  InterruptSignals(const InterruptSignals&) = delete;
  InterruptSignals& operator=(const InterruptSignals&) = delete;

  // The first of SIGINT, SIGTERM, SIGHUP received since the outermost instance was made; 0
  // when none.
  int received() const;
  // The same, as the flag a loop on another thread can poll (StudySchedulerOptions::stopFlag).
  static const std::atomic<int>& flag();
  // How many of them arrived (a second asks to stop now rather than after the current step).
  int count() const;
  static const std::atomic<int>& countFlag();  // the same, for a loop on another thread

  // How long a step may go on after the signal before the process stops without it. A step
  // can be stuck where no cancel reaches it (a BLAS retrying an allocation forever under
  // `ulimit -v`), and a signal must still stop the process; a second signal stops it at once.
  // Slurm sends SIGKILL 30 s after SIGTERM by default: 20 s leaves time to record the runs.
  // FOURIERLAB_STOP_GRACE_MS overrides it.
  static std::chrono::milliseconds stopGrace();
  // Why a run was stopped without its step, for its record: "SIGTERM: the step or evaluation
  // under way after step 811 had not ended 20 s after the signal; stopped without it, so its work
  // is lost: resume continues from the last checkpoint". `step` names what was under way ("its
  // step in progress"); signal 0 reads "stop".
  static std::string stuckStepReason(int signal, const std::string& step,
                                     std::chrono::milliseconds waited, bool signalledAgain);
  // Leaves the process without joining the threads stuck in those steps (their destructors
  // would wait forever), once what it printed is out.
  [[noreturn]] static void exitLeavingStuckThreads(int exitCode);

  // Called first thing in main(), before any thread exists: the three signals are blocked, so
  // one that arrives while the program starts (LibTorch's start-up, the OpenMP re-exec, which
  // keeps blocked and pending signals) waits instead of killing it. The first InterruptSignals
  // unblocks them and a pending one then sets its flag; a command that installs none calls
  // releaseHeld(), and a pending signal takes its default action.
  static void holdUntilHandled();
  static void releaseHeld();
  // Called once a command's work is done and its exit code decided: the signals are ignored
  // from then on, the last instance's destructor included (it installs "ignore" where it would
  // restore the previous handlers). A SIGTERM while the process tore down (LibTorch's and the
  // static destructors take a moment) killed it, and a finished run read as cancelled (143).
  static void ignoreAfterWork();

  static int exitCode(int signal) { return 128 + signal; }
  static std::string name(int signal);  // "SIGTERM"
};

}  // namespace fl
