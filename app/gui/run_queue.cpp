#include "app/gui/run_queue.h"

#include <algorithm>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <set>
#include <thread>

#include "app/gui/group_session.h"
#include "app/gui/run_session.h"
#include "app/gui/run_views.h"
#include "core/engine/build_info.h"
#include "core/engine/config.h"
#include "core/store/resume_plan.h"
#include "core/store/run_store.h"
#include "core/study/cell_launch.h"
#include "core/study/study_scheduler.h"
#include "core/study/study_store.h"

namespace fl::gui {

// Closes finished sessions on its own thread: joining a Runner is quick once it is done, but
// closing its StoreSink waits for the writer's last transaction. `closed` runs on this thread
// once the store holds everything the session wrote.
class SessionCloser {
 public:
  SessionCloser() : m_thread([this] { loop(); }) {}
  ~SessionCloser() {
    {
      std::lock_guard<std::mutex> lock(m_mutex);
      m_stop = true;
    }
    m_wake.notify_one();
    m_thread.join();
  }
  void close(std::unique_ptr<TrainingSession> session, std::function<void()> closed = {}) {
    {
      std::lock_guard<std::mutex> lock(m_mutex);
      m_sessions.push_back({std::move(session), std::move(closed)});
    }
    m_wake.notify_one();
  }

 private:
  void loop() {
    std::unique_lock<std::mutex> lock(m_mutex);
    while (true) {
      m_wake.wait(lock, [this] { return m_stop || !m_sessions.empty(); });
      while (!m_sessions.empty()) {
        auto closing = std::move(m_sessions.front());
        m_sessions.pop_front();
        lock.unlock();
        closing.session.reset();
        if (closing.closed) closing.closed();
        lock.lock();
      }
      if (m_stop) return;
    }
  }

