#include "core/study/run_scheduler.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <set>
#include <thread>

#include "core/engine/event_queue.h"
#include "core/engine/group_runner.h"
#include "core/engine/resume_refused.h"
#include "core/engine/runner.h"
#include "core/store/run_store.h"
#include "core/store/store_sink.h"
#include "core/store/store_writer.h"
#include "core/study/cell_launch.h"

namespace fl::study {

namespace {

using Clock = std::chrono::steady_clock;

double secondsSince(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

}  // namespace

// Counts what the driver may want to look at (a run ended, a store closed) and wakes a
// waitForChange() at once.
class RunScheduler::ChangeSignal {
 public:
  void raise() {
    {
      std::lock_guard<std::mutex> lock(m_mutex);
      ++m_changes;
    }
    m_changed.notify_all();
  }
  void waitPast(uint64_t& seen, std::chrono::milliseconds timeout) {
    std::unique_lock<std::mutex> lock(m_mutex);
    m_changed.wait_for(lock, timeout, [&] { return m_changes != seen; });
    seen = m_changes;
  }

 private:
  std::mutex m_mutex;
  std::condition_variable m_changed;
  uint64_t m_changes = 0;
};

// Keeps what a run's end reports (its last metric values, its terminal status) and raises the
// change signal when the run ends, so a free slot is refilled at once.
class RunScheduler::RunTracker : public EventSink {
 public:
  explicit RunTracker(ChangeSignal& changed) : m_changed(changed) {}

  void onEvent(const Event& event) override {
    if (auto* m = std::get_if<MetricEvent>(&event)) {
      std::lock_guard<std::mutex> lock(m_mutex);
      m_last[m->key] = m->value;
    } else if (auto* s = std::get_if<StatusEvent>(&event)) {
      if (!isTerminal(s->status)) return;
      {
        std::lock_guard<std::mutex> lock(m_mutex);
        m_status = s->status;
        m_message = s->message;
        m_fileWriteFailed = s->fileWriteFailed;
      }
      m_changed.raise();
    }
  }
  std::map<std::string, double> last() const {
    std::lock_guard<std::mutex> lock(m_mutex);
    return m_last;
  }
  std::pair<RunStatus, std::string> status() const {
    std::lock_guard<std::mutex> lock(m_mutex);
    return {m_status, m_message};
  }
  bool fileWriteFailed() const {
    std::lock_guard<std::mutex> lock(m_mutex);
    return m_fileWriteFailed;
  }

 private:
  ChangeSignal& m_changed;
  mutable std::mutex m_mutex;
  std::map<std::string, double> m_last;
  RunStatus m_status = RunStatus::Failed;
  std::string m_message = "ended without a status";
  bool m_fileWriteFailed = false;
};

// One run training here, alone or as a member of a group, until its end is reported.
struct RunScheduler::Member {
  int64_t runId = 0;
  int64_t studyId = 0;
  int64_t cell = -1;
  std::string label;
  Clock::time_point started = Clock::now();
  std::unique_ptr<store::StoreSink> store;
  std::unique_ptr<RunTracker> tracker;
  std::unique_ptr<EventQueue> queue;  // streamEvents only
  std::unique_ptr<FanOutSink> sinks;
  // Valid until the member is handed to the closer: its worker lives while a member trains.
  Worker* worker = nullptr;
  size_t index = 0;         // in its worker
  bool handedOver = false;  // done training; its store closes on the closer's thread
  std::atomic<bool> closed{false};
};

// One worker of the budget: a Runner for a run alone, a GroupRunner for a batched group.
struct RunScheduler::Worker {
  std::vector<std::shared_ptr<Member>> members;  // they outlive every event sent to them
  std::unique_ptr<Runner> runner;
  std::unique_ptr<GroupRunner> group;
  int threads = 1;

