#include "widgets/snapshot_plot.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QSpinBox>
#include <QVBoxLayout>

#include <qcustomplot.h>

#include "widgets/plot_frame.h"

#include "widgets/run_colors.h"

namespace fl::widgets {

namespace {

// The values of row `row` of a snapshot over its last axis, and that axis's coordinates.
bool rowOf(const Snapshot& s, int row, QVector<double>& x, QVector<double>& y) {
  if (s.shape.empty() || s.axes.empty()) return false;
  const int64_t width = s.shape.back();
  const int64_t rows = s.numel() / std::max<int64_t>(width, 1);
  if (row >= rows) return false;
  const auto& ticks = s.axes.back().ticks;
  x.resize(static_cast<int>(width));
  y.resize(static_cast<int>(width));
  for (int64_t i = 0; i < width; ++i) {
    x[i] = ticks.size() == static_cast<size_t>(width) ? ticks[i] : static_cast<double>(i);
    y[i] = s.data[static_cast<size_t>(row * width + i)];
  }
  return true;
}

}  // namespace

SnapshotPlot::SnapshotPlot(const QString& title, Mode mode, const QStringList& series,
                           const QString& xLabel, const QString& yLabel, QWidget* parent)
    : QWidget(parent), m_mode(mode), m_series(series), m_plot(new QCustomPlot(this)),
      m_caption(new QLabel(this)) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(m_plot, 1);
  auto* bottom = new QHBoxLayout;
  bottom->addWidget(m_caption, 1);
  if (mode == Mode::Curves) {
    m_row = new QSpinBox(this);
    m_row->setPrefix("input #");
    m_row->setRange(0, 0);
    connect(m_row, qOverload<int>(&QSpinBox::valueChanged), this, [this] { refresh(); });
    bottom->addWidget(m_row);
  }
  layout->addLayout(bottom);
  setUpPlotFrame(m_plot, title, xLabel, yLabel, /*legend=*/mode == Mode::Curves);
}

int SnapshotPlot::row() const { return m_row ? m_row->value() : 0; }

void SnapshotPlot::setSnapshot(const Snapshot& snapshot, int64_t step) {
  if (!m_series.contains(QString::fromStdString(snapshot.name))) return;
  m_latest[QString::fromStdString(snapshot.name)] = snapshot;
  m_step = step;
  if (m_row && !snapshot.shape.empty()) {
    const int64_t rows = snapshot.numel() / std::max<int64_t>(snapshot.shape.back(), 1);
    m_row->setMaximum(static_cast<int>(std::max<int64_t>(rows - 1, 0)));
  }
}

void SnapshotPlot::setOverlaySnapshot(int64_t runId, const QString& label, const Snapshot& snapshot) {
  const QString name = QString::fromStdString(snapshot.name);
  // Only continuous predictions overlay well; bins and truths stay the shown run's.
  if (!m_series.contains(name) || name.contains("true") || snapshot.valueLabel == "probability") return;
  m_overlays[runId] = {label, snapshot};
}

void SnapshotPlot::clear() {
  m_latest.clear();
  m_overlays.clear();
  m_plot->clearPlottables();
  m_plot->replot(QCustomPlot::rpQueuedReplot);
}

void SnapshotPlot::refresh() {
  m_plot->clearPlottables();
  if (m_mode == Mode::Curves) drawCurves();
  else drawBars();
  m_caption->setText(m_latest.isEmpty() ? "no data for this run (yet)"
                                        : QString("step %1").arg(m_step));
  m_plot->replot(QCustomPlot::rpQueuedReplot);
}

void SnapshotPlot::drawCurves() {
  int index = 0;
  double yMax = 0;
  for (const auto& name : m_series) {
    auto it = m_latest.find(name);
    if (it == m_latest.end()) continue;
    QVector<double> x, y;
    if (!rowOf(*it, row(), x, y)) continue;
    const bool probability = it->valueLabel == "probability";
    if (probability && x.size() > 1) {
      // Probability per bin -> density, drawn as steps centred on the bins.
      const double width = x[1] - x[0];
      for (auto& v : y) v /= width;
    }
    auto* graph = m_plot->addGraph();
    // "pdf/pred_grid" -> "predicted (density)", "pdf/true" -> "true (bins)".
    const QString who = name.contains("true") ? "true" : "predicted";
    graph->setName(who + (probability ? " (bins)" : " (density)"));
    const bool truth = name.contains("true");
    QPen pen(truth ? QColor(40, 40, 40) : runColor(1), probability ? 1.0 : 2.0);
    if (probability) pen.setStyle(Qt::DashLine);
    graph->setPen(pen);
    if (probability) graph->setLineStyle(QCPGraph::lsStepCenter);
    graph->setData(x, y, true);
    for (double v : y) yMax = std::max(yMax, v);
    const auto& meta = it->meta;
    if (meta.contains("inputs") && row() < static_cast<int>(meta["inputs"].size())) {
      const auto& in = meta["inputs"][row()];
      m_caption->setToolTip(QString::fromStdString(in.dump()));
    }
    ++index;
  }
  for (auto it = m_overlays.cbegin(); it != m_overlays.cend(); ++it) {
    QVector<double> x, y;
    if (!rowOf(it->snapshot, row(), x, y)) continue;
    auto* graph = m_plot->addGraph();
    graph->setName(it->label);
    graph->setPen(QPen(runColor(it.key()), 1.6));
    graph->setData(x, y, true);
    for (double v : y) yMax = std::max(yMax, v);
  }
  m_plot->xAxis->setRange(-1, 1);
  m_plot->yAxis->setRange(0, yMax > 0 ? yMax * 1.1 : 1);
}

void SnapshotPlot::drawBars() {
  for (const auto& name : m_series) {
    auto it = m_latest.find(name);
    if (it == m_latest.end()) continue;
    QVector<double> x, y;
    if (!rowOf(*it, 0, x, y)) continue;
    auto* bars = new QCPBars(m_plot->xAxis, m_plot->yAxis);
    bars->setName(name);
    bars->setBrush(runColor(1));
    bars->setPen(Qt::NoPen);
    bars->setWidth(0.7);
    bars->setData(x, y, true);
    m_plot->xAxis->setRange(x.front() - 0.7, x.back() + 0.7);
    double hi = 0;
    for (double v : y) hi = std::max(hi, v);
    m_plot->yAxis->setRange(0, hi > 0 ? hi * 1.1 : 1);
  }
}

}  // namespace fl::widgets
