// ProbeRouter: answers the probe panel for the focused run: a training run is asked between two
// steps (and again after each of its evaluations, so the panel shows what the model predicts
// now, and once it has ended); any other run answers from its last checkpoint through a
// ProbeServer. The answers are
// drawn on the panel; nothing is kept.
#pragma once

#include <QObject>

#include <cstdint>
#include <memory>

#include "app/gui/run_view.h"
#include "core/engine/registry.h"

namespace fl::store {
class RunStore;
}
namespace fl::widgets {
class ProbePanel;
}

namespace fl::gui {

class ProbeServer;
class RunQueue;

class ProbeRouter : public QObject {
  Q_OBJECT

 public:
  ProbeRouter(const ExperimentRegistry& registry, store::RunStore& store, RunQueue& queue,
              QObject* parent = nullptr);
  ~ProbeRouter() override;

  // The panel to answer (null when the shown experiment has none); its requests are routed.
  void setPanel(widgets::ProbePanel* panel);
  void setRun(int64_t runId);
  void ask();
  // On the window's tick: a live run's answers and evaluations, the probe server's answers.
  void take(const RunDeltas& deltas);

 private:
  const ExperimentRegistry& m_registry;
  store::RunStore& m_store;
  RunQueue& m_queue;
  widgets::ProbePanel* m_panel = nullptr;
  int64_t m_run = 0;
  std::unique_ptr<ProbeServer> m_server;  // for a run that is not training
};

}  // namespace fl::gui
