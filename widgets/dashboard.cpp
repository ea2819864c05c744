#include "widgets/dashboard.h"

#include <QGridLayout>

#include "widgets/heatmap_plot.h"
#include "widgets/metric_plot.h"
#include "widgets/run_colors.h"
#include "widgets/snapshot_plot.h"

namespace fl::widgets {

namespace {


QStringList toStringList(const std::vector<std::string>& items) {
  QStringList out;
  for (const auto& s : items) out << QString::fromStdString(s);
  return out;
}

}  // namespace

Dashboard::Dashboard(QWidget* parent) : QWidget(parent), m_grid(new QGridLayout(this)) {}

void Dashboard::setPanels(const std::vector<PanelSpec>& panels) {
  for (auto* w : m_panels) w->deleteLater();
  m_panels.clear();
  m_plotForKey.clear();
  m_seriesInPanel.clear();
  m_snapshotPlots.clear();
  m_heatmaps.clear();
  int index = 0;
  for (const auto& p : panels) {
    const QString title = QString::fromStdString(p.title);
    QWidget* w = nullptr;
    switch (p.kind) {
      case PanelKind::MetricLines: {
        auto* plot = new MetricPlot(title, QString::fromStdString(p.xLabel),
                                    QString::fromStdString(p.yLabel), this);
        plot->setLogY(p.logY);
        for (const auto& key : p.series) {
          m_plotForKey[QString::fromStdString(key)] = plot;
          m_seriesInPanel[QString::fromStdString(key)] = static_cast<int>(p.series.size());
        }
        w = plot;
        break;
      }
      case PanelKind::SnapshotCurves:
      case PanelKind::SnapshotBars: {
        auto* plot = new SnapshotPlot(
            title, p.kind == PanelKind::SnapshotBars ? SnapshotPlot::Mode::Bars : SnapshotPlot::Mode::Curves,
            toStringList(p.series), QString::fromStdString(p.xLabel), QString::fromStdString(p.yLabel), this);
        m_snapshotPlots << plot;
        w = plot;
        break;
      }
      case PanelKind::HeatmapOverSteps: {
        if (p.series.empty()) continue;
        auto* plot = new HeatmapPlot(title, QString::fromStdString(p.series.front()),
                                     QString::fromStdString(p.yLabel), this);
        m_heatmaps << plot;
        w = plot;
        break;
      }
      case PanelKind::SnapshotHeatmap:
      case PanelKind::Probe:
      case PanelKind::Verdict:
        continue;  // built by their owners (the probe needs a live run to ask)
    }
    w->setObjectName(QString::fromStdString(p.id));
    w->setToolTip(QString::fromStdString(p.help));
    m_panels[QString::fromStdString(p.id)] = w;
    m_grid->addWidget(w, index / 3, index % 3);
    ++index;
  }
}

void Dashboard::clearData() {
  for (auto* plot : metricPlots()) plot->clearCurves();
  for (auto* plot : m_snapshotPlots) plot->clear();
  for (auto* plot : m_heatmaps) plot->clear();
}

void Dashboard::setRunLabel(int64_t runId, const QString& label) { m_runLabels[runId] = label; }

QString Dashboard::curveName(int64_t runId, const std::string& key) const {
  // "#3 fourier N=12", plus the metric's last path part when the panel shows several.
  QString name = QString("#%1").arg(runId);
  if (m_runLabels.contains(runId)) name += " " + m_runLabels[runId];
  if (m_seriesInPanel.value(QString::fromStdString(key)) > 1)
    name += " " + QString::fromStdString(key).section('/', -1);
  return name;
}

void Dashboard::setMetric(int64_t runId, const std::string& key, std::vector<double> steps,
                          std::vector<double> values) {
  auto* plot = m_plotForKey.value(QString::fromStdString(key));
  if (!plot) return;
  // Within one run, a panel's curves differ by key: vary the shade of the run's colour.
  QColor color = runColor(runId);
  const int position = static_cast<int>(plot->curveNames().size());
  if (position > 0) color = color.darker(100 + 40 * position);
  plot->setCurve(curveName(runId, key), color, std::move(steps), std::move(values));
}

void Dashboard::appendMetric(int64_t runId, const std::string& key, const std::vector<double>& steps,
                             const std::vector<double>& values) {
  auto* plot = m_plotForKey.value(QString::fromStdString(key));
  if (!plot) return;
  const QString name = curveName(runId, key);
  if (!plot->curveNames().contains(name)) setMetric(runId, key, steps, values);
  else plot->appendToCurve(name, steps, values);
}

void Dashboard::addSnapshot(const Snapshot& snapshot, int64_t step) {
  for (auto* plot : m_snapshotPlots) plot->setSnapshot(snapshot, step);
  for (auto* plot : m_heatmaps) plot->addSnapshot(snapshot, step);
}

void Dashboard::addOverlaySnapshot(int64_t runId, const Snapshot& snapshot) {
  const QString label = QString("#%1 %2").arg(runId).arg(m_runLabels.value(runId));
  for (auto* plot : m_snapshotPlots) plot->setOverlaySnapshot(runId, label, snapshot);
}

void Dashboard::setSmoothing(double weight) {
  for (auto* plot : metricPlots()) plot->setSmoothing(weight);
}

void Dashboard::refresh() {
  for (auto* plot : metricPlots()) plot->refresh();
  for (auto* plot : m_snapshotPlots) plot->refresh();
  for (auto* plot : m_heatmaps) plot->refresh();
}

void Dashboard::addPanelWidget(const QString& id, QWidget* widget) {
  const int index = static_cast<int>(m_panels.size());
  widget->setObjectName(id);
  m_panels[id] = widget;
  m_grid->addWidget(widget, index / 3, index % 3);
}

QList<MetricPlot*> Dashboard::metricPlots() const {
  QList<MetricPlot*> out;
  for (auto* plot : m_plotForKey)
    if (!out.contains(plot)) out << plot;
  return out;
}

}  // namespace fl::widgets
