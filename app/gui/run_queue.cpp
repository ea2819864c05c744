#include "app/gui/run_queue.h"

#include <algorithm>

#include "app/gui/run_views.h"
#include "core/engine/build_info.h"
#include "core/engine/config.h"
#include "core/engine/resume_refused.h"
#include "core/store/config_hash.h"
#include "core/store/resume_plan.h"
#include "core/store/run_store.h"

namespace fl::gui {

namespace {

// One run's changes from two applies in one tick (its end's last events, then a resumed
// training's first ones) as one.
void mergeDelta(RunDelta& into, RunDelta more) {
  for (const auto& [key, from] : more.metricsFrom)
    if (!into.metricsFrom.count(key)) into.metricsFrom[key] = from;
  if (more.evaluated()) {
    if (!into.evaluated()) into.snapshotsFrom = more.snapshotsFrom;
    into.snapshotsTo = more.snapshotsTo;
  }
  for (auto& answer : more.probeAnswers) into.probeAnswers.push_back(std::move(answer));
  into.statusChanged = into.statusChanged || more.statusChanged;
  into.progressed = into.progressed || more.progressed;
}

}  // namespace

class RunQueue::SchedulerEvents : public study::SchedulerObserver {
 public:
  explicit SchedulerEvents(RunQueue& queue) : m_queue(queue) {}
  void runStarting(const study::RunStart& start) override { m_queue.onRunStarting(start); }
  void runEnded(const study::RunEnd& end) override { m_queue.onRunEnded(end); }
  void problem(const std::string& what) override { m_queue.onProblem(what); }

