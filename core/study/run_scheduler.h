// RunScheduler: the one scheduler of training runs, for the window and for the command line
// (and the cluster's tasks, which are the command line). It keeps a line of work, first come
// first served: recorded runs (new or resumed from a checkpoint) and the unfinished cells of
// stored studies. It trains the line under the thread budget (thread_budget.h): a worker is a
// run alone or a batched group of runs (run_groups.h), at most `parallel` workers train at once,
// and the budget is planned again for what waits each time a worker starts.
//
// A study's cell is claimed in the store only when a worker frees (StudyStore::claim), so two
// schedulers, in one process or two, never train a cell twice. How a claimed cell starts is
// cell_launch.h's: finished cells are kept, interrupted and cancelled runs resume from their
// newest checkpoint, failed ones and those without a checkpoint train again from step 0.
// Each member of a group is an ordinary run: its own StoreSink, checkpoints and status; it ends
// on its own (reported when it ends) while its group trains on, and resumes alone or in any
// other group.
//
//   RunScheduler scheduler(registry, store, options, &observer);
//   scheduler.addStudy(studyId, &error);
//   while (!scheduler.idle()) {
//     scheduler.poll();                     // observer.runEnded / runStarting / cellSkipped
//     scheduler.waitForChange(std::chrono::milliseconds(50));
//   }
//
// The window polls on its tick and streams each run's events into its views (streamEvents,
// takeEvents); the command line waits for a change between polls and reads each run's last
// metrics from its end.
//
// Threading: one driver thread calls every member function. Each worker trains on its own thread;
// a run's store writer is closed on the scheduler's helper thread, so poll() never waits on disk,
// and a run is reported ended only once the store holds its final status. The observer is called
// on the driver thread, from poll(), cancel() and add*() only, never while the scheduler iterates,
// so it may call back into the scheduler.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/engine/events.h"
#include "core/engine/experiment.h"
#include "core/engine/registry.h"
#include "core/engine/run_reporter.h"
#include "core/store/write_trouble.h"
#include "core/study/run_groups.h"
#include "core/study/study_run_name.h"  // cellLabel: the scheduler's callers label cells with it
#include "core/study/study_store.h"
#include "core/study/thread_budget.h"

namespace fl::store {
class RunStore;
}

namespace fl::study {

struct RunSchedulerOptions {
  int cores = 0;              // 0: availableCores()
  int requestedParallel = 0;  // 0: the budget decides how many train at once
  int requestedThreads = 0;   // 0: the budget decides the threads per run
  std::string device;         // "" keeps each study cell's configured device
  BatchMode batch;            // how a study's cells group (off unless set)
  // Whether `batch` was asked for by name: it then overrides the mode a study first trained
  // with (StudyRecord::batch), which otherwise holds for the rest of its runs.
  bool batchOverridesStudy = false;
  // Keep every event of each run for takeEvents() (the window's views). Off, only each run's
  // last metric values are kept (its end reports them).
  bool streamEvents = false;
  // How long a study cell's claim is tried again while another process holds the store's lock
  // (each try waits the store's busy timeout), unless `claimStop` is set meanwhile (a signal).
  // A lock of a few seconds more than that timeout stopped a whole study (`sweep run`, exit
  // 3). 0: tried once (the window, whose thread must not wait that long).
  std::chrono::milliseconds claimPatience{0};
  const std::atomic<int>* claimStop = nullptr;
};

// A run about to take its first step here.
struct RunStart {
  int64_t runId = 0;
  int64_t studyId = 0;  // 0: a run of no study
  int64_t cell = -1;
  std::string label;  // a study's cell: "dataset=gmm2 head=fourier seed=3"
  std::string how;    // a study's cell: "new", "resumed from step 31250 in a group of 4", ...
  int groupSize = 1;
  int threads = 1;
};

// A run over, its final status in the store; or refused before it started (started == false:
// a cell whose config no longer validates, a waiting run cancelled).
struct RunEnd {
  int64_t runId = 0;
  int64_t studyId = 0;
  int64_t cell = -1;
  std::string label;
  bool started = true;
  RunStatus status = RunStatus::Failed;  // as the store records it
  std::string message;
  // A write of the run that failed (its last events the store could not take, a checkpoint
  // the disk could not take): "run 7 (head=fourier seed=3): not written: its final status
  // (finished), ... (/data/runs.db: database or disk is full)". The run is left resumable;
  // the observer's problem() hears it too.
  std::string writeProblem;
  double seconds = 0;  // its wall time here
  std::map<std::string, double> finalMetrics;
  std::vector<Event> lastEvents;  // with streamEvents: those takeEvents() did not take yet
};

class SchedulerObserver {
 public:
  virtual ~SchedulerObserver() = default;
  // Before the run's first event: a driver may (re)load its view of the run from the store.
  virtual void runStarting(const RunStart&) {}
  virtual void runEnded(const RunEnd&) {}
  // A study's cell left out when its turn came: finished meanwhile, or trained elsewhere.
  virtual void cellSkipped(int64_t /*studyId*/, int64_t /*cell*/, CellClaim::Kind) {}
  // Something the driver should tell the user (a study's cell could not be claimed, a run's
  // write failed: after its runEnded, with its RunEnd::writeProblem).
  virtual void problem(const std::string&) {}
};

class RunScheduler {
 public:
  RunScheduler(const ExperimentRegistry& registry, store::RunStore& store,
               RunSchedulerOptions options = {}, SchedulerObserver* observer = nullptr);
  ~RunScheduler();  // cancels every run and waits for their threads and store writers

