// RunQueue: the window's runs, waiting and training, scheduled under the thread budget that
// the studies' scheduler uses (core/study/thread_budget.h): parallel runs x threads per run
// never exceed the cores unless the user asks for more, and a tiny model's run gets one thread.
// Single runs, resumed runs and the cells of a stored study wait in one line; a study's cell is
// claimed in the store only when a slot frees (StudyStore::claim), so a second process on the
// same study never trains it twice. A study's cells whose shapes agree wait and train as one
// batched group (#12, core/study/run_groups.h), one worker of the budget, each member still
// its own run with its own row; setBatchMode(off) trains every cell alone.
//
//   RunQueue queue(registry, store, views);
//   int64_t id = queue.add(experiment, config, "fourier N=12", &error);
//   queue.addStudy(studyId);
//   RunDeltas d = queue.drain();   // on the window's tick: events into the RunViews, new starts
//
// Threading: GUI thread only. Each run or group trains on its own thread (TrainingSession);
// finished sessions are closed (joined, their store writer flushed) on a helper thread, so the GUI
// thread never waits on disk.
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
#include "core/engine/runner.h"
#include "core/study/run_groups.h"
#include "core/study/thread_budget.h"

namespace fl::store {
class RunStore;
}

namespace fl::gui {

class TrainingSession;
class RunViews;
class SessionCloser;

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
  bool resume(int64_t runId, std::string* error);
  // Queues a stored study's unfinished cells; returns how many (0 and `error` when none).
  int64_t addStudy(int64_t studyId, std::string* error);
  void cancel(int64_t runId);
  void cancelStudy(int64_t studyId);
  void cancelAll();

  // 0: the thread budget decides how many train at once; otherwise that many.
  void setRequestedParallel(int runs);
  int requestedParallel() const { return m_requestedParallel; }
  // How addStudy groups a study's cells (auto unless set): later studies follow it.
  void setBatchMode(study::BatchMode mode) { m_batch = mode; }
  void setBatchStudies(bool on) { m_batch = study::BatchMode{on ? 0 : 1}; }  // auto or off
  study::BatchMode batchMode() const { return m_batch; }
  // The cores the budget shares (availableCores() unless set, e.g. by a test).
  void setCores(int cores) { m_cores = cores; }
  int cores() const;
  // The budget for what waits now, or for runs of `config` when nothing waits.
  study::ThreadBudget budget() const;
  study::ThreadBudget budgetFor(const Experiment& experiment, const nlohmann::json& config,
                                int64_t runs) const;

  // The runs that have a row, in the order they were queued (one row per run, also resumed).
  const std::vector<int64_t>& runs() const { return m_order; }
  bool isWaiting(int64_t runId) const;
  bool isTraining(int64_t runId) const;
  int trainingCount() const;  // runs, each member of a group counted
  int busyWorkers() const;    // what the budget counts: a group is one, however many it trains
  int64_t waitingCount() const { return static_cast<int64_t>(m_waiting.size()); }
  // Runs that finished training whose store writer is still closing: runEnded comes after.
  int closingCount() const { return static_cast<int>(m_closingStudies.size()); }
  int64_t studyOf(int64_t runId) const;
  // Whether any of the study's runs or unclaimed cells wait here, train now, or have trained
  // and wait for drain() and their store writer to close (their final status not stored yet).
  bool hasStudyWork(int64_t studyId) const;
  int threadsOf(int64_t runId) const;  // 0 when it is not training
  // Asks a training run for the probe; 0 when it is not training.
  int64_t requestProbe(int64_t runId, const std::map<std::string, double>& inputs);

  // Moves every training run's new events into its RunView, lets finished sessions go and
  // starts waiting runs in the free slots. Call it on the window's tick.
  RunDeltas drain();

 signals:
  void runQueued(int64_t runId);  // a new row
  // A run is over and the store holds its final status (after the writer closed).
  void runEnded(int64_t runId, int64_t studyId);
  void problem(const QString& what);

 private:
  struct Entry {
    int64_t runId = 0;
    int64_t studyId = 0;
    std::shared_ptr<const Experiment> experiment;
    nlohmann::json config;
    std::optional<ResumePoint> resume;
    std::unique_ptr<TrainingSession> session;
  };
  // A line in the queue: a recorded run, or a study's cells not claimed yet (one cell, or a
  // group whose shapes agree, trained as one).
  struct Waiting {
    int64_t runId = 0;
    int64_t studyId = 0;
    std::vector<int64_t> cells;
  };
  void startWaiting();
  bool startNext(const study::ThreadBudget& budget);
  bool claimCells(const Waiting& waiting, const study::ThreadBudget& budget);
  void startEntry(Entry& entry, int threads);
  void addRow(int64_t runId);
  int usefulThreadsOfNext() const;

  const ExperimentRegistry& m_registry;
  store::RunStore& m_store;
  RunViews& m_views;
  std::map<int64_t, Entry> m_entries;  // by run id
  std::deque<Waiting> m_waiting;
  std::vector<int64_t> m_order;
  std::map<int64_t, int> m_usefulThreads;  // per study: its first cell's config says
  int m_requestedParallel = 0;
  study::BatchMode m_batch{0};  // auto
  int m_cores = 0;
  std::multiset<int64_t> m_closingStudies;  // the study (or 0) of each run whose writer closes
  std::unique_ptr<SessionCloser> m_closer;
};

}  // namespace fl::gui
