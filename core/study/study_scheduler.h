// StudyScheduler: trains a stored study's unfinished cells headless, for the command line and
// the cluster's tasks: the one RunScheduler (run_scheduler.h: claims, batching, the thread
// budget, resume) driven until the study has nothing left to train here, its runs' starts and
// ends turned into progress (counts, elapsed time, an estimate of what is left).
//
//   StudyScheduler scheduler(registry, storePath, studyId, options);
//   StudyOutcome outcome = scheduler.run([](const StudyRunReport& r, const StudyProgress& p)
//   {...});
//
// Threading: run() blocks the calling thread, which only claims, starts and collects runs
// (each worker trains on its own thread). cancel() may be called from any thread, e.g. after
// a signal: every active run stops after its current step, saves a checkpoint and ends
// cancelled, so `sweep resume` continues it.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>

#include "core/engine/registry.h"
#include "core/study/run_groups.h"
#include "core/study/run_scheduler.h"
#include "core/study/thread_budget.h"

namespace fl::study {

// The scheduler's options (--parallel, --threads, --device, --batch: off unless asked, the CLI's
// --batch is auto), and what stops a headless study.
struct StudySchedulerOptions : RunSchedulerOptions {
  // When it becomes non-zero (e.g. the number of a signal that arrived), run() cancels as if
  // cancel() had been called. Read at least every 50 ms.
  const std::atomic<int>* stopFlag = nullptr;
  // After a stop, how long the runs' steps in progress may take to end; past it (or once
  // stopCount exceeds 1: a second signal) run() records the runs still training cancelled and
  // returns with StudyOutcome::abandoned set, and the caller must exit without joining their
  // threads. Negative: wait for them however long.
  std::chrono::milliseconds stopGrace{-1};
  const std::atomic<int>* stopCount = nullptr;
};

// One run that started or ended, for the progress display.
struct StudyRunReport {
  bool ended = false;
  int64_t cell = 0;
  int64_t runId = 0;
  std::string label;  // "dataset=gmm2 head=fourier seed=3"
  std::string how;    // started: "new", "resumed from step 31250", "restarted (was failed)"
  RunStatus status = RunStatus::Queued;  // ended: finished, failed, cancelled, interrupted
  std::string message;
  std::string writeProblem;  // ended: what of it was not written (RunEnd::writeProblem)
  double seconds = 0;        // ended: its wall time in this process
  std::map<std::string, double> finalMetrics;
};

struct StudyProgress {
  int64_t total = 0;      // cells in the study
  int64_t finished = 0;   // finished, including before this process
  int64_t failed = 0;     // ended failed in this process
  int64_t cancelled = 0;  // ended cancelled in this process
  // Ended interrupted in this process, resumable: a resume refused (its corpus changed) or an
  // end the store could not take. Counted apart from the failed: nothing of the run is wrong.
  int64_t interrupted = 0;
  int64_t elsewhere = 0;  // trained by another live process
  int64_t active = 0;     // training now in this process
  double elapsedSeconds = 0;
  std::optional<double> etaSeconds;  // for the cells still to train here
};

struct StudyOutcome {
  StudyProgress progress;
  ThreadBudget budget;
  bool cancelled = false;
  // Runs whose step had not ended within the stop grace, recorded cancelled: when non-zero
  // their threads are still running, and the process must exit (std::_Exit) rather than return.
  int abandoned = 0;
  std::string abandonedWhy;  // "SIGTERM: its step in progress had not ended 20 s after ..."
};

class StudyScheduler {
 public:
  StudyScheduler(const ExperimentRegistry& registry, std::string storePath, int64_t studyId,
                 StudySchedulerOptions options = {});

  using Reporter = std::function<void(const StudyRunReport&, const StudyProgress&)>;
  // What the user should hear while runs train: the store refusing their writes, and taking
  // them again (store/write_trouble.h), said once each.
  using Notice = std::function<void(const std::string&)>;
  // Throws store::StoreError when the store cannot be read or written, a run's write included
  // (its message names every such run and what was not written; the study stops as a cancel
  // stops it, every run resumable).
  StudyOutcome run(const Reporter& report, const Notice& notice = {});
  void cancel() { m_cancel = true; }

  // The budget run() starts with for `cellsToTrain` cells (or groups) of this study.
  ThreadBudget budgetFor(int64_t cellsToTrain) const;
  // The groups run() will train the unfinished cells in (each of one cell with batching off).
  std::vector<std::vector<int64_t>> planGroups() const;

 private:
  const ExperimentRegistry& m_registry;
  std::string m_storePath;
  int64_t m_studyId;
  StudySchedulerOptions m_options;
  std::atomic<bool> m_cancel{false};

  RunSchedulerOptions schedulerOptions() const { return m_options; }  // without the stop flag
  bool stopGraceOver(std::chrono::steady_clock::time_point cancelledAt) const;
  std::string abandonReason(std::chrono::steady_clock::time_point cancelledAt) const;
};

}  // namespace fl::study