  // Queues a recorded run: `config` validated; `resume` continues it from a checkpoint.
  void addRun(int64_t runId, std::shared_ptr<const Experiment> experiment, nlohmann::json config,
              std::optional<ResumePoint> resume, int64_t studyId = 0);
  // Queues a stored study's unfinished cells not already waiting; how many (0 and `error` when
  // there is no such study, its experiment is unknown, or every run of it finished).
  int64_t addStudy(int64_t studyId, std::string* error);

  // A training run stops after its current step (a checkpoint, then cancelled); a waiting one
  // is recorded cancelled at once.
  void cancel(int64_t runId);
  void cancelStudy(int64_t studyId);  // its unclaimed cells leave the line; its runs cancel
  void cancelAll();
  // For a process about to exit without the threads of runs whose step never ended after a
  // cancel: each run still training is recorded cancelled with `why` (its step's work lost, its
  // last checkpoint kept), and every run's store writes are finished. Returns how many were
  // still training. The scheduler must then not be destroyed (its destructor would wait for
  // those threads): the caller lets it go and exits.
  int abandonStuckRuns(const std::string& why);
  // Runs whose last writes wait out another process's lock on the store give up at their next
  // try, their loss recorded as on any failed write: their process was asked to stop and has
  // no time left (a cluster's SIGKILL follows SIGTERM within seconds; a person quits).
  void stopWaitingForStore();

  // Reports the runs whose store closed, then starts waiting work in the free slots.
  void poll();
  // Waits until a run ends or its store closes, or `timeout` passes.
  void waitForChange(std::chrono::milliseconds timeout);

  void setRequestedParallel(int runs);
  int requestedParallel() const { return m_options.requestedParallel; }
  // While held, queued work waits: runs added together (a comparison's arms) share one budget,
  // where the first, started alone, took every core. Holds nest; the last release starts them.
  void holdStarts() { ++m_holds; }
  void releaseStarts();
  void setBatchMode(BatchMode mode) { m_options.batch = mode; }
  BatchMode batchMode() const { return m_options.batch; }
  // The mode a study's cells group by here: studyBatchMode of its record and the options.
  BatchMode batchModeOf(int64_t studyId) const;
  void setCores(int cores) { m_options.cores = cores; }
  int cores() const;

  // The budget for what waits now and what trains (each group one worker).
  ThreadBudget budget() const;
  // The budget for `workers` workers of `config`'s runs.
  ThreadBudget budgetFor(const Experiment& experiment, const nlohmann::json& config,
                         int64_t workers) const;
  // The budget for `workers` workers of a study's unfinished cells (its first one's config says
  // how many threads a run can use).
  ThreadBudget budgetForStudy(int64_t studyId, int64_t workers) const;
  // The groups a study's unfinished cells would wait in (one cell each with batching off).
  std::vector<std::vector<int64_t>> planStudyGroups(int64_t studyId) const;

