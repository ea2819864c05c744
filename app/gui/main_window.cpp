#include "app/gui/main_window.h"

#include <QCloseEvent>
#include <QCoreApplication>
#include <QDockWidget>
#include <QFileInfo>
#include <QLabel>
#include <QLineEdit>
#include <QMenuBar>
#include <QMessageBox>
#include <QStatusBar>
#include <QTabWidget>
#include <QTableView>
#include <QTimer>

#include <algorithm>
#include <cstdio>
#include <set>

#include "app/gui/about_box.h"
#include "app/gui/closing_wait.h"
#include "app/gui/dock_title_bar.h"
#include "app/gui/history_model.h"
#include "app/gui/history_view.h"
#include "app/gui/launch_panel.h"
#include "app/gui/run_display.h"
#include "app/gui/run_queue.h"
#include "app/gui/run_views.h"
#include "app/gui/runs_dock.h"
#include "app/gui/runs_table_model.h"
#include "app/gui/shortcuts_box.h"
#include "app/gui/stopped_at_close.h"
#include "app/gui/study_view.h"
#include "app/gui/view_refresh.h"
#include "core/engine/paper_verdict_restate.h"
#include "core/store/run_store.h"
#include "core/store/store_browsing.h"
#include "core/store/store_folder.h"
#include "core/study/study_store.h"
#include "widgets/dashboard.h"
#include "widgets/file_dialogs.h"
#include "widgets/run_colors.h"

