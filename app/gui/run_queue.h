// RunQueue: the window's side of the one scheduler (core/study/run_scheduler.h). The window
// feeds it single runs, resumed runs and stored studies; the scheduler decides the order, the
// claims, the batched groups and the thread budget exactly as it does for `sweep run`. Here,
// each run gets its row and its RunView: a study's cell is (re)loaded from the store when the
// scheduler starts it, each run's events move into its view on the window's tick, and a run's
// end is signalled once the store holds its final status.
//
//   RunQueue queue(registry, store, views);
//   int64_t id = queue.add(experiment, config, "fourier N=12", &error);
//   queue.addStudy(studyId);
//   RunDeltas d = queue.drain();   // on the window's tick: events into the RunViews, new starts
//
// Threading: GUI thread only. Runs train on their own threads and their store writers close on
// the scheduler's helper thread, so the GUI thread never waits on training or on disk.
#pragma once

#include <QObject>
#include <QString>

#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "app/gui/run_view.h"
#include "core/engine/registry.h"
#include "core/store/run_store.h"
#include "core/study/run_groups.h"
#include "core/study/run_scheduler.h"
#include "core/study/thread_budget.h"

namespace fl::gui {

class RunViews;

class RunQueue : public QObject {
  Q_OBJECT

 public:
  RunQueue(const ExperimentRegistry& registry, store::RunStore& store, RunViews& views,
           QObject* parent = nullptr);
  ~RunQueue() override;  // cancels every run and waits for their threads

  // Records a new run of the (validated) config and queues it: its id, or 0 and `error`.
  int64_t add(std::shared_ptr<const Experiment> experiment, const nlohmann::json& config,
              const std::string& name, std::string* error);
  // Continues an interrupted or cancelled run from its newest checkpoint, in its own row.
  // `said`: where it continues and what it trains again (store::describeResume), and any note.
  bool resume(int64_t runId, std::string* error, std::string* said = nullptr);
  // Rows for stored runs opened in the window (from History, a study, --open), so that each
  // has its eye, colour and verdict beside the runs trained here. They replace the rows of the
  // runs opened before, which leave unless they trained here since.
  void setOpened(const std::vector<int64_t>& runIds);
  bool isOpenedOnly(int64_t runId) const { return m_openedOnly.count(runId) > 0; }
  // Queues a stored study's unfinished cells; returns how many (0 and `error` when none).
  int64_t addStudy(int64_t studyId, std::string* error);
  void cancel(int64_t runId);
  void cancelStudy(int64_t studyId);
  void cancelAll();
  // From a window's close on: nothing new is queued (add, resume and addStudy refuse, saying
  // so), or the close, which waits for the queue to be idle, would wait for it too.
  void closeToNewWork() { m_closing = true; }
  // The runs whose last writes wait out another process's lock give them up (their loss
  // recorded): a window quitting without waiting (RunScheduler::stopWaitingForStore).
  void stopWaitingForStore() { m_scheduler->stopWaitingForStore(); }
  const ExperimentRegistry& registry() const { return m_registry; }

  // Runs added while one of these lives start together, under one budget (a comparison's
  // arms: the first, started alone, took every core).
  class StartsHeld {
   public:
    explicit StartsHeld(RunQueue& queue) : m_queue(queue) { m_queue.m_scheduler->holdStarts(); }
    ~StartsHeld() { m_queue.m_scheduler->releaseStarts(); }
    StartsHeld(const StartsHeld&) = delete;
    StartsHeld& operator=(const StartsHeld&) = delete;

   private:
    RunQueue& m_queue;
  };

  // 0: the thread budget decides how many train at once; otherwise that many.
  void setRequestedParallel(int runs) { m_scheduler->setRequestedParallel(runs); }
  int requestedParallel() const { return m_scheduler->requestedParallel(); }
  // How addStudy groups a study's cells (auto unless set): later studies follow it.
  void setBatchMode(study::BatchMode mode) { m_scheduler->setBatchMode(mode); }
  void setBatchStudies(bool on) { setBatchMode(study::BatchMode{on ? 0 : 1}); }  // auto or off
  study::BatchMode batchMode() const { return m_scheduler->batchMode(); }
  // The cores the budget shares (availableCores() unless set, e.g. by a test).
  void setCores(int cores) { m_scheduler->setCores(cores); }
  int cores() const { return m_scheduler->cores(); }
  // The budget for what waits now, or for runs of `config` when nothing waits.
  study::ThreadBudget budget() const { return m_scheduler->budget(); }
  study::ThreadBudget budgetFor(const Experiment& experiment, const nlohmann::json& config,
                                int64_t runs) const {
    return m_scheduler->budgetFor(experiment, config, runs);
  }

