// MainWindow: layout, menus and wiring only. Configure (LaunchPanel, left dock), the runs of
// the queue (Runs dock, bottom), and three tabs: Live (RunDisplay: the shown runs' dashboard),
// Study (StudyView) and History. The run model lives in RunViews (one view per run), the
// scheduling in RunQueue (the thread budget); a 30 Hz timer drains the queue into the views and
// hands what changed to the display, the tables and the study view.
#pragma once

#include <QMainWindow>

#include <QProcess>
#include <QStringList>

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include <nlohmann/json.hpp>

#include "app/gui/window_settings.h"
#include "core/engine/registry.h"
#include "core/store/run_trainer.h"

class QAction;
class QDockWidget;
class QLabel;
class QTabWidget;
class QTableView;
class QTimer;

namespace fl::store {
class RunStore;
}
namespace fl::widgets {
class RunColors;
}

namespace fl::gui {

class ClosingWait;
class HistoryView;
class LaunchPanel;
class RunDisplay;
class RunQueue;
class RunViews;
class RunsDock;
class RunsTableModel;
class StudyView;

class MainWindow : public QMainWindow {
  Q_OBJECT

 public:
  MainWindow(const ExperimentRegistry& registry, std::unique_ptr<store::RunStore> store,
             QWidget* parent = nullptr);
  ~MainWindow() override;

  // When another connection has committed since the last look (or when asked, F5): History
  // and a study trained elsewhere read again where shown, and the shown runs caught up. Called
  // every kStoreWatchMs.
  void followStoreChanges(bool evenIfUnchanged = false);

  LaunchPanel* launchPanel() const { return m_launch; }
  RunDisplay* display() const { return m_display; }
  RunQueue* queue() const { return m_queue; }
  RunViews& views() const { return *m_views; }
  HistoryView* history() const { return m_history; }
  StudyView* studyView() const { return m_study; }
  QTableView* runsTable() const;
  RunsTableModel* runsModel() const { return m_runsModel; }
  RunsDock* runsDock() const { return m_runsDock; }
  QDockWidget* configureDock() const { return m_configureDock; }
  QTabWidget* tabs() const { return m_tabs; }
  store::RunStore& store() const { return *m_store; }

  // Queues a run of the launch panel's current config; returns its run id (0 on error).
  int64_t launch();
  // Launches one run per chosen comparison arm, shown overlaid.
  std::vector<int64_t> launchComparison();
  // Stores and queues the study the launch panel plans; returns its id (0 on error).
  int64_t launchStudy();
  void startDemo();
  void openStudy(int64_t studyId);
  // The shown run: cancelled where this window trains it, else its process asked to stop.
  void stopFocused();
  // Stop (button and menu) only where the shown run trains or waits, here or in another process
  // on this host.
  void updateStopEnabled();
  void openStoredRun(int64_t runId);
  // Shows the runs the last window on this store stopped as it closed (stopped_at_close.h),
  // where they are still stopped, and says how to resume them; else those that opening the
  // store found interrupted (their process gone: a crashed window); false when there are none.
  bool reopenStoppedAtClose();
  bool reopenInterruptedAtOpen();
  void compareRuns(const std::vector<int64_t>& runIds);
  bool resumeRun(int64_t runId);
  void refreshHistory();
  // Views another process changed in the store, read again: their Runs-dock rows and, where
  // shown, the display follow.
  void showReloadedRuns(const std::vector<int64_t>& runIds);
  // Runs deleted from the store leave the display, the Runs dock, the views and the study view.
  void forgetDeletedRuns(const std::vector<int64_t>& runIds);
  QStringList exportShownRun(const QString& folder);
  // Closes without asking, cancelling every run cleanly (a checkpoint where each stopped, then
  // `cancelled`, resumable): the answer to SIGTERM or SIGHUP, when no one is there to ask.
  // Asked again while the runs stop, it gives up waiting for the store (a second signal).
  void closeCancellingRuns();
  // Pins a run to the top of the Runs dock, or unpins it: its store tag "pinned", so the pin
  // stays with the run between sessions; a store that refuses says so.
  void pinRun(int64_t runId, bool pinned);
  // File > Open a run store: `path` (an existing store or a new one) in a window of its own, so
  // this one's runs go on training; not this window's own store, nor one in a missing folder.
  // Returns whether a window was started.
  bool openStoreInNewWindow(const QString& path);
  // How that window is started (the lab's binary, detached); tests look at what it was asked.
  using WindowStarter = std::function<bool(const QString& program, const QStringList& arguments)>;
  void setWindowStarter(WindowStarter starter) { m_startWindow = std::move(starter); }

 protected:
  void closeEvent(QCloseEvent* event) override;

 private:
  // The process training `runId` where that is not this window (a CLI run, a sweep); nullopt
  // for a run this window trains, one that does not train, or a store that cannot be read now.
  std::optional<store::RunTrainer> trainerElsewhere(int64_t runId) const;
  // Asks that process to stop (SIGTERM, as `kill` does), once the reader has confirmed: it stops
  // every run it trains, which the question names.
  void stopTrainerOf(int64_t runId);
  WindowParts settingsParts();  // what window_settings keeps between sessions
  // A close waits in sight (ClosingWait) until the runs it stopped are over and the store holds
  // their ends; this gives up waiting for the store, and closes.
  void quitWithoutWaiting();
  void tick();
  int64_t launchWith(const nlohmann::json& overrides, const std::string& name);
  void buildMenus();
  void showError(const QString& what);
  // A store this user may not write: what the window says instead of training or editing.
  QString readOnlyStoreText() const;
  // Shows readOnlyStoreText() and answers true when the store is read-only.
  bool refuseWhenReadOnly();
  // Views of runs not live here brought up to what the store now says, and redrawn.
  void catchUpWithStore(const std::vector<int64_t>& runIds);

  const ExperimentRegistry& m_registry;
  std::unique_ptr<store::RunStore> m_store;
  std::unique_ptr<RunViews> m_views;
  std::unique_ptr<widgets::RunColors> m_colors;
  RunQueue* m_queue;
  LaunchPanel* m_launch;
  RunDisplay* m_display;
  StudyView* m_study;
  HistoryView* m_history;
  QTabWidget* m_tabs;
  RunsTableModel* m_runsModel;
  QDockWidget* m_configureDock;
  RunsDock* m_runsDock;
  QAction* m_stopAction = nullptr;
  // While the store refuses the writes of runs training here: what and why, until it takes
  // them again (a full disk noticed then can still be cleared before the runs end).
  QLabel* m_writeTrouble;
  QTimer* m_timer;
  bool m_askBeforeClosing = true;        // false once closeCancellingRuns() was called
  ClosingWait* m_closingWait = nullptr;  // from a close until the runs it stopped are over
  bool m_closeNow = false;               // the runs are over, or the wait was given up
  WindowStarter m_startWindow = [](const QString& program, const QStringList& arguments) {
    return QProcess::startDetached(program, arguments);
  };
  int64_t m_storeVersion = -1;  // the store's data_version at the last look
  static constexpr int kStoreWatchMs = 2000;
};

}  // namespace fl::gui
