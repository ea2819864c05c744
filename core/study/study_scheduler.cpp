#include "core/study/study_scheduler.h"

#include <chrono>
#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>

#include "core/engine/config.h"
#include "core/engine/event_queue.h"
#include "core/engine/group_runner.h"
#include "core/engine/runner.h"
#include "core/store/resume_plan.h"
#include "core/store/run_store.h"
#include "core/store/store_sink.h"
#include "core/study/cell_launch.h"
#include "core/study/study_store.h"

namespace fl::study {

namespace {

using Clock = std::chrono::steady_clock;

// Keeps what the progress display needs from a run's stream (its last metric values) and
// wakes the scheduler when the run ends, so a free slot is refilled at once.
class RunOutcomeSink : public EventSink {
 public:
  RunOutcomeSink(std::mutex& wakeMutex, std::condition_variable& wake)
      : m_wakeMutex(wakeMutex), m_wake(wake) {}

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
      }
      std::lock_guard<std::mutex> lock(m_wakeMutex);
      m_wake.notify_all();
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

 private:
  std::mutex& m_wakeMutex;
  std::condition_variable& m_wake;
  mutable std::mutex m_mutex;
  std::map<std::string, double> m_last;
  RunStatus m_status = RunStatus::Failed;
  std::string m_message = "ended without a status";
};

// One run of the study in this process: alone (a Runner) or a member of a group.
struct MemberRun {
  int64_t cell = 0;
  int64_t runId = 0;
  std::string label;
  Clock::time_point started;
  std::unique_ptr<store::StoreSink> storeSink;
  std::unique_ptr<RunOutcomeSink> outcome;
  std::unique_ptr<FanOutSink> sinks;
  bool collected = false;
};

// What one worker of the budget trains: a run alone, or a batched group of runs.
struct ActiveWork {
  std::vector<std::unique_ptr<MemberRun>> members;
  std::unique_ptr<Runner> runner;
  std::unique_ptr<GroupRunner> group;
  bool cancelRequested = false;

