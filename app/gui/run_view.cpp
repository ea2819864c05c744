#include "app/gui/run_view.h"

#include <algorithm>
#include <type_traits>

#include "core/engine/config_diff.h"
#include "core/engine/registry.h"
#include "core/store/run_snapshots.h"

namespace fl::gui {

RunView::RunView(int64_t id, std::string experiment, std::string name, nlohmann::json config,
                 const std::vector<ParamSpec>& params)
    : m_id(id),
      m_experiment(std::move(experiment)),
      m_name(std::move(name)),
      m_config(std::move(config)),
      m_comparedConfig(comparedValues(params, m_config)) {}

std::unique_ptr<RunView> RunView::load(const store::RunStore& store, int64_t id,
                                       const ExperimentRegistry* registry) {
  auto record = store.run(id);
  if (!record) return nullptr;
  const auto experiment = registry ? registry->find(record->experiment) : nullptr;
  auto view =
      std::make_unique<RunView>(id, record->experiment, record->name, record->config,
                                experiment ? experiment->allParams() : std::vector<ParamSpec>{});
  view->m_status = record->status;
  view->m_message = record->message;
  view->m_device = record->device;
  view->m_verdicts = record->verdicts;
  view->m_pinned =
      std::find(record->tags.begin(), record->tags.end(), kPinnedTag) != record->tags.end();
  view->m_progress.step = record->lastStep;
  view->m_progress.totalSteps = record->totalSteps;
  view->m_progress.epoch = 0;
  view->m_progress.totalEpochs = 0;
  // The store keeps steps; an epoch-based run's epochs follow from its config, so its progress
  // reads as it did while it trained ("epoch 350/5000", not "step 17511/250000" once cancelled).
  if (view->countsEpochs() && record->totalSteps > 0 && record->config.at("epochs").is_number()) {
    const int64_t epochs = record->config.at("epochs").get<int64_t>();
    if (epochs > 0 && record->totalSteps % epochs == 0) {
      const int64_t stepsPerEpoch = record->totalSteps / epochs;
      view->m_progress.totalEpochs = epochs;
      view->m_progress.epoch = record->lastStep / stepsPerEpoch;
    }
  }
  for (const auto& key : store.metricKeys(id)) {
    auto& series = view->m_metrics[key];
    for (const auto& p : store.metric(id, key)) {
      series.steps.push_back(static_cast<double>(p.step));
      series.values.push_back(p.value);
      series.walls.push_back(p.wall);
    }
  }
  for (auto& stored : store::runSnapshots(store, *record, experiment.get()))
    view->addSnapshot(stored.step, std::move(stored.snapshot));
  return view;
}

void RunView::setStatus(RunStatus status, std::string message) {
  m_status = status;
  m_message = std::move(message);
}

bool RunView::countsEpochs() const {
  return m_config.is_object() && m_config.contains("epochs") && !m_config.contains("steps");
}

RunDelta RunView::apply(std::vector<Event> events) {
  RunDelta delta;
  delta.snapshotsFrom = delta.snapshotsTo = m_snapshots.size();
  for (auto& event : events) {
    std::visit(
        [&](auto& e) {
          using T = std::decay_t<decltype(e)>;
          if constexpr (std::is_same_v<T, MetricEvent>) {
            auto& series = m_metrics[e.key];
            delta.metricsFrom.emplace(e.key, series.steps.size());  // keeps the first
            series.steps.push_back(static_cast<double>(e.step));
            series.values.push_back(e.value);
            series.walls.push_back(e.wallSeconds);
          } else if constexpr (std::is_same_v<T, SnapshotEvent>) {
            if (e.requestId != 0) {
              delta.probeAnswers.push_back(std::move(e));
              return;
            }
            // While it trains, the latest judgement of an evaluation is the run's verdict.
            if (auto verdict = verdictOfSnapshot(e.snapshot)) m_verdicts = {*verdict};
            addSnapshot(e.step, std::move(e.snapshot));
          } else if constexpr (std::is_same_v<T, ProgressEvent>) {
            if (!m_sessionStart) m_sessionStart = e;
            m_progress = e;
            delta.progressed = true;
          } else if constexpr (std::is_same_v<T, StatusEvent>) {
            if (e.status == RunStatus::Running) m_sessionStart.reset();
            m_status = e.status;
            if (!e.device.empty()) m_device = e.device;
            m_message = e.message;
            if (isTerminal(e.status)) m_verdicts = e.verdicts;
            delta.statusChanged = true;
          }
        },
        event);
  }
  delta.snapshotsTo = m_snapshots.size();
  return delta;
}

void RunView::addSnapshot(int64_t step, Snapshot snapshot) {
  const size_t index = m_snapshots.size();
  auto [last, fresh] = m_lastOfName.try_emplace(snapshot.name, index);
  // The store does not say how a snapshot is kept: one read back is superseded by the next of
  // its name that is kept at its latest step only.
  if (!fresh &&
      (snapshot.keep == SnapshotKeep::LatestStep || snapshot.keep == SnapshotKeep::NotStored)) {
    Snapshot released;
    released.name = snapshot.name;
    released.keep = snapshot.keep;
    m_snapshots[last->second].snapshot = std::move(released);
    m_superseded[last->second] = true;
  }
  last->second = index;
  m_snapshots.push_back({step, std::move(snapshot)});
  m_superseded.push_back(false);
}

std::map<std::string, double> RunView::lastValues() const {
  std::map<std::string, double> out;
  for (const auto& [key, series] : m_metrics)
    if (!series.values.empty()) out[key] = series.values.back();
  return out;
}

double RunView::firstMetricWall() const {
  std::optional<double> first;
  for (const auto& [key, series] : m_metrics)
    if (!series.walls.empty())
      first = std::min(first.value_or(series.walls.front()), series.walls.front());
  return first.value_or(0);
}

}  // namespace fl::gui
