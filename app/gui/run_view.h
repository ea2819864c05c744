// RunView: what the window knows of one run, kept once. Loaded from the store when the run is
// first shown (or when a session starts training it: a resumed run's past), then appended by
// the events its session drains. The dashboard, the tables and the probe read it; nothing else
// keeps run data. The store writer flushes about once a second, so a live run is never read
// back from the store: its view already has every point the Runner reported.
//
//   std::unique_ptr<RunView> view = RunView::load(store, id, &registry);  // null: no such run
//   RunDelta d = view->apply(session.takeEvents());
//   for (const auto& [key, from] : d.metricsFrom) draw(view->metrics().at(key), from);
//
// Qt-free. One thread (the GUI's).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/engine/events.h"
#include "core/engine/natural_order.h"
#include "core/engine/param_spec.h"
#include "core/store/run_store.h"

namespace fl {
class ExperimentRegistry;
}

namespace fl::gui {

struct MetricSeries {
  std::vector<double> steps;
  std::vector<double> values;
  std::vector<double> walls;  // the Runner's wall seconds of each point (a resume continues)
};

// What one apply() added, as positions in the view (the new data is read from there).
struct RunDelta {
  // In reading order (NaturalLess): a panel meets a run's keys, and orders their curves, as they
  // come here ("@64" before "@128").
  std::map<std::string, size_t, NaturalLess> metricsFrom;  // key -> index of its first new point
  size_t snapshotsFrom = 0;  // index of the first new evaluation snapshot
  size_t snapshotsTo = 0;
  std::vector<SnapshotEvent> probeAnswers;  // transient: drawn, never kept
  bool statusChanged = false;
  bool progressed = false;

  bool evaluated() const { return snapshotsTo > snapshotsFrom; }
  bool empty() const {
    return metricsFrom.empty() && !evaluated() && probeAnswers.empty() && !statusChanged &&
           !progressed;
  }
};

using RunDeltas = std::map<int64_t, RunDelta>;

class RunView {
 public:
  // `params`, the experiment's parameters (empty when unknown), tell which config values the
  // run does not use.
  RunView(int64_t id, std::string experiment, std::string name, nlohmann::json config,
          const std::vector<ParamSpec>& params = {});
  // The run as stored: its record, every metric point and every evaluation snapshot.
  // `registry` (may be null) rebuilds the snapshots the store leaves out (store::runSnapshots).
  static std::unique_ptr<RunView> load(const store::RunStore& store, int64_t id,
                                       const ExperimentRegistry* registry = nullptr);

  // Appends a session's events in their order. A probe answer is passed on, not kept.
  RunDelta apply(std::vector<Event> events);

  int64_t id() const { return m_id; }
  const std::string& experiment() const { return m_experiment; }
  const std::string& name() const { return m_name; }
  // Pinned runs stay on top of the Runs dock; the pin is the store's tag kPinnedTag, so it is
  // kept with the run (and `runs list --tag pinned` finds them).
  static constexpr const char* kPinnedTag = "pinned";
  bool pinned() const { return m_pinned; }
  void setPinned(bool pinned) { m_pinned = pinned; }
  void setName(std::string name) { m_name = std::move(name); }
  const nlohmann::json& config() const { return m_config; }
  // The config as comparisons read it (comparedValues): a value the run does not use (a linear
  // head's frequencies) is kUnusedValue, which sets it apart from no run in labels, groups and
  // diffs.
  const nlohmann::json& comparedConfig() const { return m_comparedConfig; }
  RunStatus status() const { return m_status; }
  // Training counts from its first Running status to its terminal one; a queued run is not.
  bool isTraining() const { return m_status == RunStatus::Running; }
  void setStatus(RunStatus status, std::string message);
  const std::string& message() const { return m_message; }
  const std::string& device() const { return m_device; }
  const ProgressEvent& progress() const { return m_progress; }
  // The first progress since the run last started training here (a resume starts anew): the
  // rate of this session, not of the steps an earlier process trained, predicts the rest.
  const std::optional<ProgressEvent>& sessionStart() const { return m_sessionStart; }
  // Step-based runs (a `steps` parameter, no `epochs`) are told in steps, the others in epochs.
  bool countsEpochs() const;
  // A finished run's verdicts; while it trains, the latest one its evaluations gave.
  const std::vector<Verdict>& verdicts() const { return m_verdicts; }

  // By key in natural order (passkey/acc@64 before @128), which the panels' legends follow.
  const std::map<std::string, MetricSeries, NaturalLess>& metrics() const { return m_metrics; }
  // Each metric's latest value (by step).
  std::map<std::string, double> lastValues() const;
  // The wall seconds of the run's first metric point, of any key (0 while it has none): where
  // a curve over wall time starts.
  double firstMetricWall() const;
  // Evaluation snapshots in arrival (step) order. A snapshot its panel shows at its latest step
  // only (SnapshotKeep::LatestStep, and the truths never stored) is superseded by the next of
  // its name: its payload is released, its entry kept (the deltas count entries), and drawing
  // skips it. Kept whole, a 30000-epoch run's predicted densities took 1.4 GB of the window.
  const std::vector<store::StoredSnapshot>& snapshots() const { return m_snapshots; }
  bool isSuperseded(size_t index) const {
    return index < m_superseded.size() && m_superseded[index];
  }

 private:
  int64_t m_id;
  std::string m_experiment;
  std::string m_name;
  nlohmann::json m_config;
  nlohmann::json m_comparedConfig;
  RunStatus m_status = RunStatus::Queued;
  std::string m_message;
  std::string m_device;
  bool m_pinned = false;
  ProgressEvent m_progress;
  std::optional<ProgressEvent> m_sessionStart;
  std::vector<Verdict> m_verdicts;
  std::map<std::string, MetricSeries, NaturalLess> m_metrics;
  std::vector<store::StoredSnapshot> m_snapshots;
  std::vector<bool> m_superseded;              // by index into m_snapshots
  std::map<std::string, size_t> m_lastOfName;  // each snapshot name's latest entry

  void addSnapshot(int64_t step, Snapshot snapshot);
};

}  // namespace fl::gui