  std::mutex m_mutex;
  std::condition_variable m_wake;
  struct Closing {
    std::unique_ptr<TrainingSession> session;
    std::function<void()> closed;
  };
  std::deque<Closing> m_sessions;
  bool m_stop = false;
  std::thread m_thread;  // last: started once the rest exists
};

RunQueue::RunQueue(const ExperimentRegistry& registry, store::RunStore& store, RunViews& views,
                   QObject* parent)
    : QObject(parent),
      m_registry(registry),
      m_store(store),
      m_views(views),
      m_closer(std::make_unique<SessionCloser>()) {}

RunQueue::~RunQueue() {
  for (auto& [id, entry] : m_entries)
    if (entry.session) entry.session->cancel();
  m_entries.clear();  // joins the training threads, flushes the store
  m_closer.reset();
}

int RunQueue::cores() const { return m_cores > 0 ? m_cores : study::availableCores(); }

void RunQueue::setRequestedParallel(int runs) {
  m_requestedParallel = std::max(0, runs);
  startWaiting();
}

study::ThreadBudget RunQueue::budgetFor(const Experiment& experiment, const nlohmann::json& config,
                                        int64_t runs) const {
  return study::planThreadBudget(cores(), runs, experiment.usefulThreads(config),
                                 m_requestedParallel);
}

int RunQueue::usefulThreadsOfNext() const {
  if (m_waiting.empty()) return 0;
  const Waiting& next = m_waiting.front();
  if (next.runId) {
    auto it = m_entries.find(next.runId);
    return it == m_entries.end() ? 0 : it->second.experiment->usefulThreads(it->second.config);
  }
  auto it = m_usefulThreads.find(next.studyId);
  return it == m_usefulThreads.end() ? 0 : it->second;
}

study::ThreadBudget RunQueue::budget() const {
  const int64_t runs = static_cast<int64_t>(m_waiting.size()) + busyWorkers();
  return study::planThreadBudget(cores(), runs, usefulThreadsOfNext(), m_requestedParallel);
}

void RunQueue::addRow(int64_t runId) {
  if (std::find(m_order.begin(), m_order.end(), runId) != m_order.end()) return;
  m_order.push_back(runId);
  emit runQueued(runId);
}

int64_t RunQueue::add(std::shared_ptr<const Experiment> experiment, const nlohmann::json& config,
                      const std::string& name, std::string* error) {
  int64_t id = 0;
  try {
    id = m_store.createRun({experiment->name(), name, config, {}, currentBuildInfo().toJson()});
  } catch (const std::exception& e) {
    if (error) *error = std::string("cannot record the run: ") + e.what();
    return 0;
  }
  m_views.add(std::make_unique<RunView>(id, experiment->name(), name, config));
  Entry& entry = m_entries[id];
  entry.runId = id;
  entry.experiment = std::move(experiment);
  entry.config = config;
  m_waiting.push_back({id, 0, {}});
  addRow(id);
  startWaiting();
  return id;
}

bool RunQueue::resume(int64_t runId, std::string* error) {
  if (isWaiting(runId) || isTraining(runId)) {
    if (error) *error = "run " + std::to_string(runId) + " is still in the queue or training";
    return false;
  }
  store::ResumePlan plan;
  try {
    plan = store::prepareResume(m_registry, m_store, runId);
  } catch (const std::exception& e) {
    if (error) *error = e.what();
    return false;
  }
  if (!plan.ok()) {
    if (error) *error = plan.error;
    return false;
  }
  // Its past as the store now has it (rewound to the checkpoint); the session appends the rest.
  m_views.reload(runId);
  Entry& entry = m_entries[runId];
  if (entry.session) m_closer->close(std::move(entry.session));  // the stopped one
  entry.runId = runId;
  entry.experiment = plan.experiment;
  entry.config = plan.config.values;
  // A run killed before its first checkpoint trains again from step 0 (same config and seed).
  entry.resume.reset();
  if (!plan.fromStart) entry.resume = plan.point;
  m_waiting.push_back({runId, entry.studyId, {}});
  addRow(runId);
  startWaiting();
  return true;
}

int64_t RunQueue::addStudy(int64_t studyId, std::string* error) {
  std::vector<std::vector<int64_t>> groups;
  int64_t queued = 0;
  try {
    study::StudyStore studies(m_store);
    const auto record = studies.study(studyId);
    if (!record) throw std::runtime_error("there is no study " + std::to_string(studyId));
    auto experiment = m_registry.find(record->experiment);
    if (!experiment)
      throw std::runtime_error("study " + std::to_string(studyId) + " is of experiment '" +
                               record->experiment + "', unknown to this build");
    std::vector<int64_t> cells;
    for (int64_t cell : studies.unfinishedCells(studyId)) {
      const bool already = std::any_of(m_waiting.begin(), m_waiting.end(), [&](const Waiting& w) {
        return w.studyId == studyId &&
               std::find(w.cells.begin(), w.cells.end(), cell) != w.cells.end();
      });
      if (!already) cells.push_back(cell);
    }
    if (cells.empty()) {
      if (error && studies.unfinishedCells(studyId).empty())
        *error = "every run of study " + std::to_string(studyId) + " finished";
      return 0;
    }
    const nlohmann::json first = studies.cellConfig(studyId, cells[0]);
    m_usefulThreads[studyId] = experiment->usefulThreads(first);
    // As `sweep run` groups them: auto splits groups until every worker of the budget has one.
    const int workers = budgetFor(*experiment, first, static_cast<int64_t>(cells.size())).parallel;
    groups = study::planCellGroups(studies, *experiment, studyId, cells, m_batch, workers, "");
    queued = static_cast<int64_t>(cells.size());
  } catch (const std::exception& e) {
    if (error) *error = e.what();
    return 0;
  }
  for (auto& group : groups) m_waiting.push_back({0, studyId, std::move(group)});
  startWaiting();
  return queued;
}

void RunQueue::cancel(int64_t runId) {
  auto it = m_entries.find(runId);
  if (it == m_entries.end()) return;
  if (it->second.session && !it->second.session->finished()) {
    it->second.session->cancel();  // ends with a cancelled status event
    return;
  }
  auto waiting = std::find_if(m_waiting.begin(), m_waiting.end(),
                              [&](const Waiting& w) { return w.runId == runId; });
  if (waiting == m_waiting.end()) return;
  m_waiting.erase(waiting);
  // A run that never started has no writer to record it: say so here, or the next start
  // would find it queued by a dead process and call it interrupted.
  const std::string message = "cancelled before it started";
  try {
    m_store.finishRun(runId, RunStatus::Cancelled, message);
  } catch (const std::exception& e) {
    emit problem(QString("Cannot record the cancelled run: %1").arg(e.what()));
  }
  if (auto* view = m_views.find(runId)) view->setStatus(RunStatus::Cancelled, message);
  emit runEnded(runId, it->second.studyId);
}

void RunQueue::cancelStudy(int64_t studyId) {
  m_waiting.erase(
      std::remove_if(m_waiting.begin(), m_waiting.end(),
                     [&](const Waiting& w) { return w.studyId == studyId && !w.cells.empty(); }),
      m_waiting.end());
  for (auto& [id, entry] : m_entries)
    if (entry.studyId == studyId) cancel(id);
}

void RunQueue::cancelAll() {
  m_waiting.erase(std::remove_if(m_waiting.begin(), m_waiting.end(),
                                 [](const Waiting& w) { return !w.cells.empty(); }),
                  m_waiting.end());
  std::vector<int64_t> ids;
  for (const auto& [id, entry] : m_entries) ids.push_back(id);
  for (auto id : ids) cancel(id);
}

bool RunQueue::isWaiting(int64_t runId) const {
  return std::any_of(m_waiting.begin(), m_waiting.end(),
                     [&](const Waiting& w) { return w.runId == runId; });
}

bool RunQueue::isTraining(int64_t runId) const {
  auto it = m_entries.find(runId);
  return it != m_entries.end() && it->second.session && !it->second.session->finished();
}

int RunQueue::trainingCount() const {
  int n = 0;
  for (const auto& [id, entry] : m_entries) n += entry.session && !entry.session->finished();
  return n;
}

int RunQueue::busyWorkers() const {
  std::set<const void*> workers;
  for (const auto& [id, entry] : m_entries)
    if (entry.session && !entry.session->finished()) workers.insert(entry.session->worker());
  return static_cast<int>(workers.size());
}

int64_t RunQueue::studyOf(int64_t runId) const {
  auto it = m_entries.find(runId);
  return it == m_entries.end() ? 0 : it->second.studyId;
}

bool RunQueue::hasStudyWork(int64_t studyId) const {
  if (m_closingStudies.count(studyId)) return true;  // its status is not in the store yet
  if (std::any_of(m_waiting.begin(), m_waiting.end(),
                  [&](const Waiting& w) { return w.studyId == studyId; }))
    return true;
  // A session not yet handed to the closer (drain) counts too, trained to its end or not.
  return std::any_of(m_entries.begin(), m_entries.end(), [&](const auto& item) {
    return item.second.studyId == studyId && item.second.session != nullptr;
  });
}

int RunQueue::threadsOf(int64_t runId) const {
  auto it = m_entries.find(runId);
  return isTraining(runId) ? it->second.session->threads() : 0;
}

int64_t RunQueue::requestProbe(int64_t runId, const std::map<std::string, double>& inputs) {
  if (!isTraining(runId)) return 0;
  return m_entries.at(runId).session->requestProbe(inputs);
}

void RunQueue::startEntry(Entry& entry, int threads) {
  RunnerOptions options;
  options.threads = threads;
  options.resume = entry.resume;
  auto session = std::make_unique<RunSession>(entry.experiment, entry.config, m_store.path(),
                                              entry.runId, options);
  session->start();
  entry.session = std::move(session);
}

bool RunQueue::claimCells(const Waiting& waiting, const study::ThreadBudget& budget) {
  study::StudyStore studies(m_store);
  const auto results = studies.results(waiting.studyId);
  const auto record = studies.study(waiting.studyId);
  auto experiment = record ? m_registry.find(record->experiment) : nullptr;
  if (!experiment) return false;
  // Claimed one by one: a cell finished or training elsewhere meanwhile is left out.
  std::vector<int64_t> claimed;
  for (int64_t cell : waiting.cells) {
    if (cell < 0 || cell >= static_cast<int64_t>(results.size())) continue;
    const study::CellClaim claim = studies.claim(waiting.studyId, cell);
    if (claim.kind == study::CellClaim::Kind::Done ||
        claim.kind == study::CellClaim::Kind::RunningElsewhere)
      continue;
    const study::CellLaunch launch =
        study::prepareCellLaunch(m_store, studies, *experiment, waiting.studyId, cell, claim, "");
    auto* view = m_views.reload(claim.runId);
    const auto& result = results[static_cast<size_t>(cell)];
    if (view && view->name().empty()) view->setName(study::cellLabel(result.axes, result.seed));
    Entry& entry = m_entries[claim.runId];
    if (entry.session) m_closer->close(std::move(entry.session));
    entry.runId = claim.runId;
    entry.studyId = waiting.studyId;
    entry.experiment = experiment;
    entry.config = launch.config;
    entry.resume = launch.resume;
    addRow(claim.runId);
    if (!launch.ok()) {  // prepareCellLaunch recorded it failed
      if (view) view->setStatus(RunStatus::Failed, launch.error);
      emit runEnded(claim.runId, waiting.studyId);
      continue;
    }
    claimed.push_back(claim.runId);
  }
  if (claimed.empty()) return false;
  if (claimed.size() == 1) {
    startEntry(m_entries.at(claimed[0]), budget.threadsPerRun);
    return true;
  }
  std::vector<GroupMemberLaunch> members;
  for (int64_t runId : claimed) {
    const Entry& entry = m_entries.at(runId);
    members.push_back({runId, entry.config, entry.resume});
  }
  auto sessions =
      startGroupSessions(experiment, m_store.path(), std::move(members), budget.threadsPerRun);
  for (size_t i = 0; i < claimed.size(); ++i)
    m_entries.at(claimed[i]).session = std::move(sessions[i]);
  return true;
}

bool RunQueue::startNext(const study::ThreadBudget& budget) {
  const Waiting next = m_waiting.front();
  m_waiting.pop_front();
  if (!next.cells.empty()) {
    try {
      return claimCells(next, budget);
    } catch (const std::exception& e) {
      emit problem(QString("Cannot start a run of study %1: %2").arg(next.studyId).arg(e.what()));
      return false;
    }
  }
  auto it = m_entries.find(next.runId);
  if (it == m_entries.end()) return false;
  startEntry(it->second, budget.threadsPerRun);
  return true;
}

void RunQueue::startWaiting() {
  // One budget for the line as it stands: it decides how many train and with how many threads.
  while (!m_waiting.empty()) {
    const study::ThreadBudget plan = budget();
    if (busyWorkers() >= plan.parallel) return;
    startNext(plan);
  }
}

RunDeltas RunQueue::drain() {
  RunDeltas deltas;
  for (auto& [id, entry] : m_entries) {
    if (!entry.session) continue;
    // Finished before its events are taken: then they include its last (terminal) one.
    const bool finished = entry.session->finished();
    auto events = entry.session->takeEvents();
    if (!events.empty())
      if (auto* view = m_views.find(id)) {
        RunDelta delta = view->apply(std::move(events));
        if (!delta.empty()) deltas[id] = std::move(delta);
      }
    if (finished) {
      // runEnded waits for the store: its listeners read the run's final status from there.
      const int64_t studyId = entry.studyId;
      m_closingStudies.insert(studyId);
      m_closer->close(std::move(entry.session), [this, id = id, studyId] {
        QMetaObject::invokeMethod(
            this,
            [this, id, studyId] {
              m_closingStudies.erase(m_closingStudies.find(studyId));
              emit runEnded(id, studyId);
            },
            Qt::QueuedConnection);
      });
    }
  }
  startWaiting();
  return deltas;
}

}  // namespace fl::gui
