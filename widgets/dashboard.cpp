#include "widgets/dashboard.h"

#include <QApplication>
#include <QClipboard>
#include <QGridLayout>
#include <QMenu>
#include <QMessageBox>
#include <QResizeEvent>
#include <QShortcut>
#include <QSignalBlocker>
#include <QTabWidget>

#include <algorithm>

#include <qcustomplot.h>

#include "widgets/file_dialogs.h"
#include "widgets/heatmap_plot.h"
#include "widgets/matrix_heatmap_plot.h"
#include "widgets/metric_plot.h"
#include "widgets/plot_frame.h"
#include "widgets/run_colors.h"
#include "widgets/snapshot_plot.h"
#include "widgets/verdict_panel.h"

namespace fl::widgets {

namespace {

QStringList toStringList(const std::vector<std::string>& items) {
  QStringList out;
  for (const auto& s : items) out << QString::fromStdString(s);
  return out;
}

// The legend suffix of a key matched by a prefix: what follows the prefix, plus the word the
// prefix cut ("qk/period_h*": "h3") or the symbol it ends on ("val/ppl@*": "@512"), since a
// bare "3" or "512" would not say what it counts.
QString prefixSuffix(const QString& key, const QString& prefix) {
  int start = static_cast<int>(prefix.size());
  while (start > 0 && prefix[start - 1].isLetter()) --start;
  if (start == prefix.size() && start > 0 && !QString("/_.- ").contains(prefix[start - 1])) --start;
  return key.mid(start);
}

}  // namespace

// Panels keep at least this size: below it a legend and four tick labels no longer fit. A
// dashboard with more rows than its height holds scrolls (its owner puts it in a scroll area).
constexpr int kMinPanelWidth = 380;
constexpr int kMinPanelHeight = 230;

Dashboard::Dashboard(QWidget* parent)
    : QWidget(parent),
      m_ownColors(std::make_unique<RunColors>()),
      m_colors(m_ownColors.get()),
      m_grid(new QGridLayout(this)),
      m_tabs(new QTabWidget(this)),
      m_restore(new QShortcut(QKeySequence(Qt::Key_Escape), this)) {
  m_grid->setContentsMargins(0, 0, 0, 0);
  m_grid->setSizeConstraint(QLayout::SetNoConstraint);  // see minimumSizeHint()
  m_tabs->setDocumentMode(true);
  m_tabs->hide();
  // Esc brings the other panels back only while one is maximised (and the dashboard is shown):
  // otherwise the key is left to whatever else wants it. The window's, not the dashboard's:
  // double-clicking a plot's title does not move the keyboard focus there.
  m_restore->setContext(Qt::WindowShortcut);
  m_restore->setEnabled(false);
  connect(m_restore, &QShortcut::activated, this, [this] { maximize(QString()); });
}

QSize Dashboard::minimumSizeHint() const { return {kMinPanelWidth / 2, minimumHeight()}; }

Dashboard::~Dashboard() = default;

void Dashboard::setColors(RunColors* colors) { m_colors = colors ? colors : m_ownColors.get(); }

int Dashboard::columnsFor(int width) const { return std::clamp(width / kMinPanelWidth, 1, 3); }

void Dashboard::place(const QString& id, QWidget* widget, const QString& title) {
  widget->setObjectName(id);
  m_panels[id] = widget;
  m_titles[id] = title;
  m_order << id;
  // Right-click any panel: maximise it or bring the others back, draw its series on request.
  // Its plots ask too: QCustomPlot stops mouse events, the right-click's context menu event
  // included, from reaching the panel around it, so a right-click on a plot opened nothing.
  QList<QWidget*> askers{widget};
  for (auto* plot : widget->findChildren<QCustomPlot*>()) askers << plot;
  for (QWidget* asker : askers) {
    asker->setContextMenuPolicy(Qt::CustomContextMenu);
    connect(asker, &QWidget::customContextMenuRequested, this, [this, id, asker](const QPoint& at) {
      QMenu* menu = contextMenuFor(id);
      menu->exec(asker->mapToGlobal(at));
      menu->deleteLater();
    });
  }
  // Double-clicking a plot's title maximises it (and brings the others back), as a window's
  // title bar does.
  for (auto* plot : widget->findChildren<QCustomPlot*>())
    if (auto* title = plotTitle(plot))
      connect(title, &QCPTextElement::doubleClicked, this,
              [this, id] { maximize(m_maximized == id ? QString() : id); });
  relayout();
}

QMenu* Dashboard::contextMenuFor(const QString& id) {
  auto* menu = new QMenu(this);
  if (m_layout == Layout::Grid) {
    if (m_maximized.isEmpty())
      menu->addAction("Maximise this panel (double-click its title)", this,
                      [this, id] { maximize(id); });
    else
      menu->addAction("Show all panels (Esc)", this, [this] { maximize(QString()); });
  }
  for (const auto& key : m_onRequestOf.value(id)) {
    auto* action = menu->addAction("Draw " + key);
    action->setCheckable(true);
    action->setChecked(m_requested.contains(key));
    connect(action, &QAction::toggled, this,
            [this, key](bool shown) { setOnRequestShown(key, shown); });
  }
  QWidget* panel = m_panels.value(id);
  if (auto* curves = qobject_cast<MetricPlot*>(panel)) {
    // The panel's scale, this session: a loss drawn on a log axis read as linear, its ticks
    // 3, 3.5, 4 the only hint.
    auto* log = menu->addAction("Log y axis");
    log->setCheckable(true);
    log->setChecked(curves->logY());
    connect(log, &QAction::toggled, curves, &MetricPlot::setLogY);
  }
  if (auto* plot = panel ? panel->findChild<QCustomPlot*>() : nullptr) {
    menu->addSeparator();
    // Without the last hover's crosshair, which was drawn into the image.
    const auto withoutHover = [panel] {
      if (auto* curves = qobject_cast<MetricPlot*>(panel)) curves->hideReadout();
    };
    // Into a note or a slide as it is drawn (twice the pixels, for a sharp paste).
    menu->addAction("Copy image", this, [plot, withoutHover] {
      withoutHover();
      QApplication::clipboard()->setPixmap(plot->toPixmap(0, 0, 2.0));
    });
    menu->addAction("Save image…", this, [this, plot, id, withoutHover] {
      withoutHover();
      const QString path =
          askSaveFileName(this, "Save panel", suggestedImageName(id),
                          "PNG image (*.png);;SVG drawing (*.svg);;PDF document (*.pdf)");
      if (!path.isEmpty() && !savePlotImage(plot, path))
        QMessageBox::warning(this, "Save panel",
                             "Could not write " + path + " (is the folder writable?)");
    });
  }
  return menu;
}

void Dashboard::setOnRequestShown(const QString& key, bool shown) {
  if (shown == m_requested.contains(key)) return;
  if (shown)
    m_requested.insert(key);
  else
    m_requested.remove(key);
  applyRequested(key);
}

void Dashboard::applyRequested(const QString& key) {
  const KeySlot& slot = slotFor(key.toStdString());
  if (!slot.plot) return;
  const bool hidden = slot.onRequest && !m_requested.contains(key);
  for (const auto& name : m_curvesOfKey.value(key)) slot.plot->setCurveHidden(name, hidden);
  slot.plot->refresh();
}

void Dashboard::setLayoutMode(Layout layout) {
  if (layout == m_layout) return;
  m_layout = layout;
  // A maximised panel in the grid is the tab shown first.
  const QString front = m_maximized;
  m_maximized.clear();
  m_restore->setEnabled(false);
  relayout();
  if (layout == Layout::Tabs && m_panels.contains(front))
    m_tabs->setCurrentWidget(m_panels.value(front));
  m_allDirty = true;
  refresh();
  emit layoutModeChanged(layout);
}

void Dashboard::relayout() {
  m_columns = columnsFor(width() > 0 ? width() : kMinPanelWidth * 3);
  // The widgets stay, only their places (layout items, ours to delete) go.
  while (m_grid->count() > 0) delete m_grid->takeAt(0);
  if (m_layout == Layout::Tabs) {
    // One panel fills the area; the tab bar names them all.
    QWidget* current = m_tabs->currentWidget();
    m_tabs->blockSignals(true);
    m_tabs->clear();  // pages are not deleted, only taken out
    for (const auto& id : m_order)
      if (QWidget* w = m_panels.value(id)) m_tabs->addTab(w, m_titles.value(id, id));
    if (current && m_tabs->indexOf(current) >= 0) m_tabs->setCurrentWidget(current);
    m_tabs->blockSignals(false);
    m_grid->addWidget(m_tabs, 0, 0);
    m_tabs->show();
    for (int c = 0; c < 3; ++c) m_grid->setColumnStretch(c, c == 0 ? 1 : 0);
    setMinimumHeight(kMinPanelHeight + m_tabs->tabBar()->sizeHint().height());
    return;
  }
  if (m_tabs->count() > 0) {
    m_tabs->clear();
    for (auto* w : m_panels) w->setParent(this);  // out of the tab widget's pages
  }
  m_tabs->hide();
  int index = 0;
  for (const auto& id : m_order) {
    QWidget* w = m_panels.value(id);
    if (!w) continue;
    const bool shown = m_maximized.isEmpty() || id == m_maximized;
    w->setVisible(shown);
    if (!shown) continue;
    m_grid->addWidget(w, index / m_columns, index % m_columns);
    ++index;
  }
  // Only the columns in use stretch: a column keeps its stretch (and so its share of the
  // width) when empty, so a maximised panel alone in column 0 got a third of a 3-column grid.
  const int used = m_maximized.isEmpty() ? m_columns : 1;
  for (int c = 0; c < 3; ++c) m_grid->setColumnStretch(c, c < used ? 1 : 0);
  const int rows = (index + m_columns - 1) / std::max(1, m_columns);
  setMinimumHeight(rows * kMinPanelHeight);
}

void Dashboard::resizeEvent(QResizeEvent* event) {
  QWidget::resizeEvent(event);
  if (columnsFor(width()) != m_columns) relayout();
}

void Dashboard::maximize(const QString& id) {
  const QString next = m_panels.contains(id) ? id : QString();
  if (m_layout == Layout::Tabs) {
    if (!next.isEmpty()) m_tabs->setCurrentWidget(m_panels.value(next));
    return;
  }
  if (next == m_maximized) return;
  m_maximized = next;
  m_restore->setEnabled(!m_maximized.isEmpty());
  relayout();
  m_allDirty = true;
  refresh();
  emit maximizedChanged(m_maximized);
}

void Dashboard::setPanels(const std::vector<PanelSpec>& panels) {
  clearPanels();
  for (const auto& p : panels)
    if (QWidget* w = buildPanel(p))
      place(QString::fromStdString(p.id), w, QString::fromStdString(p.title));
}

void Dashboard::clearPanels() {
  m_allDirty = true;
  m_dirty.clear();
  {
    // Out of the tabs first, quietly: each removal would show the next page, about to go.
    const QSignalBlocker quiet(m_tabs);
    m_tabs->clear();
  }
  for (auto* w : m_panels) {
    w->hide();
    w->deleteLater();
  }
  m_panels.clear();
  m_titles.clear();
  m_order.clear();
  m_maximized.clear();
  m_restore->setEnabled(false);
  m_onRequestOf.clear();
  m_curvesOfKey.clear();
  m_metricPlots.clear();
  m_slots.clear();
  m_prefixes.clear();
  m_keysInPlot.clear();
  m_snapshotPlots.clear();
  m_heatmaps.clear();
  m_matrixHeatmaps.clear();
  m_verdicts.clear();
}

QWidget* Dashboard::buildPanel(const PanelSpec& p) {
  const QString title = QString::fromStdString(p.title);
  const QString xLabel = QString::fromStdString(p.xLabel);
  const QString yLabel = QString::fromStdString(p.yLabel);
  QWidget* w = nullptr;
  switch (p.kind) {
    case PanelKind::MetricLines:
      w = buildMetricPlot(p, title, xLabel, yLabel);
      break;
    case PanelKind::SnapshotCurves:
    case PanelKind::SnapshotBars: {
      const auto mode =
          p.kind == PanelKind::SnapshotBars ? SnapshotPlot::Mode::Bars : SnapshotPlot::Mode::Curves;
      auto* plot = new SnapshotPlot(title, mode, toStringList(p.series), xLabel, yLabel, this);
      plot->setLogY(p.logY);
      plot->setValueBounds(p.yFloor, p.yCeiling);
      plot->setSeriesLabels(toStringList(p.seriesLabels));
      applyShownRun(plot);
      plot->setShownRunEnded(m_shownRunEnded);
      m_snapshotPlots << plot;
      w = plot;
      break;
    }
    case PanelKind::HeatmapOverSteps: {
      if (p.series.empty()) return nullptr;
      auto* plot = new HeatmapPlot(title, QString::fromStdString(p.series.front()), yLabel, this);
      plot->setLogScale(p.logY);
      plot->setShownRunEnded(m_shownRunEnded);
      plot->setShownRunLabel(runLegendLabel(m_shownRun));
      m_heatmaps << plot;
      w = plot;
      break;
    }
    case PanelKind::SnapshotHeatmap: {
      if (p.series.empty()) return nullptr;
      auto* plot = new MatrixHeatmapPlot(title, toStringList(p.series), xLabel, yLabel, this);
      plot->setShownRunEnded(m_shownRunEnded);
      plot->setShownRunLabel(runLegendLabel(m_shownRun));
      m_matrixHeatmaps << plot;
      w = plot;
      break;
    }
    case PanelKind::Verdict: {
      if (p.series.empty()) return nullptr;
      auto* verdict = new VerdictPanel(title, QString::fromStdString(p.series.front()), this);
      verdict->setShownRunEnded(m_shownRunEnded);
      m_verdicts << verdict;
      w = verdict;
      break;
    }
    case PanelKind::Probe:
      return nullptr;  // built by its owner: it needs a live run to ask
  }
  w->setToolTip(QString::fromStdString(p.help) +
                "\n(In the grid: double-click the title or right-click to maximise this panel.)");
  return w;
}

MetricPlot* Dashboard::buildMetricPlot(const PanelSpec& p, const QString& title,
                                       const QString& xLabel, const QString& yLabel) {
  auto* plot = new MetricPlot(title, xLabel, yLabel, this);
  if (!m_xLabel.isEmpty()) plot->setXAxis(m_xLabel, m_xKind);
  plot->setLogY(p.logY);
  plot->setValueBounds(p.yFloor, p.yCeiling);
  plot->setStepwise(p.stepwise);
  plot->setShownRunName(m_shownRun ? curveRunName(m_shownRun) : QString());
  auto isOnRequest = [&p](const std::string& series) {
    return std::find(p.onRequest.begin(), p.onRequest.end(), series) != p.onRequest.end();
  };
  // A key drawn alone needs no suffix: the only exact one, or the only one always drawn beside
  // keys drawn on request (those keep theirs, so "#3 linear" and "#3 linear kl_exact" read
  // apart). Prefixes always do (their keys are many).
  const bool several = p.series.size() > 1;
  const bool severalAlwaysDrawn =
      std::count_if(p.series.begin(), p.series.end(),
                    [&](const std::string& series) { return !isOnRequest(series); }) > 1;
  // The key's last part names it in the legend ("mse_argmax"), unless two keys share it
  // ("train/loss", "val/loss"): then the whole key.
  QStringList lastParts;
  for (const auto& series : p.series) lastParts << QString::fromStdString(series).section('/', -1);
  int position = 0;
  for (const auto& series : p.series) {
    const QString key = QString::fromStdString(series);
    const QString last = key.section('/', -1);
    const QString style = !several ? QString() : lastParts.count(last) > 1 ? key : last;
    const bool onRequest = isOnRequest(series);
    const QString suffix = onRequest || severalAlwaysDrawn ? style : QString();
    if (onRequest) m_onRequestOf[QString::fromStdString(p.id)] << key;
    if (key.endsWith('*'))
      m_prefixes << PrefixSeries{key.chopped(1), plot};
    else
      m_slots[key] = {plot, position++, suffix, onRequest, style};
  }
  m_keysInPlot[plot] = position;
  m_metricPlots << plot;
  return plot;
}

void Dashboard::clearData() {
  clearMetrics();
  // Another set of runs: a zoom kept from the last one could show none of their points.
  for (auto* plot : m_metricPlots) plot->followData();
  for (auto* plot : m_snapshotPlots) plot->clear();
  for (auto* plot : m_heatmaps) plot->clear();
  for (auto* plot : m_matrixHeatmaps) plot->clear();
  for (auto* verdict : m_verdicts) verdict->clear();
}

void Dashboard::clearMetrics() {
  m_allDirty = true;
  m_curvesOfKey.clear();
  for (auto* plot : m_metricPlots) plot->clearCurves();
}

void Dashboard::setXAxis(const QString& label, MetricPlot::XKind kind) {
  // Unchanged, the plots keep their zoom (a new axis follows the data again).
  if (label == m_xLabel && kind == m_xKind) return;
  m_xLabel = label;
  m_xKind = kind;
  for (auto* plot : m_metricPlots) plot->setXAxis(label, kind);
}

void Dashboard::setRunLabel(int64_t runId, const QString& label) {
  m_runLabels[runId] = label;
  applyShownRun();
}

void Dashboard::applyShownRun() {
  for (auto* plot : m_metricPlots)
    plot->setShownRunName(m_shownRun ? curveRunName(m_shownRun) : QString());
  for (auto* plot : m_snapshotPlots) applyShownRun(plot);
  // A heatmap draws one run: beside compared runs it names the focused one.
  const QString shown = runLegendLabel(m_shownRun);
  for (auto* plot : m_heatmaps) plot->setShownRunLabel(shown);
  for (auto* plot : m_matrixHeatmaps) plot->setShownRunLabel(shown);
}

void Dashboard::applyShownRun(SnapshotPlot* plot) const {
  // A member of a group is drawn as the group's other members are: its colour and name.
  const int64_t leader = groupLeaderOf(m_shownRun);
  plot->setShownRun(m_shownRun, m_colors->of(leader), snapshotRunName(m_shownRun));
}

QString Dashboard::runLegendLabel(int64_t runId) const {
  return QString("#%1 %2").arg(runId).arg(m_runLabels.value(runId)).trimmed();
}

void Dashboard::setGroupLabel(int64_t runId, const QString& name, int members) {
  m_groupLabels[runId] = {name, members};
  applyShownRun();
}

void Dashboard::clearGroupLabel(int64_t runId) {
  m_groupLabels.remove(runId);
  applyShownRun();
}

void Dashboard::setGroupLeader(int64_t runId, int64_t leader) {
  if (leader == runId)
    m_leaders.remove(runId);
  else
    m_leaders[runId] = leader;
  if (runId == m_shownRun) applyShownRun();
}

void Dashboard::setMetricBand(int64_t runId, const std::string& key, MetricPlot::Band band) {
  const KeySlot& slot = slotFor(key);
  if (!slot.plot) return;
  slot.plot->setCurveBand(curveName(runId, slot), std::move(band));
  m_dirty.insert(slot.plot);
}

void Dashboard::setShownRun(int64_t runId) {
  m_shownRun = runId;
  m_allDirty = true;
  applyShownRun();
}

const Dashboard::KeySlot& Dashboard::slotFor(const std::string& key) {
  const QString k = QString::fromStdString(key);
  auto it = m_slots.find(k);
  if (it != m_slots.end()) return it.value();
  // First sight of a key no panel names exactly: place it by prefix once, then look it up.
  // Keys no panel shows are remembered too (with no plot), so they cost one lookup per tick.
  KeySlot slot;
  for (const auto& p : m_prefixes)
    if (k.startsWith(p.prefix)) {
      slot = {p.plot, m_keysInPlot[p.plot]++, prefixSuffix(k, p.prefix)};
      slot.style = slot.suffix;
      break;
    }
  return m_slots.insert(k, slot).value();
}

QString Dashboard::curveRunName(int64_t runId) const {
  // "#3 fourier N=12", or a group's label.
  if (!m_groupLabels.contains(runId)) return runLegendLabel(runId);
  const GroupName& group = m_groupLabels[runId];
  return QString("%1 ×%2").arg(group.name).arg(group.members);
}

QString Dashboard::snapshotRunName(int64_t runId) const {
  // One member's snapshot, in its group's colour: named by the group, not by how many it has
  // (a legend read "head=gmm ×4" over the one member drawn against this truth).
  const int64_t leader = groupLeaderOf(runId);
  return m_groupLabels.contains(leader) ? m_groupLabels[leader].name : runLegendLabel(runId);
}

QString Dashboard::curveName(int64_t runId, const KeySlot& slot) const {
  // The run's name, plus which key when the panel shows several ("mse_argmax", "@512").
  const QString name = curveRunName(runId);
  return slot.suffix.isEmpty() ? name : name + " " + slot.suffix;
}

void Dashboard::setMetric(int64_t runId, const std::string& key, std::vector<double> x,
                          std::vector<double> values) {
  const KeySlot& slot = slotFor(key);
  if (!slot.plot) return;
  // Within one run, a panel's curves differ by key: a line style per key, the run's colour.
  const QString name = curveName(runId, slot);
  slot.plot->setCurve(name, seriesPen(m_colors->of(runId), slot.position), std::move(x),
                      std::move(values));
  slot.plot->setCurveParts(name, curveRunName(runId), slot.style);
  if (slot.onRequest) {
    const QString k = QString::fromStdString(key);
    m_curvesOfKey[k].insert(name);
    slot.plot->setCurveHidden(name, !m_requested.contains(k));
  }
  m_dirty.insert(slot.plot);
}

void Dashboard::appendMetric(int64_t runId, const std::string& key, const std::vector<double>& x,
                             const std::vector<double>& values) {
  const KeySlot& slot = slotFor(key);
  if (!slot.plot) return;
  const QString name = curveName(runId, slot);
  if (!slot.plot->curveNames().contains(name))
    setMetric(runId, key, x, values);
  else
    slot.plot->appendToCurve(name, x, values);
  m_dirty.insert(slot.plot);
}

void Dashboard::addSnapshot(const Snapshot& snapshot, int64_t step) {
  m_snapshotsChanged = true;
  for (auto* plot : m_snapshotPlots) plot->setSnapshot(snapshot, step);
  for (auto* plot : m_heatmaps) plot->addSnapshot(snapshot, step);
  for (auto* plot : m_matrixHeatmaps) plot->setSnapshot(snapshot, step);
  for (auto* verdict : m_verdicts) {
    verdict->setRunLabel(runLegendLabel(m_shownRun), m_colors->of(groupLeaderOf(m_shownRun)));
    verdict->setSnapshot(snapshot, step);
  }
}

void Dashboard::addOverlaySnapshot(int64_t runId, const Snapshot& snapshot, int64_t step) {
  const int64_t leader = groupLeaderOf(runId);
  m_snapshotsChanged = true;
  for (auto* plot : m_snapshotPlots)
    plot->setOverlaySnapshot(runId, snapshotRunName(runId), m_colors->of(leader), snapshot);
  // A heatmap draws one run, never a group's mean: named as the run itself.
  const QString own = runLegendLabel(runId);
  for (auto* plot : m_heatmaps) plot->addOtherRunSnapshot(runId, own, snapshot, step);
  for (auto* plot : m_matrixHeatmaps) plot->setOtherRunSnapshot(runId, own, snapshot, step);
  // A verdict is a run's own, never a group's: each member listed by its name.
  for (auto* verdict : m_verdicts)
    verdict->setOtherRunSnapshot(runId, own, m_colors->of(leader), snapshot);
}

void Dashboard::setShownRunEnded(bool ended) {
  if (ended == m_shownRunEnded) return;
  m_shownRunEnded = ended;
  m_snapshotsChanged = true;
  for (auto* plot : m_snapshotPlots) plot->setShownRunEnded(ended);
  for (auto* plot : m_heatmaps) plot->setShownRunEnded(ended);
  for (auto* plot : m_matrixHeatmaps) plot->setShownRunEnded(ended);
  for (auto* verdict : m_verdicts) verdict->setShownRunEnded(ended);
}

void Dashboard::setSmoothing(double weight) {
  for (auto* plot : m_metricPlots) plot->setSmoothing(weight);
}

void Dashboard::refresh() {
  // Only what changed: a live tick usually brings a few loss points, and redrawing the snapshot
  // panels and heatmaps 30 times a second would take CPU from training.
  for (auto* plot : m_metricPlots)
    if (m_allDirty || m_dirty.contains(plot)) plot->refresh();
  if (m_allDirty || m_snapshotsChanged) {
    for (auto* plot : m_snapshotPlots) plot->refresh();
    for (auto* plot : m_heatmaps) plot->refresh();
    for (auto* plot : m_matrixHeatmaps) plot->refresh();
  }
  m_dirty.clear();
  m_allDirty = false;
  m_snapshotsChanged = false;
}

void Dashboard::addPanelWidget(const QString& id, QWidget* widget, const QString& title) {
  place(id, widget, title);
}

}  // namespace fl::widgets