  // The runs that have a row, in the order they were queued or opened (one row per run).
  const std::vector<int64_t>& runs() const { return m_order; }
  bool isWaiting(int64_t runId) const { return m_scheduler->isWaiting(runId); }
  bool isTraining(int64_t runId) const { return m_scheduler->isTraining(runId); }
  int trainingCount() const { return m_scheduler->trainingCount(); }
  int busyWorkers() const { return m_scheduler->busyWorkers(); }
  int64_t waitingCount() const { return m_scheduler->waitingCount(); }
  // Runs that finished training whose store writer is still closing: runEnded comes after.
  int closingCount() const { return m_scheduler->closingCount(); }
  bool idle() const { return m_scheduler->idle(); }  // nothing waits, trains or closes
  int64_t studyOf(int64_t runId) const;
  // Whether the run is still the queue's: waiting, training, or done training with its store
  // writer still closing (its rows are still written).
  bool isLive(int64_t runId) const;
  // Whether the run ended here with writes the store could not take (a full disk): this
  // window's view of it says more than the store, so it is not read again from there.
  bool endedUnwritten(int64_t runId) const { return m_endedUnwritten.count(runId) > 0; }
  // Deleted runs leave: their rows go (rowAboutToBeForgotten, then rowForgotten, per row). A
  // live run is kept, since its writer still needs its rows.
  void forget(const std::vector<int64_t>& runIds);
  // Whether any of the study's runs or unclaimed cells wait here, train now, or have trained
  // and wait for drain() and their store writer to close (their final status not stored yet).
  bool hasStudyWork(int64_t studyId) const { return m_scheduler->hasStudyWork(studyId); }
  int threadsOf(int64_t runId) const { return m_scheduler->threadsOf(runId); }
  // Asks a training run for the probe; 0 when it is not training.
  int64_t requestProbe(int64_t runId, const std::map<std::string, double>& inputs) {
    return m_scheduler->requestProbe(runId, inputs);
  }

  // Moves every training run's new events into its RunView, reports the runs that ended and
  // starts waiting runs in the free slots. Call it on the window's tick.
  RunDeltas drain();

 signals:
  void runQueued(int64_t runId);  // a new row
  // A run starts training (a new one, or one resumed, whose row was there before).
  void runStarting(int64_t runId);
  // A run is over and the store holds its final status (after the writer closed).
  void runEnded(int64_t runId, int64_t studyId);
  // Around the removal of the row at `row` of runs(), for the tables that show them.
  void rowAboutToBeForgotten(int row);
  void rowForgotten(int row);
  void problem(const QString& what);
  // The store's refusal of the writes of runs still training, as it stands (`failing`: their
  // points wait in memory, tried again), or its end: `what` then says the writes were taken
  // again, or is empty where the runs ended with them lost (their ends say so).
  void storeWrites(const QString& what, bool failing);

 private:
  class SchedulerEvents;  // the scheduler's observer: calls the three below
  void onRunStarting(const study::RunStart& start);
  void onRunEnded(const study::RunEnd& end);
  void onProblem(const std::string& what);
  void addRow(int64_t runId, int64_t studyId);
  bool refuseWhenClosing(std::string* error) const;
  // A resume the Runner refused (ResumeRefused): the run's record put back as it was.
  void putBackIfNotResumed(const study::RunEnd& end, RunView* view);
  void removeRow(int64_t runId);

  const ExperimentRegistry& m_registry;
  store::RunStore& m_store;
  RunViews& m_views;
  std::vector<int64_t> m_order;
  std::map<int64_t, int64_t> m_studyOfRow;  // every run with a row: its study, or 0
  std::set<int64_t> m_openedOnly;           // rows of opened runs that did not train here
  std::set<int64_t> m_started;              // started, their end not reported yet
  std::set<int64_t> m_endedUnwritten;       // ended with writes the store lacks
  bool m_closing = false;                   // closeToNewWork() was called
  std::map<int64_t, store::RunRecord> m_beforeResume;  // resumed runs' records, until they end
  RunDeltas* m_draining = nullptr;                     // drain()'s deltas while it polls
  store::WriteTroubleWatch m_writes;
  store::WriteTrouble m_shownTrouble;  // what storeWrites last said
  std::unique_ptr<SchedulerEvents> m_events;
  std::unique_ptr<study::RunScheduler> m_scheduler;  // last: its runs report to the rest
};

}  // namespace fl::gui
