#include "core/study/study_scheduler.h"

#include <algorithm>
#include <chrono>
#include <memory>

#include "core/engine/interrupt_signals.h"
#include "core/store/run_store.h"
#include "core/store/store_writer.h"
#include "core/store/write_trouble.h"
#include "core/study/study_store.h"

namespace fl::study {

namespace {

using Clock = std::chrono::steady_clock;

// Turns the scheduler's starts and ends into the progress a console shows.
class ProgressObserver : public SchedulerObserver {
 public:
  ProgressObserver(const StudyScheduler::Reporter& report, StudyProgress& progress)
      : m_report(report), m_progress(progress) {}

  void runStarting(const RunStart& start) override {
    ++m_progress.active;
    m_mostActive = std::max(m_mostActive, m_progress.active);
    StudyRunReport report;
    report.cell = start.cell;
    report.runId = start.runId;
    report.label = start.label;
    report.how = start.how;
    send(report);
  }
  void runEnded(const RunEnd& end) override {
    if (end.started) --m_progress.active;
    if (end.status == RunStatus::Finished)
      ++m_progress.finished;
    else if (end.status == RunStatus::Cancelled)
      ++m_progress.cancelled;
    else if (end.status == RunStatus::Interrupted)
      ++m_progress.interrupted;
    else
      ++m_progress.failed;
    if (end.started) ++m_endedHere;
    StudyRunReport report;
    report.ended = true;
    report.cell = end.cell;
    report.runId = end.runId;
    report.label = end.label;
    report.status = end.status;
    report.message = end.message;
    report.writeProblem = end.writeProblem;
    report.seconds = end.seconds;
    report.finalMetrics = end.finalMetrics;
    send(report);
  }
  void cellSkipped(int64_t, int64_t, CellClaim::Kind why) override {
    if (why == CellClaim::Kind::Done)
      ++m_progress.finished;
    else
      ++m_progress.elsewhere;
  }
  void problem(const std::string& what) override {
    // Every one: each run whose writes failed is named, not only the first.
    m_problems += (m_problems.empty() ? "" : "\n") + what;
  }

  const std::string& problems() const { return m_problems; }
  // Elapsed time, and what is left at the pace of the runs that ended here, once a whole wave of
  // them has: runs that train side by side end together, and the first of a batch of four,
  // taken alone, made the ETA 3:41 for a study that took 0:35.
  void updateEta(int64_t waitingCells) {
    m_progress.elapsedSeconds = std::chrono::duration<double>(Clock::now() - m_start).count();
    const int64_t left = waitingCells + m_progress.active;
    // Nothing left here (the last run ended, or a stop dropped the rest): no ETA; "ETA 0:00"
    // stood beside each run a stop cancelled.
    if (left > 0 && m_endedHere > 0 && m_endedHere >= m_mostActive)
      m_progress.etaSeconds =
          m_progress.elapsedSeconds / static_cast<double>(m_endedHere) * static_cast<double>(left);
    else
      m_progress.etaSeconds.reset();
  }
  void setWaitingCells(int64_t cells) { m_waitingCells = cells; }

 private:
  void send(const StudyRunReport& report) {
    updateEta(m_waitingCells);
    m_report(report, m_progress);
  }