namespace fl::gui {

namespace {

// "Study 3 (table1) has no run left training: 34 finished, 2 cancelled of its 36 cells": said
// once a study's last run in this window ends, where nothing had said the study was over.
QString studyOverText(const study::StudyRecord& record) {
  QStringList counts;
  for (const auto& [status, n] : record.statusCounts)
    counts << QString("%1 %2").arg(n).arg(QString::fromStdString(study::toString(status)));
  return QString("Study %1%2 has no run left training: %3 of its %4 cells")
      .arg(record.id)
      .arg(record.name.empty() ? QString() : " (" + QString::fromStdString(record.name) + ")")
      .arg(counts.join(", "))
      .arg(record.cells);
}

}  // namespace

MainWindow::MainWindow(const ExperimentRegistry& registry, std::unique_ptr<store::RunStore> store,
                       QWidget* parent)
    : QMainWindow(parent),
      m_registry(registry),
      m_store(std::move(store)),
      m_views(std::make_unique<RunViews>(*m_store, &m_registry)),
      m_colors(std::make_unique<widgets::RunColors>()),
      m_queue(new RunQueue(registry, *m_store, *m_views, this)),
      m_launch(new LaunchPanel(registry, this)),
      m_display(new RunDisplay(registry, *m_store, *m_views, *m_queue, *m_colors, this)),
      m_study(new StudyView(*m_store, *m_views, *m_queue, this)),
      m_history(new HistoryView(*m_store, m_registry, this)),
      m_tabs(new QTabWidget(this)),
      m_runsModel(new RunsTableModel(*m_queue, *m_views, *m_colors, this)),
      m_configureDock(new QDockWidget("Configure", this)),
      m_runsDock(new RunsDock(m_runsModel, this)),
      m_writeTrouble(new QLabel(this)),
      m_timer(new QTimer(this)) {
  setWindowTitle("FourierLab");
  m_configureDock->setObjectName("configure");
  m_configureDock->setWidget(m_launch);
  addDockWidget(Qt::LeftDockWidgetArea, m_configureDock);
  m_tabs->addTab(m_display, "Live");
  m_tabs->addTab(m_study, "Study");
  m_tabs->addTab(m_history, "History");
  setCentralWidget(m_tabs);

  addDockWidget(Qt::BottomDockWidgetArea, m_runsDock);
  // Both docks roll up to their title bar (its button or a double-click): the plots get the
  // room, the dock stays one click away.
  new DockTitleBar(m_configureDock);
  new DockTitleBar(m_runsDock);
  // Verdicts an older build wrote, judged as this build judges them, and said where the store
  // is (stderr alone told no one at a desktop).
  const auto restatement = restatePaperVerdicts(*m_store, m_registry);
  const std::string restated = restatement.sentence();
  if (!restated.empty()) {
    std::fputs(restatement.note(m_store->path()).c_str(), stderr);
    m_history->refresh();
  }
  statusBar()->showMessage(
      QString("Run store: %1%2%3")
          .arg(QString::fromStdString(m_store->path()), m_store->isReadOnly() ? " (read-only)" : "",
               restated.empty() ? QString() : " · " + QString::fromStdString(restated)));
  if (m_store->isReadOnly()) {
    setWindowTitle("FourierLab (read-only store)");
    m_launch->setTrainingRefusal(readOnlyStoreText());
  }

  connect(m_launch, &LaunchPanel::runRequested, this, [this] { launch(); });
  connect(m_launch, &LaunchPanel::comparisonRequested, this, [this] { launchComparison(); });
  connect(m_launch, &LaunchPanel::studyRequested, this, [this] { launchStudy(); });
  // Configuring another experiment leaves the runs on show (a study's, say) where they are: the
  // Live tab takes the new experiment's panels when it shows one of its runs, or when it shows
  // none. Switching the form used to clear the plots being read.
  connect(m_launch, &LaunchPanel::experimentChanged, this, [this] {
    if (m_display->shown().empty()) m_display->setExperiment(m_launch->experiment());
  });
  connect(m_launch, &LaunchPanel::parallelRunsChanged, m_queue, &RunQueue::setRequestedParallel);
  connect(m_launch, &LaunchPanel::batchStudiesChanged, m_queue, &RunQueue::setBatchStudies);
  connect(m_display, &RunDisplay::experimentShown, this,
          [this](const QString& name) { m_launch->selectExperiment(name); });
  connect(m_display, &RunDisplay::demoRequested, this, &MainWindow::startDemo);
  connect(m_queue, &RunQueue::problem, this, &MainWindow::showError);
  m_writeTrouble->setObjectName("storeWriteTrouble");
  m_writeTrouble->setStyleSheet("QLabel { color: #b00020; font-weight: bold; }");
  // Cut, not widening the window, where the status bar is short: the whole text is its tip.
  m_writeTrouble->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
  m_writeTrouble->hide();
  statusBar()->addPermanentWidget(m_writeTrouble, 1);
  connect(m_queue, &RunQueue::storeWrites, this, [this](const QString& what, bool failing) {
    m_writeTrouble->setVisible(failing);
    if (failing) {
      m_writeTrouble->setText(what);
      m_writeTrouble->setToolTip(what);
    } else if (!what.isEmpty()) {
      statusBar()->showMessage(what, 10000);
    }
  });
  connect(m_runsDock, &RunsDock::stopRequested, this, &MainWindow::stopFocused);
  connect(m_runsDock, &RunsDock::stopRunRequested, this,
          [this](int64_t runId) { m_queue->cancel(runId); });
  connect(m_runsDock, &RunsDock::resumeRequested, this, &MainWindow::resumeRun);
  // The Runs table's eyes say which runs are on the plots, and put them there or take them off.
  m_runsModel->setShownCheck([this](int64_t id) {
    const auto& shown = m_display->shown();
    return std::find(shown.begin(), shown.end(), id) != shown.end();
  });
  connect(m_display, &RunDisplay::shownChanged, m_runsModel, &RunsTableModel::shownChanged);
  // History's rows of the runs on the plots carry their colour, as the Runs table's do.
  m_history->model()->setPlotColor([this](int64_t id) {
    const auto& shown = m_display->shown();
    return std::find(shown.begin(), shown.end(), id) != shown.end() ? m_colors->of(id) : QColor();
  });
  connect(m_display, &RunDisplay::shownChanged, m_history->model(), &HistoryModel::onPlotsChanged);
  connect(m_runsModel, &RunsTableModel::shownToggled, this, [this](int64_t id, bool shown) {
    m_display->setRunShown(id, shown);
    m_tabs->setCurrentWidget(m_display);
  });
  connect(m_runsDock, &RunsDock::colorChosen, this, [this](int64_t id, const QColor& color) {
    m_colors->choose(id, color);
    m_display->redraw();
    m_runsModel->updateRun(id);
    m_history->model()->onPlotsChanged();
  });
  connect(m_runsDock, &RunsDock::pinRequested, this, &MainWindow::pinRun);
  connect(m_runsDock, &RunsDock::groupByChosen, m_display, &RunDisplay::setGroupBy);
  // Runs opened from History are not the dock's rows, yet the reader groups them too.
  m_runsDock->setExtraGroupKeys([this] { return m_display->differingKeysOfShown(); });
  connect(m_display, &RunDisplay::shownChanged, m_runsDock, &RunsDock::updateGroupChoices);
  // The Runs table highlights the runs on the plots, also when their rows come after the plots
  // changed (a comparison opened from History adds its rows then).
  const auto highlightShown = [this] { m_runsDock->selectRuns(m_display->shown()); };
  connect(m_display, &RunDisplay::shownChanged, this, highlightShown);
  connect(m_runsModel, &QAbstractItemModel::rowsInserted, this, highlightShown);
  connect(m_display, &RunDisplay::shownChanged, this, &MainWindow::updateStopEnabled);
  connect(m_queue, &RunQueue::runQueued, this, &MainWindow::updateStopEnabled);
  // A resumed study's runs have their rows already: Stop had stayed grey for the shown one.
  connect(m_queue, &RunQueue::runStarting, this, &MainWindow::updateStopEnabled);
  // Once the scheduler has let the run go too (it still counts it while it reports the end).
  connect(m_queue, &RunQueue::runEnded, this, [this](int64_t, int64_t studyId) {
    QTimer::singleShot(0, this, [this, studyId] {
      updateStopEnabled();
      if (studyId == 0 || m_queue->hasStudyWork(studyId)) return;
      try {
        if (const auto record = study::StudyStore(*m_store).study(studyId))
          statusBar()->showMessage(studyOverText(*record));
      } catch (const std::exception&) {
        // The store cannot be read now: the Study tab says so when it next reads it.
      }
    });
  });
  connect(m_runsDock, &RunsDock::showRequested, this, [this](const std::vector<int64_t>& ids) {
    m_display->showSelection(ids);
    m_tabs->setCurrentWidget(m_display);
  });
  connect(m_history, &HistoryView::openRequested, this, &MainWindow::openStoredRun);
  connect(m_history, &HistoryView::compareRequested, this, &MainWindow::compareRuns);
  connect(m_history, &HistoryView::resumeRequested, this, &MainWindow::resumeRun);
  connect(m_history, &HistoryView::studyOpenRequested, this, &MainWindow::openStudy);
  connect(m_history, &HistoryView::storeError, this, &MainWindow::showError);
  connect(m_history, &HistoryView::done, this,
          [this](const QString& summary) { statusBar()->showMessage(summary, 10000); });
  connect(m_history, &HistoryView::runsDeleted, this, &MainWindow::forgetDeletedRuns);
  connect(m_history, &HistoryView::runsEdited, this, &MainWindow::catchUpWithStore);
  m_history->setLiveCheck([this](int64_t id) { return m_queue->isLive(id); });
  connect(m_study, &StudyView::compareRequested, this, &MainWindow::compareRuns);
  connect(m_study, &StudyView::stopRequested, this, [this](int64_t id) {
    m_queue->cancelStudy(id);
    // Said, as Resume study says what it does: the last message (another run's) had stood.
    statusBar()->showMessage(QString("Stopping study %1: its runs in training save a checkpoint "
                                     "and end cancelled; Resume study goes on from there")
                                 .arg(id));
  });
  connect(m_study, &StudyView::resumeRequested, this, [this](int64_t id) {
    if (refuseWhenReadOnly()) return;
    std::string error;
    const int64_t queued = m_queue->addStudy(id, &error);
    if (queued == 0 && !error.empty()) {
      showError(QString::fromStdString(error));
      return;
    }
    // Said, as Stop study says it: the stop's "Stopping study N" had stood over the resumed
    // study until it finished.
    if (queued > 0)
      statusBar()->showMessage(QString("Resumed study %1: %2 unfinished run%3 train on, each from "
                                       "its last checkpoint where it has one")
                                   .arg(id)
                                   .arg(queued)
                                   .arg(queued == 1 ? "" : "s"));
  });
  connect(m_study, &StudyView::runsReloaded, this, &MainWindow::showReloadedRuns);
  connect(m_tabs, &QTabWidget::currentChanged, this, [this](int index) {
    if (m_tabs->widget(index) == m_history) refreshHistory();
  });
  buildMenus();
  m_display->setExperiment(m_launch->experiment());
  m_display->setStoreEmpty(m_store->listRuns({}).empty());
  connect(m_timer, &QTimer::timeout, this, &MainWindow::tick);
  m_timer->start(33);  // ~30 Hz: drain, coalesce, replot what changed
  // Other processes (the CLI, a cluster's jobs) write to the same store: what is shown follows.
  auto* storeWatch = new QTimer(this);
  connect(storeWatch, &QTimer::timeout, this, [this] { followStoreChanges(); });
  storeWatch->start(kStoreWatchMs);
  restoreWindowSettings(settingsParts());
}

MainWindow::~MainWindow() {
  // Children read the views and colours (members): they go first, before ~QWidget's turn.
  m_timer->stop();
  delete m_runsDock;  // its table reads m_runsModel
  delete m_runsModel;
  delete m_tabs;  // the display, the study view and History
  delete m_configureDock;
  delete m_queue;  // stops its runs' sessions while the views they write to exist
}

QTableView* MainWindow::runsTable() const { return m_runsDock->table(); }

void MainWindow::buildMenus() {
  auto* file = menuBar()->addMenu("&File");
  // Not Ctrl+E: a text field or spin box with focus takes that as "end of line" (X11's key
  // bindings), so the export did nothing while the cursor was in the form.
  file->addAction("Export the shown runs (plots PNG/PDF/SVG, metrics CSV, configs JSON)…",
                  QKeySequence("Ctrl+Shift+E"), this, [this] {
                    if (m_display->shown().empty()) {
                      statusBar()->showMessage(
                          "Nothing to export: no run is shown (open one from History, or start "
                          "one)",
                          10000);
                      return;
                    }
                    // Says what it writes: a bare "Directory:" chooser wrote 39 files.
                    const size_t shown = m_display->shown().size();
                    const QString folder = widgets::askExistingDirectory(
                        this,
                        (shown == 1 ? QString("Export the shown run")
                                    : QString("Export the %1 shown runs").arg(shown)) +
                            ": each panel as PNG, PDF and SVG, metrics as CSV, configs as JSON",
                        "Into folder:");
                    if (!folder.isEmpty()) exportShownRun(folder);
                  });
  file->addAction("Open a run store in a new window…", QKeySequence::Open, this, [this] {
    const QString chosen = widgets::askSaveFileName(
        this, "Run store to open (an existing one, or a new file)", QString(),
        "Run stores (*.db);;All files (*)", QFileDialog::DontConfirmOverwrite);
    if (!chosen.isEmpty()) openStoreInNewWindow(chosen);
  });
  file->addAction("Quit", QKeySequence::Quit, this, &QWidget::close);
  auto* run = menuBar()->addMenu("&Run");
  run->addAction("Run", QKeySequence("Ctrl+R"), this, [this] { launch(); });
  run->addAction("Run comparison", QKeySequence("Ctrl+Shift+R"), this,
                 [this] { launchComparison(); });
  run->addAction("Run study", QKeySequence("Ctrl+Shift+S"), this, [this] { launchStudy(); });
  run->addAction("Start the demo", this, &MainWindow::startDemo);
  // A store this user may not write trains nothing: the actions say so by being grey.
  for (auto* action : run->actions()) action->setEnabled(!m_store->isReadOnly());
  m_stopAction =
      run->addAction("Stop the shown run", QKeySequence("Ctrl+."), this, [this] { stopFocused(); });
  m_stopAction->setEnabled(false);
  // One action per key sequence: a second QShortcut with the same keys makes Qt call both
  // ambiguous and fire neither.
  auto* history = menuBar()->addMenu("&History");
  // As the Compare button: with too few runs selected, the list is brought up and the status
  // bar says what to select (a modal dialog stopped the work to say it).
  history->addAction("Compare the runs selected in History", QKeySequence("Ctrl+Shift+C"), this,
                     [this] {
                       if (m_history->selectedIds().size() < 2) m_tabs->setCurrentWidget(m_history);
                       m_history->compareSelected();
                     });
  history->addAction("Show History", QKeySequence("Ctrl+H"), this,
                     [this] { m_tabs->setCurrentWidget(m_history); });
  // Another process (the CLI, a cluster's jobs) writes to the same store: read it again now.
  history->addAction("Read the store again (History and the open study)", QKeySequence("F5"), this,
                     [this] { followStoreChanges(/*evenIfUnchanged=*/true); });
  auto* view = menuBar()->addMenu("&View");
  m_configureDock->toggleViewAction()->setShortcut(QKeySequence("Ctrl+1"));
  m_runsDock->toggleViewAction()->setShortcut(QKeySequence("Ctrl+2"));
  view->addActions({m_configureDock->toggleViewAction(), m_runsDock->toggleViewAction()});
  view->addAction("Back to the comparison", QKeySequence("Alt+Left"), this,
                  [this] { m_display->backToComparison(); });
  view->addAction("Show all panels (after maximising one: right-click a panel)",
                  QKeySequence("Ctrl+0"), this,
                  [this] { m_display->dashboard()->maximize(QString()); });
  auto* help = menuBar()->addMenu("H&elp");
  help->addAction("Keyboard and mouse", QKeySequence::HelpContents, this,
                  [this] { showShortcutsBox(this, menuBar()); });
  help->addAction("About FourierLab", this, [this] {
    showAboutBox(this, QString::fromStdString(m_store->path()),
                 QString::fromStdString(m_queue->budget().describe()));
  });
}

void MainWindow::tick() {
  const RunDeltas deltas = m_queue->drain();
  m_display->apply(deltas);
  m_runsModel->update(deltas);
  m_study->apply(deltas);
  // Views of runs no longer shown or queued may go (a long History session).
  std::set<int64_t> keep(m_display->shown().begin(), m_display->shown().end());
  keep.insert(m_queue->runs().begin(), m_queue->runs().end());
  m_views->keep(keep);
  if (m_closingWait && !m_closeNow) {
    if (m_queue->idle()) {
      m_closeNow = true;
      close();
    } else {
      int left = 0;
      for (const int64_t id : m_queue->runs()) left += m_queue->isLive(id);
      m_closingWait->update(left, m_writeTrouble->isHidden() ? QString() : m_writeTrouble->text());
    }
  }
}

int64_t MainWindow::launch() { return launchWith(nlohmann::json::object(), m_launch->runName()); }

std::vector<int64_t> MainWindow::launchComparison() {
  std::vector<int64_t> ids;
  int64_t shown = 0;
  {
    const RunQueue::StartsHeld together(*m_queue);
    for (const auto& variant : m_launch->chosenVariants()) {
      const int64_t id =
          launchWith(variant.overrides, m_launch->armName(variant.label, variant.overrides));
      if (id == 0) break;
      ids.push_back(id);
      if (variant.shownFirst) shown = id;
    }
  }
  if (ids.empty()) return ids;
  std::vector<int64_t> order{shown ? shown : ids.front()};
  for (auto id : ids)
    if (id != order.front()) order.push_back(id);
  m_display->compare(order);
  return ids;
}

QString MainWindow::readOnlyStoreText() const {
  // A full disk is this store's for the writing again once there is room; another user's is not.
  const bool full = m_store->readOnlyBecause() == store::kNoSpaceLeft;
  return QString(
             "Read-only store: %1 %2, so nothing can be trained or edited in it. Browse, compare "
             "and export its runs, or %3.")
      .arg(QString::fromStdString(m_store->path()),
           QString::fromStdString(m_store->readOnlyBecause()),
           full ? "make room on its disk and open it again"
                : "start FourierLab with --db on a store you can write");
}

bool MainWindow::refuseWhenReadOnly() {
  if (!m_store->isReadOnly()) return false;
  showError(readOnlyStoreText());
  return true;
}

int64_t MainWindow::launchWith(const nlohmann::json& overrides, const std::string& name) {
  if (refuseWhenReadOnly()) return 0;
  auto experiment = m_launch->experiment();
  auto config = m_launch->config();
  if (experiment && config.ok() && !overrides.empty()) {
    auto values = config.values;
    for (const auto& [k, v] : overrides.items()) values[k] = v;
    config = validateRunConfig(*experiment, values);
  }
  if (!experiment || !config.ok()) {
    showError("The config is invalid:\n" + QString::fromStdString(config.summary()));
    return 0;
  }
  std::string error;
  const int64_t id = m_queue->add(experiment, config.values, name, &error);
  if (id == 0) {
    showError(QString::fromStdString(error));
  } else {
    m_display->showRun(id);
    // Where the new run is: Ctrl+R pressed on History or Study left that tab up, and only a
    // new row in the Runs dock said anything had started.
    m_tabs->setCurrentWidget(m_display);
  }
  return id;
}

int64_t MainWindow::launchStudy() {
  if (refuseWhenReadOnly()) return 0;
  const StudyPlan plan = m_launch->studyPlan();
  if (!plan.ok()) {
    showError("Cannot launch the study: " +
              QString::fromStdString(plan.errors.empty() ? "it has no runs" : plan.errors.front()));
    return 0;
  }
  std::string error;
  const int64_t id = storeStudy(*m_store, *m_launch->experiment(), plan.spec, &error);
  if (id == 0 || (m_queue->addStudy(id, &error) == 0 && !error.empty()))
    showError(QString::fromStdString(error));
  if (id) openStudy(id);
  return id;
}

void MainWindow::startDemo() {
  m_launch->selectExperiment("fourier-head");
  m_launch->selectPreset("(defaults)");
  m_launch->chooseVariants({"linear", "fourier N=4", "fourier N=12", "fourier N=20"});
  m_tabs->setCurrentWidget(m_display);
  launchComparison();
}

void MainWindow::openStudy(int64_t studyId) {
  if (!m_study->setStudy(studyId))
    showError(QString("There is no study %1 in this store.").arg(studyId));
  // The Configure dock follows, as it does for shown runs: its form and its studies are then
  // this study's experiment's, not whichever experiment was configured last.
  else if (m_study->record())
    m_launch->selectExperiment(QString::fromStdString(m_study->record()->experiment));
  m_tabs->setCurrentWidget(m_study);
}

bool MainWindow::resumeRun(int64_t runId) {
  if (refuseWhenReadOnly()) return false;
  std::string error, said;
  if (!m_queue->resume(runId, &error, &said)) {
    // The store refused it (another process finished it, say): the view shows the store's run.
    try {
      if (!m_queue->isLive(runId) && !m_queue->endedUnwritten(runId) && m_views->find(runId) &&
          m_views->reload(runId))
        showReloadedRuns({runId});
    } catch (const std::exception&) {
      // The store could not be read now: the error below says why the resume failed.
    }
    showError(QString::fromStdString(error));
    return false;
  }
  // Focused where it is shown: resuming one arm of a comparison had shown it alone.
  m_display->focusRun(runId);
  // Waiting for a slot, it can be stopped: Stop had stayed grey where the run was focused
  // already (nothing else told it).
  updateStopEnabled();
  m_tabs->setCurrentWidget(m_display);
  statusBar()->showMessage(QString::fromStdString(said));
  return true;
}

void MainWindow::stopFocused() {
  const int64_t runId = m_display->focused();
  if (m_queue->isLive(runId))
    m_queue->cancel(runId);
  else if (runId)
    stopTrainerOf(runId);
}

std::optional<store::RunTrainer> MainWindow::trainerElsewhere(int64_t runId) const {
  if (!runId || m_queue->isLive(runId)) return std::nullopt;
  try {
    return store::trainerOf(*m_store, runId);
  } catch (const std::exception&) {
    return std::nullopt;  // the store cannot be read now: nothing to stop from here yet
  }
}

void MainWindow::stopTrainerOf(int64_t runId) {
  const auto trainer = trainerElsewhere(runId);
  if (!trainer) return;  // it ended meanwhile
  const QString pid = QString::number(trainer->process.pid);
  if (const std::string why = store::cannotStop(trainer->process); !why.empty()) {
    showError(QString("Run %1 cannot be stopped from this window: %2")
                  .arg(runId)
                  .arg(QString::fromStdString(why)));
    return;
  }
  // Another process may train many runs (a sweep): the reader sees which before they all stop.
  QString command = QString::fromStdString(trainer->command);
  if (command.size() > 160) command = command.left(159) + "…";
  QStringList others;
  for (auto id : trainer->runs)
    if (id != runId) others << QString::number(id);
  QString text = QString(
                     "Run %1 trains in another process: pid %2%3.\n\nStop that process with "
                     "SIGTERM, as `kill` does?")
                     .arg(runId)
                     .arg(pid, command.isEmpty() ? QString() : " (" + command + ")");
  if (!others.isEmpty())
    text += QString(" It also trains run%1 %2: they stop too.")
                .arg(others.size() > 1 ? "s" : "", others.join(", "));
  text +=
      " Each stops after its current step, keeps a checkpoint and shows as cancelled; "
      "`fourierlab-cli run --resume ID` (`sweep resume` for a study) goes on from there.";
  if (QMessageBox::question(this, "FourierLab", text, QMessageBox::Yes | QMessageBox::No,
                            QMessageBox::No) != QMessageBox::Yes)
    return;
  if (const std::string why = store::askToStop(trainer->process); !why.empty()) {
    showError(QString("Run %1 was not stopped: %2").arg(runId).arg(QString::fromStdString(why)));
    return;
  }
  statusBar()->showMessage(QString("Asked pid %1 to stop: its runs show as cancelled once their "
                                   "checkpoints are written")
                               .arg(pid),
                           10000);
}

void MainWindow::updateStopEnabled() {
  const int64_t runId = m_display->focused();
  bool enabled = runId != 0 && m_queue->isLive(runId);
  QString why = enabled ? "Cancel the shown run after its current step; it keeps a checkpoint "
                          "(Ctrl+.)"
                        : RunsDock::kNothingToStop;
  if (const auto trainer = enabled ? std::nullopt : trainerElsewhere(runId)) {
    const std::string cannot = store::cannotStop(trainer->process);
    enabled = cannot.empty();
    why = enabled ? QString(
                        "Ask the process that trains run %1 (pid %2) to stop (SIGTERM, as "
                        "`kill` does); it keeps a checkpoint (Ctrl+.)")
                        .arg(runId)
                        .arg(trainer->process.pid)
                  : QString(
                        "Run %1 trains in another process, which this window cannot "
                        "stop: %2")
                        .arg(runId)
                        .arg(QString::fromStdString(cannot));
  }
  m_runsDock->setStopEnabled(enabled, why);
  if (m_stopAction) m_stopAction->setEnabled(enabled);
}

void MainWindow::openStoredRun(int64_t runId) {
  catchUpWithStore({runId});
  m_display->showRun(runId);
  // Its row in the Runs table (its eye, colour, verdict), unless it has one: one of the
  // comparison opened before, clicked, keeps that comparison's rows.
  const auto& rows = m_queue->runs();
  if (std::find(rows.begin(), rows.end(), runId) == rows.end()) m_queue->setOpened({runId});
  m_runsDock->scrollToRun(runId);
  m_tabs->setCurrentWidget(m_display);
}

bool MainWindow::reopenStoppedAtClose() {
  const StoppedAtClose stopped = takeStoppedAtClose(m_store->path());
  if (stopped.runs.empty()) return reopenInterruptedAtOpen();
  std::vector<int64_t> still;
  try {
    // Any not finished since: one still running is the closed window's process ending its step
    // (its row follows the store), or another process's resume.
    for (const int64_t id : stopped.runs)
      if (const auto run = m_store->run(id); run && run->status != RunStatus::Finished)
        still.push_back(id);
    if (stopped.studyId && !study::StudyStore(*m_store).study(stopped.studyId)) still.clear();
  } catch (const std::exception&) {
    return false;  // a store that cannot be read now: History says so when it is opened
  }
  if (still.empty()) return false;
  if (stopped.studyId)
    openStudy(stopped.studyId);
  else if (still.size() == 1)
    openStoredRun(still.front());
  else
    compareRuns(still);
  statusBar()->showMessage(describeStoppedAtClose(still, stopped.studyId));
  return true;
}

bool MainWindow::reopenInterruptedAtOpen() {
  std::vector<int64_t> still;
  std::set<int64_t> studies;
  try {
    // Any resumed or deleted since (another process's) is not this window's to say.
    const study::StudyStore studyStore(*m_store);
    for (const int64_t id : m_store->interruptedAtOpen())
      if (const auto run = m_store->run(id); run && run->status == RunStatus::Interrupted) {
        still.push_back(id);
        const auto of = studyStore.studiesOfRun(id);
        studies.insert(of.empty() ? 0 : of.front().first);
      }
  } catch (const std::exception&) {
    return false;
  }
  if (still.empty()) return false;
  // A study's runs: its tab, whose Resume study trains them on. Many runs of no one study (a
  // killed window with a long queue) are History's to list, not one crowded comparison.
  const int64_t studyId = studies.size() == 1 ? *studies.begin() : 0;
  constexpr size_t kMostCompared = 8;
  if (studyId) {
    openStudy(studyId);
  } else if (still.size() == 1) {
    openStoredRun(still.front());
  } else if (still.size() <= kMostCompared) {
    compareRuns(still);
  } else {
    m_history->filterText()->setText("interrupted");
    refreshHistory();
    m_tabs->setCurrentWidget(m_history);
  }
  statusBar()->showMessage(describeInterruptedAtOpen(still, studyId));
  return true;
}

void MainWindow::compareRuns(const std::vector<int64_t>& runIds) {
  if (runIds.empty()) return;
  catchUpWithStore(runIds);
  m_display->compare(runIds);
  // A row each in the Runs table: its eye takes a run off the plots and puts it back.
  m_queue->setOpened(runIds);
  m_runsDock->scrollToRun(m_display->focused());
  m_tabs->setCurrentWidget(m_display);
}

void MainWindow::refreshHistory() { m_history->refresh(); }

void MainWindow::followStoreChanges(bool evenIfUnchanged) {
  int64_t version = 0;
  bool marked = false;
  try {
    // A CLI run killed (kill -9) while the window looks read "running" until another process
    // opened the store. This window's own writes do not change dataVersion: it refreshes.
    if (!m_store->isReadOnly()) marked = !m_store->markDeadRunsInterrupted().empty();
    version = m_store->dataVersion();
  } catch (const std::exception&) {
    return;  // the store cannot be read or written now: the next look tries again
  }
  if (version == m_storeVersion && !evenIfUnchanged && !marked) return;
  m_storeVersion = version;
  if (m_tabs->currentWidget() == m_history) m_history->refresh();
  // History follows this window's runs too (their writers commit like another process). A
  // study the window trains is refreshed by its runs' events; one trained elsewhere is not.
  if (m_tabs->currentWidget() == m_study && m_study->studyId() &&
      !m_queue->hasStudyWork(m_study->studyId()))
    m_study->refresh();
  catchUpWithStore(m_display->shown());
  m_display->rereadRunSettings();
}

void MainWindow::catchUpWithStore(const std::vector<int64_t>& runIds) {
  const auto changed = refreshViews(*m_views, *m_queue, *m_store, runIds);
  if (!changed.empty()) showReloadedRuns(changed);
}

void MainWindow::showReloadedRuns(const std::vector<int64_t>& runIds) {
  bool shown = false;
  for (auto id : runIds) {
    m_runsModel->updateRun(id);
    shown = shown || std::count(m_display->shown().begin(), m_display->shown().end(), id) > 0;
  }
  if (shown) m_display->redraw();
  // A run another process trains has ended (or started): Stop follows.
  if (std::count(runIds.begin(), runIds.end(), m_display->focused())) updateStopEnabled();
}

void MainWindow::forgetDeletedRuns(const std::vector<int64_t>& runIds) {
  // The display first: it redraws the runs left from their views. History refused live runs,
  // so the queue lets every one go (its rows removed, the others' selection kept).
  m_display->forgetRuns(runIds);
  m_queue->forget(runIds);
  for (auto id : runIds)
    if (!m_queue->isLive(id)) m_views->forget(id);
  // Its cells of deleted runs are not started now, as the store says.
  if (m_study->studyId()) m_study->refresh();
}

QStringList MainWindow::exportShownRun(const QString& folder) {
  QString error;
  const QStringList written = m_display->exportShown(folder, &error);
  if (!error.isEmpty()) showError(error);
  statusBar()->showMessage(QString("Exported %1 files to %2").arg(written.size()).arg(folder),
                           10000);
  return written;
}

void MainWindow::pinRun(int64_t runId, bool pinned) {
  // The pin is a tag of the run in the store: kept with it, listed by History and the CLI.
  if (refuseWhenReadOnly()) return;
  try {
    if (pinned)
      m_store->addTags(runId, {RunView::kPinnedTag});
    else
      m_store->removeTag(runId, RunView::kPinnedTag);
  } catch (const std::exception& e) {
    showError(
        QString("Could not %1 run #%2: %3").arg(pinned ? "pin" : "unpin").arg(runId).arg(e.what()));
    return;
  }
  if (RunView* view = m_views->find(runId)) view->setPinned(pinned);
  m_runsModel->updateRun(runId);
  m_history->refresh();
}

void MainWindow::showError(const QString& what) {
  statusBar()->showMessage(what, 10000);
  if (isVisible()) QMessageBox::warning(this, "FourierLab", what);
}

bool MainWindow::openStoreInNewWindow(const QString& path) {
  const QString absolute = QFileInfo(path).absoluteFilePath();
  if (QFileInfo(absolute) == QFileInfo(QString::fromStdString(m_store->path()))) {
    statusBar()->showMessage(QString("%1 is this window's run store").arg(absolute), 10000);
    return false;
  }
  if (const std::string missing = store::missingStoreFolder(absolute.toStdString());
      !missing.empty()) {
    showError(QString("Cannot open %1: %2").arg(absolute, QString::fromStdString(missing)));
    return false;
  }
  if (!m_startWindow(QCoreApplication::applicationFilePath(), {"--db", absolute})) {
    showError(QString("Could not start a window for %1").arg(absolute));
    return false;
  }
  statusBar()->showMessage(QString("Opening %1 in a new window").arg(absolute), 10000);
  return true;
}

void MainWindow::closeEvent(QCloseEvent* event) {
  if (m_closingWait) {  // asked before, its runs stopping: closes once they are over
    event->setAccepted(m_closeNow);
    return;
  }
  // Only runs still training are asked about; waiting ones are cancelled with them.
  const int training = m_queue->trainingCount();
  if (training > 0 && isVisible() && m_askBeforeClosing &&
      QMessageBox::question(
          this, "FourierLab",
          QString("%1 run(s) are still training. Stop them (and the waiting ones) and quit? "
                  "Each keeps a checkpoint and can be resumed.")
              .arg(training),
          QMessageBox::Yes | QMessageBox::No, QMessageBox::No) != QMessageBox::Yes) {
    event->ignore();
    return;
  }
  // Said again by the next window on this store (its Runs dock would be empty of them).
  std::vector<int64_t> stopped;
  std::set<int64_t> studiesOfStopped;
  for (const int64_t id : m_queue->runs())
    if (m_queue->isLive(id)) {
      stopped.push_back(id);
      studiesOfStopped.insert(m_queue->studyOf(id));
    }
  // A study is reopened only where every stopped run was its: else the runs are shown.
  rememberStoppedAtClose(m_store->path(), stopped,
                         studiesOfStopped.size() == 1 ? *studiesOfStopped.begin() : 0);
  m_queue->closeToNewWork();
  m_queue->cancelAll();
  saveWindowSettings(settingsParts());
  if (m_queue->idle()) {
    event->accept();
    return;
  }
  // The window stays until the store holds the stopped runs' ends (tick() closes it then).
  event->ignore();
  m_closingWait = new ClosingWait(this);
  m_closingWait->update(static_cast<int>(stopped.size()), QString());
  connect(m_closingWait, &QProgressDialog::canceled, this, &MainWindow::quitWithoutWaiting);
}

void MainWindow::closeCancellingRuns() {
  if (m_closingWait) {
    quitWithoutWaiting();
    return;
  }
  m_askBeforeClosing = false;
  close();
}

void MainWindow::quitWithoutWaiting() {
  m_queue->stopWaitingForStore();
  m_closeNow = true;
  close();
}

WindowParts MainWindow::settingsParts() {
  return {this, m_launch, m_display, m_history, m_runsDock, m_configureDock};
}

}  // namespace fl::gui
