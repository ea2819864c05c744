// Tests core/engine/interrupt_signals.h in this process: SIGINT, SIGTERM and SIGHUP become one
// flag (the first kept), instances nest, the previous handlers come back afterwards, and a
// signal held from start-up reaches the handler once it exists.
#include <QtTest>

#include <csignal>

#include "core/engine/interrupt_signals.h"

namespace {
volatile std::sig_atomic_t g_previousHandlerRan = 0;
extern "C" void previousHandler(int) { g_previousHandlerRan = 1; }
}  // namespace

class TestInterruptSignals : public QObject {
  Q_OBJECT

 private slots:
  // SIGTERM and SIGHUP used to kill a run like kill -9; they are caught as Ctrl-C is.
  // A second signal 0.2 s after the first read "0 s after the signal"; tenths are said below
  // ten seconds, whole seconds above.
  void aStuckStepsWaitIsSaidInTenthsBelowTenSeconds() {
    using fl::InterruptSignals;
    const std::string quick =
        InterruptSignals::stuckStepReason(SIGINT, "the step or evaluation under way after step 5",
                                          std::chrono::milliseconds(230), true);
    QCOMPARE(quick, std::string("SIGINT: the step or evaluation under way after step 5 had not "
                                "ended 0.2 s after the signal (signalled again); stopped without "
                                "it, so its work is lost: resume continues from the last "
                                "checkpoint"));
    const std::string slow = InterruptSignals::stuckStepReason(
        0, "its step in progress", std::chrono::milliseconds(20400), false);
    QVERIFY2(slow.find("stop: its step in progress had not ended 20 s after the signal;") == 0,
             slow.c_str());
  }

  void eachSignalIsCaughtAndTheFirstKept() {
    for (int signal : {SIGINT, SIGTERM, SIGHUP}) {
      fl::InterruptSignals caught;
      QCOMPARE(caught.received(), 0);
      std::raise(signal);
      QCOMPARE(caught.received(), signal);
      std::raise(signal == SIGINT ? SIGTERM : SIGINT);
      QCOMPARE(caught.received(), signal);  // the first one decides the exit code
    }
    QCOMPARE(fl::InterruptSignals::exitCode(SIGINT), 130);
    QCOMPARE(fl::InterruptSignals::exitCode(SIGTERM), 143);
    QCOMPARE(fl::InterruptSignals::exitCode(SIGHUP), 129);
    QCOMPARE(fl::InterruptSignals::name(SIGTERM), std::string("SIGTERM"));
  }

  void instancesNestAndThePreviousHandlerComesBack() {
    std::signal(SIGHUP, previousHandler);
    {
      fl::InterruptSignals outer;
      {
        fl::InterruptSignals inner;  // e.g. a study running a cell
        std::raise(SIGHUP);
        QCOMPARE(inner.received(), SIGHUP);
      }
      QCOMPARE(outer.received(), SIGHUP);  // still caught by the outer one
      QCOMPARE(int(g_previousHandlerRan), 0);
    }
    std::raise(SIGHUP);
    QCOMPARE(int(g_previousHandlerRan), 1);
    std::signal(SIGHUP, SIG_DFL);
  }

  // Once a command's work is done, a signal neither kills the process tearing down (a finished
  // run exited 143) nor sets the flag's meaning again: it is ignored, after the last instance
  // too.
  void signalsAfterTheWorkAreIgnored() {
    {
      fl::InterruptSignals interrupts;
      fl::InterruptSignals::ignoreAfterWork();
      std::raise(SIGTERM);  // still the handler's while an instance lives
      QCOMPARE(interrupts.received(), SIGTERM);
    }
    std::raise(SIGTERM);  // would end this test with its default action
    struct sigaction now {};
    sigaction(SIGTERM, nullptr, &now);
    QVERIFY(now.sa_handler == SIG_IGN);
    for (int signal : {SIGINT, SIGTERM, SIGHUP}) std::signal(signal, SIG_DFL);
  }

  // A SIGTERM while the program starts (before its handler exists) used to kill it. Held from
  // the start of main(), it waits and reaches the handler once one is installed.
  void aSignalDuringStartUpWaitsForTheHandler() {
    fl::InterruptSignals::holdUntilHandled();
    std::raise(SIGTERM);  // held: this process would end here otherwise
    sigset_t pending;
    sigpending(&pending);
    QVERIFY(sigismember(&pending, SIGTERM));
    fl::InterruptSignals caught;
    QCOMPARE(caught.received(), SIGTERM);
    // Released: further signals reach the handler at once.
    std::raise(SIGHUP);
    sigpending(&pending);
    QVERIFY(!sigismember(&pending, SIGHUP));
  }

  // A command that installs no handler releases them: a held SIGHUP then takes its previous
  // disposition (here a handler of the test's own, standing in for the default).
  void releasedSignalsTakeTheirUsualCourse() {
    std::signal(SIGHUP, previousHandler);
    g_previousHandlerRan = 0;
    fl::InterruptSignals::holdUntilHandled();
    std::raise(SIGHUP);
    QCOMPARE(int(g_previousHandlerRan), 0);
    fl::InterruptSignals::releaseHeld();
    QCOMPARE(int(g_previousHandlerRan), 1);
    std::signal(SIGHUP, SIG_DFL);
  }
};

QTEST_APPLESS_MAIN(TestInterruptSignals)
#include "test_interrupt_signals.moc"
