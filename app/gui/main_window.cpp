#include "app/gui/main_window.h"

#include <QCloseEvent>
#include <QDir>
#include <QFileDialog>
#include <QMenuBar>
#include <QDateTime>
#include <QDockWidget>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QMessageBox>
#include <QProgressBar>
#include <QPushButton>
#include <QSettings>
#include <QSlider>
#include <QStatusBar>
#include <QTabWidget>
#include <QTableWidget>
#include <QTimer>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>

#include "app/gui/history_view.h"
#include "app/gui/launch_panel.h"
#include "app/gui/probe_server.h"
#include "app/gui/run_session.h"
#include "core/engine/build_info.h"
#include "core/store/resume_plan.h"
#include "core/store/run_store.h"
#include <qcustomplot.h>

#include "widgets/dashboard.h"
#include "widgets/plot_frame.h"
#include "widgets/probe_panel.h"
#include "widgets/run_colors.h"
#include "widgets/snapshot_plot.h"

namespace fl::gui {

namespace {

QString eta(const ProgressEvent& p) {
  if (p.step <= 0 || p.totalSteps <= 0) return "-";
  const double left = p.wallSeconds * (p.totalSteps - p.step) / p.step;
  return QString("%1:%2").arg(static_cast<int>(left) / 60).arg(static_cast<int>(left) % 60, 2, 10, QChar('0'));
}

QTableWidgetItem* item(const QString& text) {
  auto* i = new QTableWidgetItem(text);
  i->setFlags(i->flags() & ~Qt::ItemIsEditable);
  return i;
}


}  // namespace

MainWindow::MainWindow(const ExperimentRegistry& registry, std::unique_ptr<store::RunStore> store,
                       QWidget* parent)
    : QMainWindow(parent), m_registry(registry), m_store(std::move(store)),
      m_launch(new LaunchPanel(registry, this)), m_dashboard(new widgets::Dashboard(this)),
      m_tabs(new QTabWidget(this)), m_runs(new QTableWidget(0, 7, this)),
      m_configDiff(new QTableWidget(this)),
      m_history(nullptr), m_smoothing(new QSlider(Qt::Horizontal, this)),
      m_focusLabel(new QLabel(this)), m_timer(new QTimer(this)) {
  setWindowTitle("FourierLab");

  auto* configureDock = new QDockWidget("Configure", this);
  configureDock->setObjectName("configure");
  configureDock->setWidget(m_launch);
  addDockWidget(Qt::LeftDockWidgetArea, configureDock);

  m_history = new HistoryView(*m_store, this);
  auto* live = new QWidget(this);
  auto* liveLayout = new QVBoxLayout(live);
  auto* controls = new QHBoxLayout;
  // The focus line can be long (a run's verdicts): it wraps rather than squeezing the slider.
  m_focusLabel->setWordWrap(true);
  m_focusLabel->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
  controls->addWidget(m_focusLabel, 1);
  controls->addWidget(new QLabel("Smoothing", live));
  m_smoothing->setRange(0, 99);
  m_smoothing->setFixedWidth(140);
  m_smoothing->setToolTip("EMA weight; the raw curve stays faint behind the smoothed one");
  controls->addWidget(m_smoothing);
  liveLayout->addLayout(controls);
  liveLayout->addWidget(m_dashboard, 1);
  m_configDiff->setVisible(false);  // shown while comparing: the config values that differ
  m_configDiff->verticalHeader()->hide();
  liveLayout->addWidget(m_configDiff);
  m_tabs->addTab(live, "Live");
  m_tabs->addTab(m_history, "History");
  setCentralWidget(m_tabs);

  m_runs->setHorizontalHeaderLabels({"run", "name", "status", "progress", "ETA", "device", "message"});
  m_runs->horizontalHeader()->setStretchLastSection(true);
  m_runs->setColumnWidth(3, 160);
  m_runs->setSelectionBehavior(QAbstractItemView::SelectRows);
  m_runs->verticalHeader()->hide();
  auto* queue = new QWidget(this);
  auto* queueLayout = new QVBoxLayout(queue);
  queueLayout->addWidget(m_runs);
  auto* stop = new QPushButton("Stop selected run", queue);
  stop->setToolTip("Cancel the focused run after its current step (Ctrl+.)");
  queueLayout->addWidget(stop);
  // Room for a comparison's four arms without scrolling.
  m_runs->setMinimumHeight(m_runs->horizontalHeader()->sizeHint().height() +
                           4 * m_runs->verticalHeader()->defaultSectionSize() + 4);
  auto* queueDock = new QDockWidget("Runs", this);
  queueDock->setObjectName("runs");
  queueDock->setWidget(queue);
  addDockWidget(Qt::BottomDockWidgetArea, queueDock);


  statusBar()->showMessage(QString("Run store: %1   |   %2")
                               .arg(QString::fromStdString(m_store->path()))
                               .arg(QString::fromStdString("LibTorch " + currentBuildInfo().torchVersion)));

  connect(m_launch, &LaunchPanel::runRequested, this, [this] { launch(); });
  connect(m_launch, &LaunchPanel::comparisonRequested, this, [this] { launchComparison(); });
  connect(m_launch, &LaunchPanel::experimentChanged, this, [this] {
    if (auto e = m_launch->experiment()) buildPanels(*e);
  });
  connect(stop, &QPushButton::clicked, this, &MainWindow::stopFocused);
  connect(m_runs, &QTableWidget::cellClicked, this, [this](int row, int) {
    focusRun(m_runs->item(row, 0)->data(Qt::UserRole).toLongLong());
  });
  connect(m_history, &HistoryView::openRequested, this, &MainWindow::openStoredRun);
  connect(m_history, &HistoryView::compareRequested, this, &MainWindow::compareRuns);
  connect(m_history, &HistoryView::resumeRequested, this, &MainWindow::resumeRun);
  connect(m_history, &HistoryView::storeError, this, &MainWindow::showError);
  connect(m_smoothing, &QSlider::valueChanged, this, [this](int v) { m_dashboard->setSmoothing(v / 100.0); });
  connect(m_tabs, &QTabWidget::currentChanged, this, [this](int index) {
    if (m_tabs->widget(index) == m_history) refreshHistory();
  });
  auto* file = menuBar()->addMenu("&File");
  file->addAction("Export the shown run (plots PNG/PDF/SVG, metrics CSV, config JSON)…",
                  QKeySequence("Ctrl+E"), this, [this] {
                    const QString folder = QFileDialog::getExistingDirectory(this, "Export to folder");
                    if (!folder.isEmpty()) exportShownRun(folder);
                  });
  file->addAction("Quit", QKeySequence::Quit, this, &QWidget::close);
  auto* runMenu = menuBar()->addMenu("&Run");
  runMenu->addAction("Run", QKeySequence("Ctrl+R"), this, [this] { launch(); });
  runMenu->addAction("Run comparison", QKeySequence("Ctrl+Shift+R"), this, [this] { launchComparison(); });
  runMenu->addAction("Stop the shown run", QKeySequence("Ctrl+."), this, [this] { stopFocused(); });
  // One action per key sequence: a second QShortcut with the same keys makes Qt call both
  // ambiguous and fire neither.
  auto* historyMenu = menuBar()->addMenu("&History");
  historyMenu->addAction("Compare the runs selected in History", QKeySequence("Ctrl+Shift+C"), this,
                         [this] {
                           const auto ids = m_history->selectedIds();
                           if (ids.size() >= 2) compareRuns(ids);
                           else showError("Select two or more runs in the History tab to compare them.");
                         });
  historyMenu->addAction("Show History", QKeySequence("Ctrl+H"), this,
                         [this] { m_tabs->setCurrentWidget(m_history); });

  if (auto e = m_launch->experiment()) buildPanels(*e);
  connect(m_timer, &QTimer::timeout, this, &MainWindow::tick);
  m_timer->start(33);  // ~30 Hz: drain, coalesce, replot what changed

  restoreSettings();
}

MainWindow::~MainWindow() = default;

int64_t MainWindow::launch() {
  const std::string name = m_launch->presetName().toStdString();
  return launchWith(nlohmann::json::object(), name);
}

std::vector<int64_t> MainWindow::launchComparison() {
  auto experiment = m_launch->experiment();
  std::vector<int64_t> ids;
  if (!experiment) return ids;
  int64_t shown = 0;
  for (const auto& variant : m_launch->chosenVariants()) {
    const int64_t id = launchWith(variant.overrides, variant.label);
    if (id == 0) break;
    ids.push_back(id);
    if (variant.shownFirst) shown = id;
  }
  if (ids.empty()) return ids;
  if (shown == 0) shown = ids.front();
  focusRun(shown);
  for (auto id : ids)
    if (id != shown) m_overlaid.push_back(id);
  return ids;
}

int64_t MainWindow::launchWith(const nlohmann::json& overrides, const std::string& name) {
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
  int64_t id = 0;
  try {
    id = m_store->createRun({experiment->name(), name, config.values, {}, currentBuildInfo().toJson()});
  } catch (const std::exception& e) {
    showError(QString("Cannot record the run: %1").arg(e.what()));
    return 0;
  }
  m_dashboard->setRunLabel(id, QString::fromStdString(name));
  auto* session = new RunSession(experiment, config.values, m_store->path(), id, name, this);
  m_sessions.push_back(session);
  focusRun(id);
  startQueued();
  updateRunsTable();
  return id;
}

bool MainWindow::resumeRun(int64_t runId) {
  for (auto* s : m_sessions)
    if (s->live().id == runId && !s->done()) {
      showError(QString("Run %1 is still in the queue or training.").arg(runId));
      return false;
    }
  store::ResumePlan plan;
  try {
    plan = store::prepareResume(m_registry, *m_store, runId);
  } catch (const std::exception& e) {
    showError(e.what());
    return false;
  }
  if (!plan.ok()) {
    showError(QString::fromStdString(plan.error));
    return false;
  }
  auto run = m_store->run(runId);
  auto* session = new RunSession(plan.experiment, plan.config.values, m_store->path(), runId,
                                 run ? run->name : std::string(), this);
  if (!plan.fromStart) session->setResume(plan.point);
  if (!plan.note.empty()) statusBar()->showMessage(QString::fromStdString(plan.note), 15000);
  m_sessions.push_back(session);
  m_focused = 0;
  focusRun(runId);  // the stored curves up to the checkpoint, then live
  startQueued();
  updateRunsTable();
  return true;
}

bool MainWindow::isShown(int64_t runId) const {
  return runId == m_focused ||
         std::find(m_overlaid.begin(), m_overlaid.end(), runId) != m_overlaid.end();
}

void MainWindow::startQueued() {
  int running = 0;
  for (auto* s : m_sessions) running += s->started() && !s->done();
  for (auto* s : m_sessions) {
    if (running >= m_launch->parallelRuns()) break;
    if (!s->started() && !s->done()) {
      s->start();
      ++running;
    }
  }
}

void MainWindow::stopFocused() {
  for (auto* s : m_sessions)
    if (s->live().id == m_focused) cancelSession(s);
  updateRunsTable();
}

void MainWindow::cancelSession(RunSession* session) {
  const bool queued = !session->started() && !session->done();
  session->cancel();
  // A run that never started has no writer to record it: say so here, or the next start would
  // find it "queued" by a dead process and call it interrupted.
  if (queued) {
    try {
      m_store->finishRun(session->live().id, RunStatus::Cancelled, session->live().message);
    } catch (const std::exception& e) {
      showError(QString("Cannot record the cancelled run: %1").arg(e.what()));
    }
  }
}

void MainWindow::focusRun(int64_t runId) {
  m_overlaid.clear();
  if (m_probeServer && m_probeServer->runId() != runId) m_probeServer.reset();
  if (runId == m_focused) return;
  m_focused = runId;
  m_dashboard->clearData();
  // Curves so far: the store's and, for a live run, its session's (see loadCurves).
  openStoredRun(runId);
}

void MainWindow::openStoredRun(int64_t runId) {
  m_focused = runId;
  m_dashboard->setShownRun(runId);  // its snapshot curves in its colour, like its metrics
  auto run = m_store->run(runId);
  if (!run) return;
  if (!run->name.empty()) m_dashboard->setRunLabel(runId, QString::fromStdString(run->name));
  if (auto e = m_registry.find(run->experiment)) {
    m_launch->selectExperiment(QString::fromStdString(e->name()));
    buildPanels(*e);
  }
  m_configDiff->setVisible(false);
  loadCurves(runId);
  for (const auto& s : snapshotsOf(runId, /*latestOnly=*/false)) m_dashboard->addSnapshot(s.snapshot, s.step);
  updateMetricsTable();
  // A finished run's message is its verdicts (LEAKS, the paper's figures): shown with it.
  showFocusLine(runId, run->name,
                toString(run->status) + (run->message.empty() ? "" : ": " + run->message));
  m_dashboard->refresh();
  m_tabs->setCurrentIndex(0);
}

namespace {

// The last step of a run to read from the store: all of a stored run, a resumed live run's
// past up to its checkpoint, nothing of a fresh live run (its session has all of it).
int64_t storedPartOf(const RunSession* live) {
  if (!live) return std::numeric_limits<int64_t>::max();
  return live->firstStep() > 0 ? live->firstStep() : -1;
}

}  // namespace

void MainWindow::showFocusLine(int64_t runId, const std::string& name, const std::string& state) {
  m_focusLabel->setText(QString("<b style='color:%1'>run %2</b> %3 — %4")
                            .arg(widgets::runColor(runId).name())
                            .arg(runId)
                            .arg(QString::fromStdString(name).toHtmlEscaped())
                            .arg(QString::fromStdString(state).toHtmlEscaped()));
}

const RunSession* MainWindow::liveSession(int64_t runId) const {
  // The newest: a run stopped and resumed in this window has an older, finished session too.
  for (auto it = m_sessions.rbegin(); it != m_sessions.rend(); ++it)
    if ((*it)->live().id == runId && (*it)->started()) return *it;
  return nullptr;
}

void MainWindow::loadCurves(int64_t runId) {
  // A live run: the store up to where this session started (a resumed run's past), then
  // everything the session reported, which the store may not have written yet.
  const RunSession* live = liveSession(runId);
  const int64_t storedUpTo = storedPartOf(live);
  std::map<std::string, std::pair<std::vector<double>, std::vector<double>>> curves;
  if (storedUpTo >= 0)  // a fresh live run's session has all of it: no store reads at all
    for (const auto& key : m_store->metricKeys(runId)) {
      auto& [steps, values] = curves[key];
      for (const auto& p : m_store->metric(runId, key)) {
        if (p.step > storedUpTo) break;
        steps.push_back(static_cast<double>(p.step));
        values.push_back(p.value);
      }
    }
  if (live)
    for (const auto& [key, series] : live->history().metrics) {
      auto& [steps, values] = curves[key];
      steps.insert(steps.end(), series.first.begin(), series.first.end());
      values.insert(values.end(), series.second.begin(), series.second.end());
    }
  auto& last = m_storedLast[runId];
  last.clear();
  for (auto& [key, series] : curves) {
    if (!series.second.empty()) last[key] = series.second.back();
    m_dashboard->setMetric(runId, key, std::move(series.first), std::move(series.second));
  }
}

std::vector<store::StoredSnapshot> MainWindow::snapshotsOf(int64_t runId, bool latestOnly) const {
  const RunSession* live = liveSession(runId);
  const int64_t storedUpTo = storedPartOf(live);
  std::vector<store::StoredSnapshot> out;
  if (storedUpTo >= 0)
    for (const auto& name : m_store->snapshotNames(runId))
      for (auto& s : m_store->snapshots(runId, name, latestOnly && !live))
        if (s.step <= storedUpTo) out.push_back(std::move(s));
  if (live)
    for (const auto& e : live->history().snapshots) out.push_back({e.step, e.snapshot});
  if (latestOnly) {  // the newest of each name
    std::map<std::string, store::StoredSnapshot> newest;
    for (auto& s : out) newest[s.snapshot.name] = std::move(s);
    out.clear();
    for (auto& [name, s] : newest) out.push_back(std::move(s));
  }
  return out;
}

void MainWindow::compareRuns(const std::vector<int64_t>& runIds) {
  if (runIds.empty()) return;
  std::vector<store::RunRecord> runs;
  for (auto id : runIds)
    if (auto run = m_store->run(id)) runs.push_back(*run);
  // The config values that differ, one column per run.
  std::set<std::string> keys;
  for (const auto& r : runs)
    for (const auto& [k, v] : r.config.items()) keys.insert(k);
  QStringList differing;
  for (const auto& k : keys) {
    std::set<std::string> values;
    for (const auto& r : runs) values.insert(r.config.value(k, nlohmann::json()).dump());
    if (values.size() > 1) differing << QString::fromStdString(k);
  }
  // An unnamed run is labelled by what sets it apart ("fope", "fourier 12"), so legends say
  // which curve is which.
  auto labelOf = [&](const store::RunRecord& r) {
    if (!r.name.empty()) return QString::fromStdString(r.name);
    QStringList parts;
    for (const auto& k : differing) {
      const auto v = r.config.value(k.toStdString(), nlohmann::json());
      parts << QString::fromStdString(v.is_string() ? v.get<std::string>() : v.dump());
    }
    return parts.join(' ');
  };
  for (const auto& r : runs) m_dashboard->setRunLabel(r.id, labelOf(r));
  m_focused = 0;
  focusRun(runIds.front());
  for (const auto& r : runs) {
    if (r.id == runIds.front()) continue;
    m_dashboard->setRunLabel(r.id, labelOf(r));
    loadCurves(r.id);
    for (const auto& s : snapshotsOf(r.id, /*latestOnly=*/true)) m_dashboard->addOverlaySnapshot(r.id, s.snapshot);
    m_overlaid.push_back(r.id);  // live ones keep appending
  }
  m_configDiff->clear();
  m_configDiff->setRowCount(static_cast<int>(runs.size()));
  m_configDiff->setColumnCount(differing.size() + 1);
  m_configDiff->setHorizontalHeaderLabels(QStringList{"run"} + differing);
  for (size_t i = 0; i < runs.size(); ++i) {
    auto* id = item(QString("#%1 %2").arg(runs[i].id).arg(QString::fromStdString(runs[i].name)));
    id->setForeground(widgets::runColor(runs[i].id));
    m_configDiff->setItem(static_cast<int>(i), 0, id);
    for (int c = 0; c < differing.size(); ++c) {
      const auto v = runs[i].config.value(differing[c].toStdString(), nlohmann::json());
      m_configDiff->setItem(static_cast<int>(i), c + 1,
                            item(QString::fromStdString(v.is_string() ? v.get<std::string>() : v.dump())));
    }
  }
  m_configDiff->resizeColumnsToContents();
  // Every compared run's row visible (up to six, then it scrolls).
  m_configDiff->setFixedHeight(m_configDiff->horizontalHeader()->sizeHint().height() +
                               std::min<int>(static_cast<int>(runs.size()), 6) *
                                   m_configDiff->verticalHeader()->defaultSectionSize() + 4);
  m_configDiff->setVisible(true);
  updateMetricsTable();
  m_dashboard->refresh();
}

void MainWindow::tick() {
  if (m_probeServer && m_probe) {
    std::string failure;
    for (const auto& answer : m_probeServer->takeAnswers(&failure))
      m_probe->setAnswer(answer.snapshot, answer.step);
    if (!failure.empty()) {
      m_probe->setNote(QString::fromStdString("The probe failed: " + failure));
      m_probeServer.reset();
    }
  }
  bool anyChange = false;
  bool statusChanged = false;
  for (auto* s : m_sessions) {
    if (!s->started()) continue;
    RunDelta delta = s->drain();
    if (delta.empty()) continue;
    anyChange = true;
    statusChanged = statusChanged || delta.statusChanged;
    if (!isShown(s->live().id)) continue;
    for (auto& [key, series] : delta.metrics)
      m_dashboard->appendMetric(s->live().id, key, series.first, series.second);
    if (s->live().id != m_focused) {  // an overlaid run: its predictions over the shown one's
      for (const auto& snap : delta.snapshots)
        if (snap.requestId == 0) m_dashboard->addOverlaySnapshot(s->live().id, snap.snapshot);
      continue;
    }
    bool evaluated = false;
    for (const auto& snap : delta.snapshots) {
      // Probe answers arrive in request order: the last one drawn is the newest.
      if (snap.requestId != 0 && m_probe) m_probe->setAnswer(snap.snapshot, snap.step);
      else if (snap.requestId == 0) {
        m_dashboard->addSnapshot(snap.snapshot, snap.step);
        evaluated = true;
      }
    }
    // After each evaluation, ask the probe again: it shows what the model predicts now.
    if (evaluated && !s->done()) askProbe();
  }
  if (anyChange) {
    m_dashboard->refresh();
    startQueued();
    m_tablesPending = true;
  }
  // Tables a few times a second (they rebuild their items), and at once when a status changes;
  // a skipped update is caught up by a later tick even if no event comes.
  if (!m_tablesPending) return;
  if (!statusChanged && m_tablesUpdated.isValid() && m_tablesUpdated.elapsed() < 250) return;
  m_tablesPending = false;
  m_tablesUpdated.start();
  for (auto it = m_sessions.rbegin(); it != m_sessions.rend(); ++it) {  // the newest of the run
    if ((*it)->live().id != m_focused) continue;
    const auto& live = (*it)->live();
    const std::string verdicts = (*it)->done() || !live.judgement.empty() ? live.summary() : "";
    showFocusLine(m_focused, live.name,
                  toString(live.status) + " " + live.device + (verdicts.empty() ? "" : " " + verdicts));
    break;
  }
  updateMetricsTable();
  updateRunsTable();
}

void MainWindow::updateRunsTable() {
  m_runs->setRowCount(static_cast<int>(m_sessions.size()));
  for (size_t i = 0; i < m_sessions.size(); ++i) {
    const auto& live = m_sessions[i]->live();
    const int row = static_cast<int>(i);
    auto* id = item(QString::number(live.id));
    id->setData(Qt::UserRole, QVariant::fromValue<qlonglong>(live.id));
    id->setForeground(widgets::runColor(live.id));
    m_runs->setItem(row, 0, id);
    m_runs->setItem(row, 1, item(QString::fromStdString(live.name)));
    m_runs->setItem(row, 2, item(QString::fromStdString(toString(live.status))));
    auto* bar = qobject_cast<QProgressBar*>(m_runs->cellWidget(row, 3));
    if (!bar) {
      bar = new QProgressBar(m_runs);
      m_runs->setCellWidget(row, 3, bar);
    }
    bar->setRange(0, 1000);
    bar->setValue(live.progress.totalSteps > 0
                      ? static_cast<int>(1000 * live.progress.step / live.progress.totalSteps)
                      : 0);
    bar->setFormat(QString("epoch %1/%2").arg(live.progress.epoch).arg(live.progress.totalEpochs));
    m_runs->setItem(row, 4, item(m_sessions[i]->done() ? "-" : eta(live.progress)));
    m_runs->setItem(row, 5, item(QString::fromStdString(live.device)));
    auto* message = item(QString::fromStdString(live.summary()));
    message->setToolTip(message->text());
    // Red for a failed run, a failed judgement (LEAKS) or a result outside the paper's spread;
    // green for one within it.
    const bool failed = live.status == RunStatus::Failed;
    if (failed || live.judged())
      message->setForeground(failed || live.judgedBad() ? QColor(170, 0, 0) : QColor(0, 110, 0));
    if (failed) m_runs->item(row, 2)->setForeground(QColor(170, 0, 0));
    m_runs->setItem(row, 6, message);
  }
}

void MainWindow::refreshHistory() { m_history->refresh(); }

QStringList MainWindow::exportShownRun(const QString& folder) {
  QStringList written;
  if (m_focused == 0) return written;
  QDir().mkpath(folder);
  const QString stem = QString("%1/run-%2").arg(folder).arg(m_focused);
  for (auto* plot : m_dashboard->findChildren<QCustomPlot*>()) {
    const QString panel = plot->parentWidget() ? plot->parentWidget()->objectName() : QString();
    if (panel.isEmpty()) continue;
    const QString base = stem + "-" + panel;
    if (plot->savePng(base + ".png", 0, 0, 2.0)) written << base + ".png";
    if (plot->savePdf(base + ".pdf")) written << base + ".pdf";
    if (widgets::savePlotSvg(plot, base + ".svg")) written << base + ".svg";
  }
  QString error;
  if (m_history->exportRuns({m_focused}, stem + "-metrics.csv", &error)) written << stem + "-metrics.csv";
  if (auto run = m_store->run(m_focused)) {
    QFile config(stem + "-config.json");
    if (config.open(QIODevice::WriteOnly)) {
      config.write(QByteArray::fromStdString(run->config.dump(2)));
      written << config.fileName();
    }
  }
  if (!error.isEmpty()) showError(error);
  statusBar()->showMessage(QString("Exported %1 files to %2").arg(written.size()).arg(folder), 10000);
  return written;
}

void MainWindow::buildPanels(const Experiment& experiment) {
  m_dashboard->setPanels(experiment.panels());
  m_dashboard->setSmoothing(m_smoothing->value() / 100.0);  // new plots start unsmoothed
  m_probe = nullptr;
  m_metricsTable = new QTableWidget(m_dashboard);
  m_metricsTable->verticalHeader()->hide();
  m_metricsTable->setToolTip("The latest value of every metric of the shown runs");
  m_dashboard->addPanelWidget("metrics_table", m_metricsTable);
  for (const auto& panel : experiment.panels()) {
    if (panel.kind != PanelKind::Probe) continue;
    QList<widgets::ProbeSlider> sliders;
    for (const auto& in : experiment.probeInputs())
      sliders << widgets::ProbeSlider{QString::fromStdString(in.name), in.minimum, in.maximum,
                                      in.defaultValue, QString::fromStdString(in.help)};
    QStringList series;
    for (const auto& s : panel.series) series << QString::fromStdString(s);
    m_probe = new widgets::ProbePanel(QString::fromStdString(panel.title), series, sliders, m_dashboard);
    m_probe->setToolTip(QString::fromStdString(panel.help));
    if (m_focused != 0) m_probe->plot()->setShownRun(m_focused);
    connect(m_probe, &widgets::ProbePanel::probeRequested, this, &MainWindow::askProbe);
    m_dashboard->addPanelWidget(QString::fromStdString(panel.id), m_probe);
  }
}

void MainWindow::askProbe() {
  if (!m_probe || m_focused == 0) return;
  for (auto* s : m_sessions)
    if (s->live().id == m_focused && s->started() && !s->done()) {
      s->requestProbe(m_probe->inputs());
      m_probe->setNote("");
      return;
    }
  // Not training: answer from the run's last checkpoint.
  if (!m_probeServer || m_probeServer->runId() != m_focused) {
    m_probeServer.reset();
    auto run = m_store->run(m_focused);
    auto experiment = run ? m_registry.find(run->experiment) : nullptr;
    const auto checkpoints = run ? m_store->checkpoints(m_focused) : std::vector<store::Checkpoint>{};
    if (!experiment || checkpoints.empty()) {
      m_probe->setNote("This run has no checkpoint to probe; start or resume it.");
      return;
    }
    m_probeServer = std::make_unique<ProbeServer>(experiment, run->config, checkpoints.back().path,
                                                  checkpoints.back().step, m_focused);
    m_probe->setNote(QString("Answering from the checkpoint at step %1.").arg(checkpoints.back().step));
  }
  m_probeServer->request(m_probe->inputs());
}

void MainWindow::updateMetricsTable() {
  if (!m_metricsTable) return;
  std::vector<int64_t> shown{m_focused};
  shown.insert(shown.end(), m_overlaid.begin(), m_overlaid.end());
  std::vector<std::pair<int64_t, std::map<std::string, double>>> rows;
  for (auto id : shown) {
    if (id == 0) continue;
    std::map<std::string, double> values;
    bool live = false;
    for (auto* s : m_sessions)
      if (s->live().id == id && s->started()) {
        values = s->live().lastMetrics;
        live = true;
      }
    if (!live) values = m_storedLast[id];  // read once, when its curves were loaded
    rows.emplace_back(id, std::move(values));
  }
  std::set<std::string> keys;
  for (const auto& [id, values] : rows)
    for (const auto& [k, v] : values) keys.insert(k);
  QStringList headers{"run"};
  for (const auto& k : keys) headers << QString::fromStdString(k);
  m_metricsTable->setColumnCount(headers.size());
  m_metricsTable->setHorizontalHeaderLabels(headers);
  m_metricsTable->setRowCount(static_cast<int>(rows.size()));
  for (size_t r = 0; r < rows.size(); ++r) {
    auto* id = item(QString("#%1").arg(rows[r].first));
    id->setForeground(widgets::runColor(rows[r].first));
    m_metricsTable->setItem(static_cast<int>(r), 0, id);
    int c = 1;
    for (const auto& k : keys) {
      auto it = rows[r].second.find(k);
      m_metricsTable->setItem(static_cast<int>(r), c++,
                              item(it == rows[r].second.end() ? "-" : QString::number(it->second, 'g', 5)));
    }
  }
  m_metricsTable->resizeColumnsToContents();
}

void MainWindow::showError(const QString& what) {
  statusBar()->showMessage(what, 10000);
  if (isVisible()) QMessageBox::warning(this, "FourierLab", what);
}

void MainWindow::closeEvent(QCloseEvent* event) {
  int active = 0;
  for (auto* s : m_sessions) active += s->started() && !s->done();
  if (active > 0 && isVisible() && m_askBeforeClosing &&
      QMessageBox::question(
          this, "FourierLab",
          QString("%1 run(s) are still training. Cancel them and quit?").arg(active)) !=
          QMessageBox::Yes) {
    event->ignore();
    return;
  }
  for (auto* s : m_sessions) cancelSession(s);
  for (auto* s : m_sessions) delete s;  // joins the training threads, flushes the store
  m_sessions.clear();
  saveSettings();
  event->accept();
}

void MainWindow::closeCancellingRuns() {
  m_askBeforeClosing = false;
  close();
}

void MainWindow::restoreSettings() {
  QSettings settings("FourierLab", "FourierLab");
  restoreGeometry(settings.value("geometry").toByteArray());
  restoreState(settings.value("windowState").toByteArray());
  if (settings.contains("experiment")) m_launch->selectExperiment(settings.value("experiment").toString());
  if (settings.contains("preset")) m_launch->selectPreset(settings.value("preset").toString());
  if (settings.contains("device")) m_launch->selectDevice(settings.value("device").toString());
  if (settings.contains("parallelRuns")) m_launch->setParallelRuns(settings.value("parallelRuns").toInt());
  m_smoothing->setValue(settings.value("smoothing", 0).toInt());
  m_history->restoreSettings(settings);
  if (!settings.contains("geometry")) resize(1500, 950);
}

void MainWindow::saveSettings() const {
  QSettings settings("FourierLab", "FourierLab");
  settings.setValue("geometry", saveGeometry());
  settings.setValue("windowState", saveState());
  if (auto e = m_launch->experiment()) settings.setValue("experiment", QString::fromStdString(e->name()));
  settings.setValue("preset", m_launch->presetName());
  settings.setValue("device", m_launch->device());
  settings.setValue("parallelRuns", m_launch->parallelRuns());
  settings.setValue("smoothing", m_smoothing->value());
  m_history->saveSettings(settings);
}

}  // namespace fl::gui
