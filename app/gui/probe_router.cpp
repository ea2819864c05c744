#include "app/gui/probe_router.h"

#include "app/gui/probe_server.h"
#include "app/gui/run_queue.h"
#include "core/store/run_store.h"
#include "widgets/probe_panel.h"

namespace fl::gui {

ProbeRouter::ProbeRouter(const ExperimentRegistry& registry, store::RunStore& store,
                         RunQueue& queue, QObject* parent)
    : QObject(parent), m_registry(registry), m_store(store), m_queue(queue) {
  // A request made after the run's last step is never answered by the run: once it has ended
  // (its store written), the shown run is asked again, from its final checkpoint.
  connect(&queue, &RunQueue::runEnded, this, [this](int64_t runId, int64_t) {
    if (runId != m_run) return;
    m_server.reset();
    ask();
  });
}

ProbeRouter::~ProbeRouter() = default;

void ProbeRouter::setPanel(widgets::ProbePanel* panel) {
  m_panel = panel;
  if (panel) connect(panel, &widgets::ProbePanel::probeRequested, this, &ProbeRouter::ask);
}

void ProbeRouter::setRun(int64_t runId) {
  if (runId == m_run) return;
  m_run = runId;
  if (m_server && m_server->runId() != runId) m_server.reset();
  if (!m_panel) return;
  // The previous run's curve must not stand (or be exported) for this one's: cleared, then
  // this run is asked at the same inputs.
  m_panel->clearAnswer();
  ask();
}

void ProbeRouter::ask() {
  if (!m_panel || m_run == 0) return;
  if (m_queue.requestProbe(m_run, m_panel->inputs()) != 0) {
    m_panel->setNote("");
    return;
  }
  // Not training: answer from the run's last checkpoint.
  if (!m_server || m_server->runId() != m_run) {
    m_server.reset();
    auto run = m_store.run(m_run);
    auto experiment = run ? m_registry.find(run->experiment) : nullptr;
    const auto checkpoints = run ? m_store.checkpoints(m_run) : std::vector<store::Checkpoint>{};
    if (!experiment || checkpoints.empty()) {
      // A run queued for a slot starts by itself: "start or resume it" asked for what was done.
      m_panel->setNote(m_queue.isWaiting(m_run)
                           ? "This run waits for a free slot; the probe answers once it trains."
                           : "This run has no checkpoint to probe; start or resume it.");
      return;
    }
    m_server = std::make_unique<ProbeServer>(experiment, run->config, checkpoints.back().path,
                                             checkpoints.back().step, m_run);
    m_panel->setNote(
        QString("Answering from the checkpoint at step %1.").arg(checkpoints.back().step));
  }
  m_server->request(m_panel->inputs());
}

void ProbeRouter::take(const RunDeltas& deltas) {
  if (!m_panel) return;
  if (m_server) {
    std::string failure;
    for (const auto& answer : m_server->takeAnswers(&failure))
      m_panel->setAnswer(answer.snapshot, answer.step);
    if (!failure.empty()) {
      m_panel->setNote(QString::fromStdString("The probe failed: " + failure));
      m_server.reset();
    }
  }
  auto it = deltas.find(m_run);
  if (it == deltas.end()) return;
  // Answers arrive in request order: the last one drawn is the newest.
  for (const auto& answer : it->second.probeAnswers)
    m_panel->setAnswer(answer.snapshot, answer.step);
  // After each evaluation, ask again: the panel shows what the model predicts now.
  if (it->second.evaluated() && m_queue.isTraining(m_run)) ask();
}

}  // namespace fl::gui
