// MainWindow: wiring only. Configure (LaunchPanel, left), watch (Dashboard of the focused run,
// centre), the run queue (bottom) and the history of the run store (a tab). Runs train on
// their own threads; a 30 Hz timer drains their events and replots what changed.
#pragma once

#include <QElapsedTimer>
#include <QMainWindow>

#include <map>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>
#include <vector>

#include "core/engine/registry.h"

class QLabel;
class QTableWidget;
class QTabWidget;
class QTimer;
class QSlider;

namespace fl::store {
class RunStore;
struct StoredSnapshot;
}
namespace fl::widgets {
class Dashboard;
class ProbePanel;
}

namespace fl::gui {

class HistoryView;
class ProbeServer;
class LaunchPanel;
class RunSession;

class MainWindow : public QMainWindow {
  Q_OBJECT

 public:
  MainWindow(const ExperimentRegistry& registry, std::unique_ptr<store::RunStore> store,
             QWidget* parent = nullptr);
  ~MainWindow() override;

  LaunchPanel* launchPanel() const { return m_launch; }
  widgets::Dashboard* dashboard() const { return m_dashboard; }
  widgets::ProbePanel* probePanel() const { return m_probe; }
  QTableWidget* runsTable() const { return m_runs; }
  HistoryView* history() const { return m_history; }
  const std::vector<RunSession*>& sessions() const { return m_sessions; }

  // Queues a run of the launch panel's current config; returns its run id (0 on error).
  int64_t launch();
  // Launches one run per declared comparison variant; their curves overlay on the dashboard.
  std::vector<int64_t> launchComparison();
  void stopFocused();
  void openStoredRun(int64_t runId);
  // Overlays stored or live runs on the dashboard (the first one's snapshots) and lists the
  // config values that differ between them.
  void compareRuns(const std::vector<int64_t>& runIds);
  // Continues an interrupted or cancelled run from its last checkpoint; false with a message
  // when it cannot.
  bool resumeRun(int64_t runId);
  QTableWidget* configDiffTable() const { return m_configDiff; }
  QTableWidget* metricsTable() const { return m_metricsTable; }
  void refreshHistory();
  // Writes every panel of the shown run as PNG, PDF and SVG, its metrics as CSV and its config as
  // JSON into `folder`; returns the files written.
  QStringList exportShownRun(const QString& folder);
  // Closes without asking, cancelling every run cleanly (a checkpoint where each stopped, then
  // `cancelled`, resumable): the answer to SIGTERM or SIGHUP, when no one is there to ask.
  void closeCancellingRuns();

 protected:
  void closeEvent(QCloseEvent* event) override;

 private:
  void tick();
  void startQueued();
  void cancelSession(RunSession* session);
  void focusRun(int64_t runId);
  int64_t launchWith(const nlohmann::json& overrides, const std::string& name);
  bool isShown(int64_t runId) const;
  void updateRunsTable();
  // The run's curves and snapshots, from the store and, while it is live, from its session.
  void loadCurves(int64_t runId);
  std::vector<store::StoredSnapshot> snapshotsOf(int64_t runId, bool latestOnly) const;
  const RunSession* liveSession(int64_t runId) const;
  // The line above the dashboard: the shown run in its colour, its name and its state.
  void showFocusLine(int64_t runId, const std::string& name, const std::string& state);
  void updateMetricsTable();
  void showError(const QString& what);
  void buildPanels(const Experiment& experiment);
  void askProbe();
  // Layout, experiment, preset, device, parallel runs, smoothing and the history's filters.
  void restoreSettings();
  void saveSettings() const;

  const ExperimentRegistry& m_registry;
  std::unique_ptr<store::RunStore> m_store;
  LaunchPanel* m_launch;
  widgets::Dashboard* m_dashboard;
  QTabWidget* m_tabs;
  QTableWidget* m_runs;
  QTableWidget* m_configDiff;
  QTableWidget* m_metricsTable = nullptr;  // last value of every metric of the shown runs
  std::map<int64_t, std::map<std::string, double>> m_storedLast;  // of runs loaded from the store
  HistoryView* m_history;
  QSlider* m_smoothing;
  QLabel* m_focusLabel;
  QTimer* m_timer;
  QElapsedTimer m_tablesUpdated;  // the Runs and metrics tables are redrawn at most 4 times a second
  bool m_tablesPending = false;   // new data since they were last redrawn
  std::vector<RunSession*> m_sessions;
  widgets::ProbePanel* m_probe = nullptr;
  std::unique_ptr<ProbeServer> m_probeServer;  // probes the shown run when it is not training
  int64_t m_focused = 0;              // the run whose snapshots the dashboard shows
  std::vector<int64_t> m_overlaid;    // further runs whose curves it overlays (a comparison)
  bool m_askBeforeClosing = true;     // false once closeCancellingRuns() was called
};

}  // namespace fl::gui