  bool idle() const;  // nothing waits, trains or closes
  bool isWaiting(int64_t runId) const;
  bool isTraining(int64_t runId) const;
  int trainingCount() const;  // runs, each member of a group counted
  int busyWorkers() const;    // what the budget counts: a group is one, however many it trains
  int threadsInUse() const;   // the threads of the workers still training
  int64_t waitingCount() const { return static_cast<int64_t>(m_line.size()); }  // places
  int64_t waitingRuns() const;  // recorded runs and study cells in the line
  int closingCount() const;     // runs done training whose end is not reported yet
  // The runs whose store writes fail now (their batches wait and are tried again), and why;
  // with lostWrites, what a WriteTroubleWatch needs to say so once.
  store::WriteTrouble writeTrouble() const;
  // The runs reported ended whose last writes the store did not take, in the order they ended.
  const std::vector<int64_t>& lostWrites() const { return m_lostWrites; }
  int64_t studyOf(int64_t runId) const;
  // Whether any of the study's runs or cells wait here, train, or wait for their end's report.
  bool hasStudyWork(int64_t studyId) const;
  int threadsOf(int64_t runId) const;  // 0 when it is not training
  // Asks a training run for the probe (its answer comes among its events); 0 when it cannot.
  int64_t requestProbe(int64_t runId, const std::map<std::string, double>& inputs);
  // With streamEvents: the run's events since the last call.
  std::vector<Event> takeEvents(int64_t runId);

 private:
  // studyBatchMode of a study's recorded mode and these options (the record already read).
  BatchMode batchModeFor(const std::string& recorded) const;
  // A recorded run waiting for a worker.
  struct RecordedRun {
    std::shared_ptr<const Experiment> experiment;
    nlohmann::json config;
    std::optional<ResumePoint> resume;
    int64_t studyId = 0;
  };
  class ChangeSignal;
  class RunTracker;
  struct Member;
  struct Worker;
  class Closer;
  // A place in the line: a recorded run, or a study's cells not claimed yet (one cell, or a
  // group whose shapes agree, trained as one worker).
  struct Waiting {
    int64_t runId = 0;
    int64_t studyId = 0;
    std::vector<int64_t> cells;
  };

  void startWaiting();
  void startNext(const ThreadBudget& budget);
  void startRecorded(int64_t runId, const ThreadBudget& budget);
  void startCells(const Waiting& waiting, const ThreadBudget& budget);
  // StudyStore::claim, tried again while another process's lock refuses it (claimPatience).
  CellClaim claimWaitingOutLocks(StudyStore& studies, int64_t studyId, int64_t cell);
  std::shared_ptr<Member> makeMember(int64_t runId, int64_t studyId, int64_t cell,
                                     std::string label);
  void startWorker(std::shared_ptr<Worker> worker, std::vector<RunStart> starts);
  void handOverDone();
  std::vector<RunEnd> takeClosed();
  int usefulThreadsOfNext() const;
  // The sum of `weigh` over the workers still training a member (a group is one worker).
  int sumOverBusyWorkers(const std::function<int(const Worker&)>& weigh) const;
  void notify(const std::vector<RunEnd>& ends);

  const ExperimentRegistry& m_registry;
  store::RunStore& m_store;
  RunSchedulerOptions m_options;
  SchedulerObserver* m_observer;
  std::unique_ptr<ChangeSignal> m_changed;  // before everything that raises it
  uint64_t m_seenChanges = 0;
  std::deque<Waiting> m_line;
  std::map<int64_t, RecordedRun> m_recorded;             // waiting recorded runs, by id
  std::map<int64_t, std::shared_ptr<Member>> m_members;  // training or closing, by run id
  std::vector<int64_t> m_lostWrites;
  std::vector<std::shared_ptr<Worker>> m_workers;  // with a member still training
  std::map<int64_t, int> m_usefulThreads;          // per study: its first cell says
  bool m_starting = false;                         // startWaiting() is on the stack
  int m_holds = 0;                                 // holdStarts() not released yet
  std::unique_ptr<Closer> m_closer;
};

}  // namespace fl::study