  bool memberDone(size_t i) const { return runner ? runner->isDone() : group->isMemberDone(i); }
  bool trains(size_t i) const { return !members[i]->handedOver && !memberDone(i); }
  void cancel(size_t i) {
    if (runner)
      runner->cancel();
    else
      group->cancel(static_cast<int64_t>(i));
  }
  int64_t requestProbe(size_t i, const std::map<std::string, double>& inputs) {
    return runner ? runner->requestProbe(inputs)
                  : group->requestProbe(static_cast<int64_t>(i), inputs);
  }
  void join() {
    if (runner)
      runner->join();
    else
      group->join();
  }
};

// Runs the jobs that wait on threads and disk (joining a worker, closing a store writer) on its
// own thread, in the order given, raising the change signal after each.
class RunScheduler::Closer {
 public:
  explicit Closer(ChangeSignal& changed) : m_changed(changed), m_thread([this] { loop(); }) {}
  ~Closer() {  // finishes every job given
    {
      std::lock_guard<std::mutex> lock(m_mutex);
      m_stop = true;
    }
    m_wake.notify_one();
    m_thread.join();
  }
  void add(std::function<void()> job) {
    {
      std::lock_guard<std::mutex> lock(m_mutex);
      m_jobs.push_back(std::move(job));
    }
    m_wake.notify_one();
  }

 private:
  void loop() {
    std::unique_lock<std::mutex> lock(m_mutex);
    while (true) {
      m_wake.wait(lock, [this] { return m_stop || !m_jobs.empty(); });
      while (!m_jobs.empty()) {
        auto job = std::move(m_jobs.front());
        m_jobs.pop_front();
        lock.unlock();
        job();
        m_changed.raise();
        lock.lock();
      }
      if (m_stop) return;
    }
  }