  const StudyScheduler::Reporter& m_report;
  StudyProgress& m_progress;
  Clock::time_point m_start = Clock::now();
  int64_t m_endedHere = 0;
  int64_t m_mostActive = 0;  // the most runs training here at once: a wave
  int64_t m_waitingCells = 0;
  std::string m_problems;
};

}  // namespace

StudyScheduler::StudyScheduler(const ExperimentRegistry& registry, std::string storePath,
                               int64_t studyId, StudySchedulerOptions options)
    : m_registry(registry),
      m_storePath(std::move(storePath)),
      m_studyId(studyId),
      m_options(std::move(options)) {}

ThreadBudget StudyScheduler::budgetFor(int64_t cellsToTrain) const {
  store::RunStore runs(m_storePath, /*readOnly=*/true);
  return RunScheduler(m_registry, runs, schedulerOptions()).budgetForStudy(m_studyId, cellsToTrain);
}

std::vector<std::vector<int64_t>> StudyScheduler::planGroups() const {
  store::RunStore runs(m_storePath, /*readOnly=*/true);
  return RunScheduler(m_registry, runs, schedulerOptions()).planStudyGroups(m_studyId);
}

bool StudyScheduler::stopGraceOver(std::chrono::steady_clock::time_point cancelledAt) const {
  if (m_options.stopGrace.count() < 0) return false;
  if (m_options.stopCount && m_options.stopCount->load() > 1) return true;
  return std::chrono::steady_clock::now() - cancelledAt >= m_options.stopGrace;
}

std::string StudyScheduler::abandonReason(std::chrono::steady_clock::time_point cancelledAt) const {
  return InterruptSignals::stuckStepReason(m_options.stopFlag ? m_options.stopFlag->load() : 0,
                                           "its step in progress",
                                           std::chrono::duration_cast<std::chrono::milliseconds>(
                                               std::chrono::steady_clock::now() - cancelledAt),
                                           m_options.stopCount && m_options.stopCount->load() > 1);
}

StudyOutcome StudyScheduler::run(const Reporter& report, const Notice& notice) {
  store::RunStore runs(m_storePath);
  StudyStore studies(runs);
  const auto record = studies.study(m_studyId);
  if (!record) throw store::StoreError(runs.path(), "has no study " + std::to_string(m_studyId));
  if (!m_registry.find(record->experiment))
    throw std::runtime_error("study " + std::to_string(m_studyId) + " is of experiment '" +
                             record->experiment + "', unknown to this build");

  StudyOutcome outcome;
  StudyProgress& progress = outcome.progress;
  ProgressObserver observer(report, progress);
  std::string problem;
  {
    // A study's process waits out another process's lock on its claims as on its closing
    // writes; a signal ends the wait.
    RunSchedulerOptions options = schedulerOptions();
    options.claimPatience = store::StoreWriter::closingPatience();
    options.claimStop = m_options.stopFlag;
    // Let go of, not destroyed, when runs are abandoned (see abandonStuckRuns).
    auto scheduler = std::make_unique<RunScheduler>(m_registry, runs, options, &observer);
    const int64_t pendingGroups =
        static_cast<int64_t>(scheduler->planStudyGroups(m_studyId).size());
    outcome.budget = scheduler->budgetForStudy(m_studyId, pendingGroups);
    progress.total = record->cells;
    progress.finished =
        record->cells - static_cast<int64_t>(studies.unfinishedCells(m_studyId).size());
    std::string none;
    scheduler->addStudy(m_studyId, &none);  // none: every cell finished
    observer.setWaitingCells(scheduler->waitingRuns());
    bool cancelling = false;
    bool signalled = false;
    std::chrono::steady_clock::time_point cancelledAt;
    store::WriteTroubleWatch writes;
    while (!scheduler->idle()) {
      if (m_options.stopFlag && m_options.stopFlag->load() != 0 && !signalled) {
        m_cancel = true;
        signalled = true;
        // As `run` does: a signalled process has no two minutes to wait out a lock.
        scheduler->stopWaitingForStore();
      }
      // A store that cannot be written stops the study as a cancel does: the runs keep their
      // checkpoints and the error is the outcome.
      if ((m_cancel || !observer.problems().empty()) && !cancelling) {
        scheduler->cancelAll();
        cancelling = true;
        cancelledAt = std::chrono::steady_clock::now();
      }
      if (m_cancel && cancelling && stopGraceOver(cancelledAt)) {
        const std::string why = abandonReason(cancelledAt);
        if (const int stuck = scheduler->abandonStuckRuns(why); stuck > 0) {
          scheduler.release();  // NOLINT: its threads are stuck in steps; the caller exits
          outcome.abandoned = stuck;
          outcome.abandonedWhy = why;
          outcome.cancelled = true;
          return outcome;
        }
      }
      scheduler->poll();
      observer.setWaitingCells(scheduler->waitingRuns());
      if (auto said = writes.update(scheduler->writeTrouble(), scheduler->lostWrites());
          said && notice)
        notice("store: " + *said);
      // Short enough that a stop request (a signal) reaches the runs within a step or two.
      scheduler->waitForChange(std::chrono::milliseconds(50));
    }
    problem = observer.problems();
  }
  if (!problem.empty()) throw store::StoreError(runs.path(), problem);
  outcome.cancelled = m_cancel;
  observer.updateEta(0);
  return outcome;
}

}  // namespace fl::study