 private:
  RunQueue& m_queue;
};

RunQueue::RunQueue(const ExperimentRegistry& registry, store::RunStore& store, RunViews& views,
                   QObject* parent)
    : QObject(parent),
      m_registry(registry),
      m_store(store),
      m_views(views),
      m_events(std::make_unique<SchedulerEvents>(*this)) {
  study::RunSchedulerOptions options;
  options.batch = study::BatchMode{0};  // auto: the window batches a study's cells
  options.streamEvents = true;
  m_scheduler = std::make_unique<study::RunScheduler>(registry, store, options, m_events.get());
}

RunQueue::~RunQueue() { m_scheduler.reset(); }  // cancels, joins, flushes the store

void RunQueue::addRow(int64_t runId, int64_t studyId) {
  m_studyOfRow[runId] = studyId;
  m_openedOnly.erase(runId);  // it trains here now: its row stays when others are opened
  if (std::find(m_order.begin(), m_order.end(), runId) != m_order.end()) return;
  m_order.push_back(runId);
  emit runQueued(runId);
}

void RunQueue::removeRow(int64_t runId) {
  auto it = std::find(m_order.begin(), m_order.end(), runId);
  if (it == m_order.end()) return;
  const int row = static_cast<int>(it - m_order.begin());
  emit rowAboutToBeForgotten(row);
  m_order.erase(it);
  m_studyOfRow.erase(runId);
  m_openedOnly.erase(runId);
  emit rowForgotten(row);
}

void RunQueue::setOpened(const std::vector<int64_t>& runIds) {
  const std::set<int64_t> opened(runIds.begin(), runIds.end());
  const std::set<int64_t> before = m_openedOnly;
  for (int64_t id : before)
    if (!opened.count(id)) removeRow(id);
  for (int64_t id : runIds) {
    if (std::find(m_order.begin(), m_order.end(), id) != m_order.end()) continue;
    m_order.push_back(id);
    m_studyOfRow[id] = 0;
    m_openedOnly.insert(id);
    emit runQueued(id);
  }
}

int64_t RunQueue::studyOf(int64_t runId) const {
  auto it = m_studyOfRow.find(runId);
  return it == m_studyOfRow.end() ? 0 : it->second;
}

bool RunQueue::isLive(int64_t runId) const {
  return isWaiting(runId) || isTraining(runId) || m_started.count(runId) > 0;
}

void RunQueue::forget(const std::vector<int64_t>& runIds) {
  for (int64_t id : runIds)
    if (!isLive(id)) removeRow(id);
}

int64_t RunQueue::add(std::shared_ptr<const Experiment> experiment, const nlohmann::json& config,
                      const std::string& name, std::string* error) {
  if (refuseWhenClosing(error)) return 0;
  int64_t id = 0;
  try {
    id = m_store.createRun(
        {experiment->name(),
         name,
         config,
         {},
         currentBuildInfo().toJson(),
         store::identityHash(experiment->name(), experiment->allParams(), config)});
  } catch (const std::exception& e) {
    if (error) *error = std::string("cannot record the run: ") + e.what();
    return 0;
  }
  m_views.add(
      std::make_unique<RunView>(id, experiment->name(), name, config, experiment->allParams()));
  addRow(id, 0);
  m_scheduler->addRun(id, std::move(experiment), config, std::nullopt);
  return id;
}

bool RunQueue::resume(int64_t runId, std::string* error, std::string* said) {
  if (refuseWhenClosing(error)) return false;
  if (isWaiting(runId) || isTraining(runId)) {
    if (error) *error = "run " + std::to_string(runId) + " is still in the queue or training";
    return false;
  }
  store::ResumePlan plan;
  std::optional<store::RunRecord> before;  // as before the rewind: a refused resume's put back
  try {
    before = m_store.run(runId);
    plan = store::prepareResume(m_registry, m_store, runId);
  } catch (const std::exception& e) {
    if (error) *error = e.what();
    return false;
  }
  if (!plan.ok()) {
    if (error) *error = plan.error;
    return false;
  }
  if (before) m_beforeResume[runId] = *before;
  if (said)
    *said = "Resumed run #" + std::to_string(runId) + " " + store::describeResume(plan) +
            (plan.note.empty() ? "" : "; " + plan.note);
  // Its past as the store now has it (rewound to the checkpoint); the run appends the rest.
  // Until it starts, its row says what comes, not how its last attempt ended ("cancelled after
  // 32202 steps" had stood beside "waiting").
  if (auto* view = m_views.reload(runId))
    view->setStatus(RunStatus::Queued, "resumes " + store::describeResume(plan));
  const int64_t studyId = studyOf(runId);
  addRow(runId, studyId);
  // A run killed before its first checkpoint trains again from step 0 (same config and seed).
  std::optional<ResumePoint> from;
  if (!plan.fromStart) from = plan.point;
  m_scheduler->addRun(runId, plan.experiment, plan.config.values, from, studyId);
  return true;
}

int64_t RunQueue::addStudy(int64_t studyId, std::string* error) {
  if (refuseWhenClosing(error)) return 0;
  return m_scheduler->addStudy(studyId, error);
}

bool RunQueue::refuseWhenClosing(std::string* error) const {
  if (!m_closing) return false;
  if (error) *error = "the window is closing: its runs are stopping";
  return true;
}

void RunQueue::cancel(int64_t runId) { m_scheduler->cancel(runId); }
void RunQueue::cancelStudy(int64_t studyId) { m_scheduler->cancelStudy(studyId); }
void RunQueue::cancelAll() { m_scheduler->cancelAll(); }

void RunQueue::onRunStarting(const study::RunStart& start) {
  m_started.insert(start.runId);
  m_endedUnwritten.erase(start.runId);  // resumed: the store has it again
  if (start.studyId && start.cell >= 0) {
    // A claimed cell: its run as the store has it now (new, rewound or emptied). A single
    // run's view is there already.
    auto* view = m_views.reload(start.runId);
    if (view && view->name().empty()) view->setName(start.label);
    addRow(start.runId, start.studyId);
  }
  emit runStarting(start.runId);
}

void RunQueue::onRunEnded(const study::RunEnd& end) {
  m_started.erase(end.runId);
  auto* view = m_views.find(end.runId);
  if (!end.started) {  // refused or cancelled before its start: the store says so already
    if (!view) view = m_views.reload(end.runId);
    if (view && view->name().empty() && !end.label.empty()) view->setName(end.label);
    addRow(end.runId, end.studyId);
    if (view) view->setStatus(end.status, end.message);
  } else if (view && !end.lastEvents.empty()) {
    RunDelta delta = view->apply(end.lastEvents);
    if (m_draining && !delta.empty()) mergeDelta((*m_draining)[end.runId], std::move(delta));
  }
  // Its events said how training ended; the store may hold less (its last writes failed).
  if (end.started && view && !end.writeProblem.empty()) view->setStatus(end.status, end.message);
  putBackIfNotResumed(end, view);
  if (!end.writeProblem.empty()) m_endedUnwritten.insert(end.runId);
  emit runEnded(end.runId, end.studyId);
}

void RunQueue::putBackIfNotResumed(const study::RunEnd& end, RunView* view) {
  const auto before = m_beforeResume.find(end.runId);
  if (before == m_beforeResume.end()) return;
  const store::RunRecord record = before->second;
  m_beforeResume.erase(before);
  if (!end.started || end.status != RunStatus::Interrupted || !end.writeProblem.empty() ||
      end.message.rfind(kNotResumed, 0) != 0)
    return;
  // Refused before anything changed (its corpus is not the text it trained on): the run is as
  // it was, as `run --resume` leaves it, and the reason is said where the eye is.
  try {
    m_store.restoreEnd(record);
    if (view) view->setStatus(record.status, record.message);
  } catch (const std::exception&) {
    // Its row then reads interrupted with the reason, resumable all the same.
  }
  emit problem(QString("Run #%1 %2; it is left as it was")
                   .arg(end.runId)
                   .arg(QString::fromStdString(end.message)));
}

void RunQueue::onProblem(const std::string& what) {
  QString text = QString::fromStdString(what);
  if (!text.isEmpty()) text[0] = text[0].toUpper();
  emit problem(text);
}

RunDeltas RunQueue::drain() {
  RunDeltas deltas;
  m_draining = &deltas;
  m_scheduler->poll();
  m_draining = nullptr;
  // Said when it starts, changes or ends: the window shows the trouble as it stands (which
  // runs wait), not only as it began, and takes it down when no run waits, however it ended.
  const store::WriteTrouble trouble = m_scheduler->writeTrouble();
  const auto said = m_writes.update(trouble, m_scheduler->lostWrites());
  if (said || trouble.runs != m_shownTrouble.runs || trouble.error != m_shownTrouble.error) {
    const std::string text = said                   ? *said
                             : trouble.runs.empty() ? std::string()
                                                    : store::describeWriteTrouble(trouble);
    emit storeWrites(text.empty() ? QString() : "Store: " + QString::fromStdString(text),
                     !trouble.runs.empty());
    m_shownTrouble = trouble;
  }
  for (int64_t id : m_order) {
    auto events = m_scheduler->takeEvents(id);
    if (events.empty()) continue;
    if (auto* view = m_views.find(id)) {
      RunDelta delta = view->apply(std::move(events));
      if (!delta.empty()) mergeDelta(deltas[id], std::move(delta));
    }
  }
  return deltas;
}

}  // namespace fl::gui