  ChangeSignal& m_changed;
  std::mutex m_mutex;
  std::condition_variable m_wake;
  std::deque<std::function<void()>> m_jobs;
  bool m_stop = false;
  std::thread m_thread;  // last: started once the rest exists
};

RunScheduler::RunScheduler(const ExperimentRegistry& registry, store::RunStore& store,
                           RunSchedulerOptions options, SchedulerObserver* observer)
    : m_registry(registry),
      m_store(store),
      m_options(std::move(options)),
      m_observer(observer),
      m_changed(std::make_unique<ChangeSignal>()),
      m_closer(std::make_unique<Closer>(*m_changed)) {}

RunScheduler::~RunScheduler() {
  for (auto& worker : m_workers)
    for (size_t i = 0; i < worker->members.size(); ++i)
      if (worker->trains(i)) worker->cancel(i);
  m_closer.reset();  // the members already done: joined and closed
  for (auto& worker : m_workers) {
    worker->join();
    for (auto& member : worker->members)
      if (!member->handedOver) member->store->close();
  }
}

int RunScheduler::cores() const { return m_options.cores > 0 ? m_options.cores : availableCores(); }

void RunScheduler::setRequestedParallel(int runs) {
  m_options.requestedParallel = std::max(0, runs);
  startWaiting();
}

ThreadBudget RunScheduler::budgetFor(const Experiment& experiment, const nlohmann::json& config,
                                     int64_t workers) const {
  return planThreadBudget(cores(), workers, experiment.usefulThreads(config),
                          m_options.requestedParallel, m_options.requestedThreads);
}

int RunScheduler::usefulThreadsOfNext() const {
  if (m_line.empty()) return 0;
  const Waiting& next = m_line.front();
  if (next.runId) {
    auto it = m_recorded.find(next.runId);
    return it == m_recorded.end() ? 0 : it->second.experiment->usefulThreads(it->second.config);
  }
  auto it = m_usefulThreads.find(next.studyId);
  return it == m_usefulThreads.end() ? 0 : it->second;
}

ThreadBudget RunScheduler::budget() const {
  const int64_t workers = static_cast<int64_t>(m_line.size()) + busyWorkers();
  return planThreadBudget(cores(), workers, usefulThreadsOfNext(), m_options.requestedParallel,
                          m_options.requestedThreads);
}

ThreadBudget RunScheduler::budgetForStudy(int64_t studyId, int64_t workers) const {
  StudyStore studies(m_store);
  const auto record = studies.study(studyId);
  const auto experiment = record ? m_registry.find(record->experiment) : nullptr;
  const auto cells = studies.unfinishedCells(studyId);
  const int useful = experiment && !cells.empty()
                         ? experiment->usefulThreads(studies.cellConfig(studyId, cells[0]))
                         : 0;
  return planThreadBudget(cores(), workers, useful, m_options.requestedParallel,
                          m_options.requestedThreads);
}

BatchMode RunScheduler::batchModeOf(int64_t studyId) const {
  const auto record = StudyStore(m_store).study(studyId);
  return batchModeFor(record ? record->batch : std::string());
}

BatchMode RunScheduler::batchModeFor(const std::string& recorded) const {
  return studyBatchMode(recorded, m_options.batch, m_options.batchOverridesStudy);
}

std::vector<std::vector<int64_t>> RunScheduler::planStudyGroups(int64_t studyId) const {
  StudyStore studies(m_store);
  const auto record = studies.study(studyId);
  const auto cells = studies.unfinishedCells(studyId);
  const auto experiment = record ? m_registry.find(record->experiment) : nullptr;
  const BatchMode batch = batchModeFor(record ? record->batch : std::string());
  if (!experiment || batch.isOff() || cells.empty()) {
    std::vector<std::vector<int64_t>> alone;
    for (int64_t cell : cells) alone.push_back({cell});
    return alone;
  }
  // Auto splits groups until every worker the budget would give these cells has one.
  const int workers = budgetForStudy(studyId, static_cast<int64_t>(cells.size())).parallel;
  return planCellGroups(studies, *experiment, studyId, cells, batch, workers, m_options.device);
}

void RunScheduler::addRun(int64_t runId, std::shared_ptr<const Experiment> experiment,
                          nlohmann::json config, std::optional<ResumePoint> resume,
                          int64_t studyId) {
  m_recorded[runId] = {std::move(experiment), std::move(config), std::move(resume), studyId};
  m_line.push_back({runId, studyId, {}});
  startWaiting();
}

int64_t RunScheduler::addStudy(int64_t studyId, std::string* error) {
  int64_t queued = 0;
  try {
    StudyStore studies(m_store);
    const auto record = studies.study(studyId);
    if (!record) throw std::runtime_error("there is no study " + std::to_string(studyId));
    const auto experiment = m_registry.find(record->experiment);
    if (!experiment)
      throw std::runtime_error("study " + std::to_string(studyId) + " is of experiment '" +
                               record->experiment + "', unknown to this build");
    const auto unfinished = studies.unfinishedCells(studyId);
    if (unfinished.empty()) {
      if (error) *error = "every run of study " + std::to_string(studyId) + " finished";
      return 0;
    }
    m_usefulThreads[studyId] =
        experiment->usefulThreads(studies.cellConfig(studyId, unfinished[0]));
    // The mode its first runs train with stays the study's (recorded once).
    studies.recordFirstBatchMode(studyId, batchModeFor(record->batch).argument());
    std::set<int64_t> waiting;
    for (const auto& w : m_line)
      if (w.studyId == studyId) waiting.insert(w.cells.begin(), w.cells.end());
    for (auto& group : planStudyGroups(studyId)) {
      group.erase(std::remove_if(group.begin(), group.end(),
                                 [&](int64_t cell) { return waiting.count(cell) > 0; }),
                  group.end());
      if (group.empty()) continue;
      queued += static_cast<int64_t>(group.size());
      m_line.push_back({0, studyId, std::move(group)});
    }
  } catch (const std::exception& e) {
    if (error) *error = e.what();
    return 0;
  }
  startWaiting();
  return queued;
}

void RunScheduler::cancel(int64_t runId) {
  if (auto it = m_members.find(runId); it != m_members.end()) {
    Member& member = *it->second;
    if (!member.handedOver && member.worker->trains(member.index))
      member.worker->cancel(member.index);  // it ends with a cancelled status
    return;
  }
  auto waiting = std::find_if(m_line.begin(), m_line.end(),
                              [&](const Waiting& w) { return w.runId == runId; });
  if (waiting == m_line.end()) return;
  const int64_t studyId = waiting->studyId;
  m_line.erase(waiting);
  std::string message = "cancelled before it started";
  if (auto recorded = m_recorded.find(runId);
      recorded != m_recorded.end() && recorded->second.resume)
    // A resume waiting for its turn: the run trained before, and its checkpoint stays.
    message = "cancelled before its resume from step " +
              std::to_string(recorded->second.resume->step) + " started; its checkpoint is kept";
  m_recorded.erase(runId);
  // A run that never started has no writer to record it: say so here, or the next start
  // would find it queued by a dead process and call it interrupted.
  RunEnd end;
  end.runId = runId;
  end.studyId = studyId;
  end.started = false;
  end.status = RunStatus::Cancelled;
  end.message = message;
  try {
    m_store.finishRun(runId, RunStatus::Cancelled, end.message);
  } catch (const std::exception& e) {
    if (m_observer)
      m_observer->problem(std::string("cannot record the cancelled run: ") + e.what());
  }
  notify({end});
}

void RunScheduler::cancelStudy(int64_t studyId) {
  m_line.erase(std::remove_if(m_line.begin(), m_line.end(),
                              [&](const Waiting& w) { return w.studyId == studyId && !w.runId; }),
               m_line.end());
  std::vector<int64_t> runs;
  for (const auto& w : m_line)
    if (w.studyId == studyId) runs.push_back(w.runId);
  for (const auto& [id, member] : m_members)
    if (member->studyId == studyId) runs.push_back(id);
  for (int64_t id : runs) cancel(id);
}

void RunScheduler::cancelAll() {
  m_line.erase(
      std::remove_if(m_line.begin(), m_line.end(), [](const Waiting& w) { return !w.runId; }),
      m_line.end());
  std::vector<int64_t> runs;
  for (const auto& w : m_line) runs.push_back(w.runId);
  for (const auto& [id, member] : m_members) runs.push_back(id);
  for (int64_t id : runs) cancel(id);
}

void RunScheduler::poll() {
  handOverDone();
  notify(takeClosed());
  startWaiting();
}

void RunScheduler::waitForChange(std::chrono::milliseconds timeout) {
  m_changed->waitPast(m_seenChanges, timeout);
}

void RunScheduler::handOverDone() {
  for (auto it = m_workers.begin(); it != m_workers.end();) {
    std::shared_ptr<Worker> worker = *it;
    bool allHandedOver = true;
    for (size_t i = 0; i < worker->members.size(); ++i) {
      std::shared_ptr<Member> member = worker->members[i];
      if (!member->handedOver && worker->memberDone(i)) {
        member->handedOver = true;
        // A run alone is joined before its store closes; a group member's store gets nothing
        // after its terminal status, while its group trains on.
        m_closer->add([worker, member, alone = worker->runner != nullptr] {
          if (alone) worker->join();
          member->store->close();
          member->closed = true;
        });
      }
      allHandedOver = allHandedOver && member->handedOver;
    }
    if (allHandedOver) {
      // A group's thread ends after its last member's; a run alone was joined in its own job.
      if (worker->group) m_closer->add([worker] { worker->join(); });
      it = m_workers.erase(it);
    } else {
      ++it;
    }
  }
}

std::vector<RunEnd> RunScheduler::takeClosed() {
  std::vector<RunEnd> ends;
  for (auto it = m_members.begin(); it != m_members.end();) {
    Member& member = *it->second;
    if (!member.closed) {
      ++it;
      continue;
    }
    RunEnd end;
    end.runId = member.runId;
    end.studyId = member.studyId;
    end.cell = member.cell;
    end.label = member.label;
    std::tie(end.status, end.message) = member.tracker->status();
    const std::string who = "run " + std::to_string(member.runId) +
                            (member.label.empty() ? "" : " (" + member.label + ")");
    if (member.tracker->fileWriteFailed())
      end.writeProblem = who + ": not written: " + end.message;  // e.g. a checkpoint's file
    if (auto failure = member.store->failure()) {
      m_lostWrites.push_back(member.runId);
      // The status the store holds, not the one training ended with: a run whose final
      // status was lost is not finished, whatever its last event said.
      end.status = failure->recorded.value_or(RunStatus::Interrupted);
      if (failure->recorded)
        end.message = failure->recordedMessage;
      else
        end.message += (end.message.empty() ? "" : "; ") + std::string("store: ") + failure->error;
      // Where even the stand-in status was lost, the row still reads running: said, as a
      // single run says it (the study's lines had called it interrupted, and `sweep show` then
      // listed it running).
      end.writeProblem = who + ": not written to the store: " +
                         (failure->unwritten.empty() ? "its last log lines" : failure->unwritten) +
                         " (" + failure->error + "); it " + store::recordedStatusText(*failure);
    }
    end.seconds = secondsSince(member.started);
    end.finalMetrics = member.tracker->last();
    if (member.queue) end.lastEvents = member.queue->takeAll();
    ends.push_back(std::move(end));
    it = m_members.erase(it);
  }
  return ends;
}

void RunScheduler::notify(const std::vector<RunEnd>& ends) {
  if (!m_observer) return;
  for (const auto& end : ends) {
    m_observer->runEnded(end);
    if (!end.writeProblem.empty()) m_observer->problem(end.writeProblem);
  }
}

void RunScheduler::releaseStarts() {
  m_holds = std::max(0, m_holds - 1);
  startWaiting();
}

void RunScheduler::startWaiting() {
  // An observer called back while a start was under way, or starts are held (holdStarts).
  if (m_starting || m_holds > 0) return;
  m_starting = true;
  // One budget for the line as it stands: it decides how many train and with how many threads.
  while (!m_line.empty()) {
    ThreadBudget plan = budget();
    if (busyWorkers() >= plan.parallel) break;
    // Parallel runs x threads never exceed the cores: a run started beside others takes the
    // threads they leave, or waits (a run started alone took both cores of two, and the next
    // one, planned for two runs of one thread, made three). Threads asked for by name
    // (--threads) are the user's to oversubscribe, and said so where they are asked.
    if (m_options.requestedThreads <= 0) {
      const int free = cores() - threadsInUse();
      if (free <= 0 && busyWorkers() > 0) break;
      plan.threadsPerRun = std::max(1, std::min(plan.threadsPerRun, free));
    }
    // A run resumed while its previous training still closes waits for that close.
    if (m_line.front().runId && m_members.count(m_line.front().runId)) break;
    startNext(plan);
  }
  m_starting = false;
}

void RunScheduler::startNext(const ThreadBudget& budget) {
  const Waiting next = m_line.front();
  m_line.pop_front();
  if (next.runId) {
    startRecorded(next.runId, budget);
    return;
  }
  try {
    startCells(next, budget);
  } catch (const std::exception& e) {
    // A signal ended a wait on another process's lock: the study stops as cancelled, its
    // cells unclaimed, nothing lost; not a store error.
    const auto* storeError = dynamic_cast<const store::StoreError*>(&e);
    if (storeError && storeError->isBusy() && m_options.claimStop &&
        m_options.claimStop->load() != 0)
      return;
    if (m_observer)
      m_observer->problem("cannot start a run of study " + std::to_string(next.studyId) + ": " +
                          e.what());
  }
}

std::shared_ptr<RunScheduler::Member> RunScheduler::makeMember(int64_t runId, int64_t studyId,
                                                               int64_t cell, std::string label) {
  auto member = std::make_shared<Member>();
  member->runId = runId;
  member->studyId = studyId;
  member->cell = cell;
  member->label = std::move(label);
  member->store = std::make_unique<store::StoreSink>(m_store.path(), runId);
  member->tracker = std::make_unique<RunTracker>(*m_changed);
  std::vector<EventSink*> sinks{member->store.get(), member->tracker.get()};
  if (m_options.streamEvents) {
    member->queue = std::make_unique<EventQueue>();
    sinks.push_back(member->queue.get());
  }
  member->sinks = std::make_unique<FanOutSink>(std::move(sinks));
  return member;
}

void RunScheduler::startRecorded(int64_t runId, const ThreadBudget& budget) {
  auto found = m_recorded.find(runId);
  if (found == m_recorded.end()) return;
  RecordedRun run = std::move(found->second);
  m_recorded.erase(found);
  auto worker = std::make_shared<Worker>();
  worker->threads = budget.threadsPerRun;
  worker->members.push_back(makeMember(runId, run.studyId, -1, ""));
  RunnerOptions options;
  options.threads = budget.threadsPerRun;
  options.checkpointDir = m_store.artifactFolder(runId);
  options.resume = run.resume;
  worker->runner =
      std::make_unique<Runner>(run.experiment, run.config, *worker->members[0]->sinks, options);
  RunStart start;
  start.runId = runId;
  start.studyId = run.studyId;
  start.how = run.resume ? "resumed from step " + std::to_string(run.resume->step) : "new";
  start.threads = budget.threadsPerRun;
  startWorker(std::move(worker), {std::move(start)});
}

CellClaim RunScheduler::claimWaitingOutLocks(StudyStore& studies, int64_t studyId, int64_t cell) {
  const auto since = std::chrono::steady_clock::now();
  while (true) {
    try {
      // A claim is one transaction: one refused changed nothing, and is taken again whole.
      return studies.claim(studyId, cell);
    } catch (const store::StoreError& e) {
      const bool stopped = m_options.claimStop && m_options.claimStop->load() != 0;
      if (!e.isBusy() || stopped ||
          std::chrono::steady_clock::now() - since >= m_options.claimPatience)
        throw;
    }
  }
}

void RunScheduler::startCells(const Waiting& waiting, const ThreadBudget& budget) {
  StudyStore studies(m_store);
  const auto record = studies.study(waiting.studyId);
  const auto experiment = record ? m_registry.find(record->experiment) : nullptr;
  if (!experiment) return;
  // By cell number: a shard's study (the cluster's tasks) holds only some of the cells.
  std::map<int64_t, StudyRunResult> results;
  for (auto& r : studies.results(waiting.studyId)) results.emplace(r.cell, std::move(r));

  // Claimed one by one: a cell finished or training elsewhere meanwhile is left out.
  auto worker = std::make_shared<Worker>();
  worker->threads = budget.threadsPerRun;
  std::vector<RunStart> starts;
  std::vector<CellLaunch> launches;
  std::vector<RunEnd> refused;
  for (int64_t cell : waiting.cells) {
    auto result = results.find(cell);
    if (result == results.end()) continue;
    const CellClaim claim = claimWaitingOutLocks(studies, waiting.studyId, cell);
    if (claim.kind == CellClaim::Kind::Done || claim.kind == CellClaim::Kind::RunningElsewhere) {
      if (m_observer) m_observer->cellSkipped(waiting.studyId, cell, claim.kind);
      continue;
    }
    CellLaunch launch = prepareCellLaunch(m_store, studies, *experiment, waiting.studyId, cell,
                                          claim, m_options.device);
    const std::string label =
        cellLabel(result->second.arm, result->second.axes, result->second.seed);
    if (!launch.ok()) {  // prepareCellLaunch recorded it failed, or interrupted
      RunEnd end;
      end.runId = claim.runId;
      end.studyId = waiting.studyId;
      end.cell = cell;
      end.label = label;
      end.started = false;
      end.status = launch.refusedAs;
      end.message = (launch.refusedAs == RunStatus::Interrupted ? kNotResumed : "") + launch.error;
      refused.push_back(std::move(end));
      continue;
    }
    worker->members.push_back(makeMember(claim.runId, waiting.studyId, cell, label));
    starts.push_back(
        {claim.runId, waiting.studyId, cell, label, launch.how, 1, budget.threadsPerRun});
    launches.push_back(std::move(launch));
  }
  notify(refused);
  if (worker->members.empty()) return;

  if (worker->members.size() == 1) {
    RunnerOptions options;
    options.threads = budget.threadsPerRun;
    options.checkpointDir = m_store.artifactFolder(starts[0].runId);
    options.resume = launches[0].resume;
    worker->runner = std::make_unique<Runner>(experiment, launches[0].config,
                                              *worker->members[0]->sinks, options);
  } else {
    std::vector<GroupMemberSpec> specs;
    for (size_t i = 0; i < worker->members.size(); ++i) {
      starts[i].groupSize = static_cast<int>(worker->members.size());
      starts[i].how += " in a group of " + std::to_string(worker->members.size());
      specs.push_back({launches[i].config, worker->members[i]->sinks.get(),
                       m_store.artifactFolder(starts[i].runId), launches[i].resume});
    }
    worker->group =
        std::make_unique<GroupRunner>(experiment, std::move(specs), budget.threadsPerRun);
  }
  startWorker(std::move(worker), std::move(starts));
}

void RunScheduler::startWorker(std::shared_ptr<Worker> worker, std::vector<RunStart> starts) {
  for (size_t i = 0; i < worker->members.size(); ++i) {
    worker->members[i]->worker = worker.get();
    worker->members[i]->index = i;
    m_members[worker->members[i]->runId] = worker->members[i];
  }
  m_workers.push_back(worker);
  // Before the first step, so a driver's view loaded now misses none of the run's events.
  if (m_observer)
    for (const auto& start : starts) m_observer->runStarting(start);
  if (worker->runner)
    worker->runner->start();
  else
    worker->group->start();
}

bool RunScheduler::idle() const { return m_line.empty() && m_members.empty(); }

int64_t RunScheduler::waitingRuns() const {
  int64_t n = 0;
  for (const auto& w : m_line) n += w.runId ? 1 : static_cast<int64_t>(w.cells.size());
  return n;
}

bool RunScheduler::isWaiting(int64_t runId) const { return m_recorded.count(runId) > 0; }

bool RunScheduler::isTraining(int64_t runId) const {
  auto it = m_members.find(runId);
  return it != m_members.end() && !it->second->handedOver &&
         it->second->worker->trains(it->second->index);
}

int RunScheduler::trainingCount() const {
  int n = 0;
  for (const auto& worker : m_workers)
    for (size_t i = 0; i < worker->members.size(); ++i) n += worker->trains(i);
  return n;
}

int RunScheduler::sumOverBusyWorkers(const std::function<int(const Worker&)>& weigh) const {
  int n = 0;
  for (const auto& worker : m_workers)
    for (size_t i = 0; i < worker->members.size(); ++i)
      if (worker->trains(i)) {
        n += weigh(*worker);
        break;
      }
  return n;
}

int RunScheduler::busyWorkers() const {
  return sumOverBusyWorkers([](const Worker&) { return 1; });
}

int RunScheduler::threadsInUse() const {
  return sumOverBusyWorkers([](const Worker& worker) { return worker.threads; });
}

int RunScheduler::abandonStuckRuns(const std::string& why) {
  int stuck = 0;
  for (auto& [runId, member] : m_members) {
    if (member->closed) continue;
    if (!member->handedOver && member->worker->trains(member->index)) {
      StatusEvent cancelled;
      cancelled.status = RunStatus::Cancelled;
      cancelled.message = why;
      member->store->onEvent(cancelled);
      ++stuck;
    }
    member->store->beginClose();  // all at once: one flush writes them
  }
  // The closer may be closing some too: closing is idempotent.
  for (auto& [runId, member] : m_members)
    if (!member->closed) member->store->close();
  return stuck;
}

void RunScheduler::stopWaitingForStore() {
  for (auto& [runId, member] : m_members) member->store->stopWaiting();
}

int RunScheduler::closingCount() const {
  return static_cast<int>(m_members.size()) - trainingCount();
}

store::WriteTrouble RunScheduler::writeTrouble() const {
  store::WriteTrouble trouble;
  // A run closed but not yet reported counts as long as its error stands: its loss reaches
  // lostWrites only when poll() reports its end, and meanwhile it must not read as taken.
  for (const auto& [runId, member] : m_members) {
    if (auto error = member->store->error()) {
      trouble.runs.push_back(runId);
      if (trouble.error.empty()) trouble.error = *error;
    }
  }
  return trouble;
}

int64_t RunScheduler::studyOf(int64_t runId) const {
  if (auto it = m_members.find(runId); it != m_members.end()) return it->second->studyId;
  if (auto it = m_recorded.find(runId); it != m_recorded.end()) return it->second.studyId;
  return 0;
}

bool RunScheduler::hasStudyWork(int64_t studyId) const {
  return std::any_of(m_line.begin(), m_line.end(),
                     [&](const Waiting& w) { return w.studyId == studyId; }) ||
         std::any_of(m_members.begin(), m_members.end(),
                     [&](const auto& item) { return item.second->studyId == studyId; });
}

int RunScheduler::threadsOf(int64_t runId) const {
  return isTraining(runId) ? m_members.at(runId)->worker->threads : 0;
}

int64_t RunScheduler::requestProbe(int64_t runId, const std::map<std::string, double>& inputs) {
  if (!isTraining(runId)) return 0;
  const Member& member = *m_members.at(runId);
  return member.worker->requestProbe(member.index, inputs);
}

std::vector<Event> RunScheduler::takeEvents(int64_t runId) {
  auto it = m_members.find(runId);
  if (it == m_members.end() || !it->second->queue) return {};
  return it->second->queue->takeAll();
}

}  // namespace fl::study
