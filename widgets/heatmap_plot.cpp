#include "widgets/heatmap_plot.h"

#include <QVBoxLayout>

#include <limits>

#include <qcustomplot.h>

#include "widgets/cell_axis.h"
#include "widgets/plot_frame.h"

namespace fl::widgets {

HeatmapPlot::HeatmapPlot(const QString& title, const QString& series, const QString& yLabel,
                         QWidget* parent)
    : QWidget(parent), m_series(series), m_plot(new QCustomPlot(this)) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(m_plot);
  setUpPlotFrame(m_plot, title, "step", yLabel, /*legend=*/false);
  m_map = new QCPColorMap(m_plot->xAxis, m_plot->yAxis);
  auto* scale = new QCPColorScale(m_plot);
  m_plot->plotLayout()->addElement(1, 1, scale);
  m_map->setColorScale(scale);
  QCPColorGradient gradient(QCPColorGradient::gpThermal);
  gradient.setNanHandling(QCPColorGradient::nhTransparent);  // blank, not a colour, on a log scale
  m_map->setGradient(gradient);
  m_map->setVisible(false);  // until the first column arrives
  // An empty heatmap says why in its middle (it has no caption row to say it in).
  m_emptyNote = new QCPItemText(m_plot);
  m_emptyNote->position->setType(QCPItemPosition::ptAxisRectRatio);
  m_emptyNote->position->setCoords(0.5, 0.5);
  m_emptyNote->setColor(QColor(110, 110, 110));
  m_emptyNote->setSelectable(false);
  m_emptyNote->setText(noDataCaption(false));
}

QString HeatmapPlot::emptyNote() const {
  return m_emptyNote->visible() ? m_emptyNote->text() : QString();
}

void HeatmapPlot::setLogScale(bool logScale) {
  m_logScale = logScale;
  m_map->setDataScaleType(logScale ? QCPAxis::stLogarithmic : QCPAxis::stLinear);
  auto* axis = m_map->colorScale()->axis();
  if (logScale)
    axis->setTicker(QSharedPointer<QCPAxisTickerLog>(new QCPAxisTickerLog));
  else
    axis->setTicker(QSharedPointer<QCPAxisTicker>(new QCPAxisTicker));
}

void HeatmapPlot::addSnapshot(const Snapshot& snapshot, int64_t step) {
  if (QString::fromStdString(snapshot.name) != m_series) return;
  if (!m_steps.empty() && step <= m_steps.back()) {
    // A resumed or restarted run: drop the columns it replaces.
    while (!m_steps.empty() && m_steps.back() >= step) {
      m_steps.pop_back();
      m_columns.pop_back();
    }
  }
  m_steps.push_back(step);
  m_columns.push_back(snapshot.data);
  m_ticks = snapshot.axes.empty() ? std::vector<float>{} : snapshot.axes.back().ticks;
  // The colour scale says what the colours are ("mean |c_k|"), as a matrix heatmap's does.
  m_map->colorScale()->axis()->setLabel(QString::fromStdString(snapshot.valueLabel));
}

void HeatmapPlot::clear() {
  m_steps.clear();
  m_columns.clear();
  m_ticks.clear();
  m_map->data()->clear();
  m_map->setVisible(false);
  // The axes and the colour scale too: a run with nothing to draw here must not show the
  // previous run's steps or values.
  m_plot->xAxis->setRange(0, 1);
  m_plot->yAxis->setRange(0, 1);
  m_map->setDataRange(QCPRange(0, 1));
  m_map->colorScale()->axis()->setLabel(QString());
  m_plot->replot(QCustomPlot::rpQueuedReplot);
}

void HeatmapPlot::refresh() {
  m_map->setVisible(!m_columns.empty());
  m_emptyNote->setVisible(m_columns.empty());
  m_emptyNote->setText(noDataCaption(m_shownRunEnded));
  if (m_columns.empty()) {
    m_plot->replot(QCustomPlot::rpQueuedReplot);
    return;
  }
  const int nx = static_cast<int>(m_columns.size());
  const int ny = static_cast<int>(m_columns.front().size());
  const auto [yLo, yHi] = layOutCells(m_plot->yAxis, m_ticks, ny);
  m_map->data()->setSize(nx, ny);
  const double lastStep = std::max<double>(m_steps.back(), m_steps.front() + 1);
  m_map->data()->setRange(QCPRange(m_steps.front(), lastStep), QCPRange(yLo, yHi));
  const double blank = std::numeric_limits<double>::quiet_NaN();
  for (int i = 0; i < nx; ++i)
    for (int k = 0; k < ny && k < static_cast<int>(m_columns[i].size()); ++k) {
      const double v = m_columns[i][k];
      m_map->data()->setCell(i, k, m_logScale && !(v > 0) ? blank : v);
    }
  m_map->rescaleDataRange(true);
  showWholeCells(m_plot->xAxis, m_steps.front(), lastStep, nx);
  showWholeCells(m_plot->yAxis, yLo, yHi, ny);
  fitTicks(m_plot);
  m_plot->replot(QCustomPlot::rpQueuedReplot);
}

}  // namespace fl::widgets