  bool memberDone(size_t i) const { return runner ? runner->isDone() : group->isMemberDone(i); }
  void cancel() {
    if (runner)
      runner->cancel();
    else
      group->cancel();
  }
  void join() {
    if (runner)
      runner->join();
    else
      group->join();
  }
  bool allCollected() const {
    for (const auto& m : members)
      if (!m->collected) return false;
    return true;
  }
};

double secondsSince(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

}  // namespace

std::string cellLabel(const nlohmann::json& axes, int64_t seed) {
  std::string out;
  for (const auto& [key, value] : axes.items())
    out += (out.empty() ? "" : " ") + key + "=" + valueText(value);
  return out + (out.empty() ? "" : " ") + "seed=" + std::to_string(seed);
}

StudyScheduler::StudyScheduler(const ExperimentRegistry& registry, std::string storePath,
                               int64_t studyId, StudySchedulerOptions options)
    : m_registry(registry),
      m_storePath(std::move(storePath)),
      m_studyId(studyId),
      m_options(std::move(options)) {}

ThreadBudget StudyScheduler::budgetFor(int64_t cellsToTrain) const {
  store::RunStore runs(m_storePath, /*readOnly=*/true);
  StudyStore studies(runs);
  const auto record = studies.study(m_studyId);
  int useful = 0;
  if (record)
    if (auto experiment = m_registry.find(record->experiment)) {
      const auto cells = studies.unfinishedCells(m_studyId);
      if (!cells.empty())
        useful = experiment->usefulThreads(studies.cellConfig(m_studyId, cells[0]));
    }
  return planThreadBudget(m_options.cores > 0 ? m_options.cores : availableCores(), cellsToTrain,
                          useful, m_options.requestedParallel, m_options.requestedThreads);
}

std::vector<std::vector<int64_t>> StudyScheduler::planGroups() const {
  store::RunStore runs(m_storePath, /*readOnly=*/true);
  StudyStore studies(runs);
  const auto record = studies.study(m_studyId);
  const auto cells = studies.unfinishedCells(m_studyId);
  const auto experiment = record ? m_registry.find(record->experiment) : nullptr;
  if (!experiment || m_options.batch.isOff()) {
    std::vector<std::vector<int64_t>> alone;
    for (int64_t cell : cells) alone.push_back({cell});
    return alone;
  }
  // Workers the budget would give that many cells: auto splits groups until each has one.
  const int workers = budgetFor(static_cast<int64_t>(cells.size())).parallel;
  return planCellGroups(studies, *experiment, m_studyId, cells, m_options.batch, workers,
                        m_options.device);
}

StudyOutcome StudyScheduler::run(const Reporter& report) {
  store::RunStore runs(m_storePath);
  StudyStore studies(runs);
  const auto record = studies.study(m_studyId);
  if (!record) throw store::StoreError(runs.path(), "has no study " + std::to_string(m_studyId));
  const auto experiment = m_registry.find(record->experiment);
  if (!experiment)
    throw std::runtime_error("study " + std::to_string(m_studyId) + " is of experiment '" +
                             record->experiment + "', unknown to this build");

  // What each worker trains: one cell, or a group of cells whose shapes agree.
  std::deque<std::vector<int64_t>> pending;
  for (auto& group : planGroups()) pending.push_back(std::move(group));
  int64_t pendingCells = 0;
  for (const auto& group : pending) pendingCells += static_cast<int64_t>(group.size());
  StudyOutcome outcome;
  outcome.budget = budgetFor(static_cast<int64_t>(pending.size()));
  StudyProgress& progress = outcome.progress;
  progress.total = record->cells;
  progress.finished = record->cells - pendingCells;
  const auto start = Clock::now();
  int64_t endedHere = 0;
  int64_t activeRuns = 0;
  std::vector<std::unique_ptr<ActiveWork>> active;
  std::mutex wakeMutex;
  std::condition_variable wake;
  // By cell number: a shard's study (core/study/shard_task.h) holds only some of the cells.
  std::map<int64_t, StudyRunResult> results;
  for (auto& r : studies.results(m_studyId)) results.emplace(r.cell, std::move(r));

  auto updateEta = [&] {
    progress.elapsedSeconds = secondsSince(start);
    progress.active = activeRuns;
    const int64_t left = pendingCells + progress.active;
    if (endedHere > 0)
      progress.etaSeconds =
          progress.elapsedSeconds / static_cast<double>(endedHere) * static_cast<double>(left);
    else
      progress.etaSeconds.reset();
  };

  // Prepares a claimed cell's run; nullptr (reported failed) when its config no longer holds.
  auto prepareRun = [&](int64_t cell, const CellClaim& claim, CellLaunch& launch,
                        StudyRunReport& started) -> std::unique_ptr<MemberRun> {
    const auto& result = results.at(cell);
    auto run = std::make_unique<MemberRun>();
    run->cell = cell;
    run->runId = claim.runId;
    run->label = cellLabel(result.axes, result.seed);
    started.cell = cell;
    started.runId = claim.runId;
    started.label = run->label;
    launch =
        prepareCellLaunch(runs, studies, *experiment, m_studyId, cell, claim, m_options.device);
    if (!launch.ok()) {
      ++progress.failed;
      StudyRunReport ended = started;
      ended.ended = true;
      ended.status = "failed";
      ended.message = launch.error;
      updateEta();
      report(ended, progress);
      return nullptr;
    }
    started.how = launch.how;
    run->storeSink = std::make_unique<store::StoreSink>(runs.path(), claim.runId);
    run->outcome = std::make_unique<RunOutcomeSink>(wakeMutex, wake);
    run->sinks = std::make_unique<FanOutSink>(
        std::vector<EventSink*>{run->storeSink.get(), run->outcome.get()});
    run->started = Clock::now();
    return run;
  };

  // Starts the claimed cells of one worker: a Runner for one, a GroupRunner for several.
  auto startWork = [&](const std::vector<std::pair<int64_t, CellClaim>>& claimed) {
    auto work = std::make_unique<ActiveWork>();
    std::vector<StudyRunReport> startedReports;
    std::vector<CellLaunch> launches;
    for (const auto& [cell, claim] : claimed) {
      CellLaunch launch;
      StudyRunReport started;
      auto run = prepareRun(cell, claim, launch, started);
      if (!run) continue;
      work->members.push_back(std::move(run));
      launches.push_back(std::move(launch));
      startedReports.push_back(std::move(started));
    }
    if (work->members.empty()) return;
    if (work->members.size() == 1) {
      RunnerOptions options;
      options.threads = outcome.budget.threadsPerRun;
      options.checkpointDir = runs.artifactFolder(work->members[0]->runId);
      options.resume = launches[0].resume;
      work->runner = std::make_unique<Runner>(experiment, launches[0].config,
                                              *work->members[0]->sinks, options);
      work->runner->start();
    } else {
      std::vector<GroupMemberSpec> specs;
      for (size_t i = 0; i < work->members.size(); ++i) {
        startedReports[i].how += " in a group of " + std::to_string(work->members.size());
        specs.push_back({launches[i].config, work->members[i]->sinks.get(),
                         runs.artifactFolder(work->members[i]->runId), launches[i].resume});
      }
      work->group =
          std::make_unique<GroupRunner>(experiment, std::move(specs), outcome.budget.threadsPerRun);
      work->group->start();
    }
    activeRuns += static_cast<int64_t>(work->members.size());
    active.push_back(std::move(work));
    updateEta();
    for (const auto& started : startedReports) report(started, progress);
  };

  auto collect = [&](MemberRun& run) {
    run.storeSink->close();
    run.collected = true;
    --activeRuns;
    const auto [status, message] = run.outcome->status();
    StudyRunReport ended;
    ended.ended = true;
    ended.cell = run.cell;
    ended.runId = run.runId;
    ended.label = run.label;
    ended.status = toString(status);
    ended.message = message;
    if (auto error = run.storeSink->error())
      ended.message += (ended.message.empty() ? "" : "; ") + std::string("store: ") + *error;
    ended.seconds = secondsSince(run.started);
    ended.finalMetrics = run.outcome->last();
    if (status == RunStatus::Finished)
      ++progress.finished;
    else if (status == RunStatus::Cancelled)
      ++progress.cancelled;
    else
      ++progress.failed;
    ++endedHere;
    return ended;
  };

  while (true) {
    if (m_options.stopFlag && m_options.stopFlag->load() != 0) m_cancel = true;
    while (!m_cancel && static_cast<int>(active.size()) < outcome.budget.parallel &&
           !pending.empty()) {
      const std::vector<int64_t> cells = std::move(pending.front());
      pending.pop_front();
      pendingCells -= static_cast<int64_t>(cells.size());
      std::vector<std::pair<int64_t, CellClaim>> claimed;
      for (int64_t cell : cells) {
        const CellClaim claim = studies.claim(m_studyId, cell);
        switch (claim.kind) {
          case CellClaim::Kind::Done:
            ++progress.finished;
            break;
          case CellClaim::Kind::RunningElsewhere:
            ++progress.elsewhere;
            break;
          default:
            claimed.emplace_back(cell, claim);
        }
      }
      startWork(claimed);
    }
    if (active.empty()) break;
    {
      std::unique_lock<std::mutex> lock(wakeMutex);
      // Short enough that a stop request (a signal) reaches the runs within a step or two.
      wake.wait_for(lock, std::chrono::milliseconds(50));
    }
    if (m_options.stopFlag && m_options.stopFlag->load() != 0) m_cancel = true;
    if (m_cancel)
      for (auto& work : active)
        if (!work->cancelRequested) {
          work->cancel();
          work->cancelRequested = true;
        }
    for (auto it = active.begin(); it != active.end();) {
      ActiveWork& work = **it;
      for (size_t i = 0; i < work.members.size(); ++i) {
        MemberRun& run = *work.members[i];
        if (run.collected || !work.memberDone(i)) continue;
        // A run alone is joined before its sink closes; a group member's sink gets nothing
        // after its terminal status, while its group trains on.
        if (work.runner) work.join();
        StudyRunReport ended = collect(run);
        updateEta();
        report(ended, progress);
      }
      if (work.allCollected()) {
        work.join();
        it = active.erase(it);
      } else {
        ++it;
      }
    }
  }
  outcome.cancelled = m_cancel;
  updateEta();
  return outcome;
}

}  // namespace fl::study
