#include "widgets/heatmap_plot.h"

#include <QVBoxLayout>

#include <qcustomplot.h>

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
  m_map->setGradient(QCPColorGradient::gpThermal);
  m_map->setVisible(false);  // until the first column arrives
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
}

void HeatmapPlot::clear() {
  m_steps.clear();
  m_columns.clear();
  m_map->data()->clear();
  m_map->setVisible(false);
  m_plot->replot(QCustomPlot::rpQueuedReplot);
}

void HeatmapPlot::refresh() {
  m_map->setVisible(!m_columns.empty());
  if (m_columns.empty()) {
    m_plot->replot(QCustomPlot::rpQueuedReplot);
    return;
  }
  const int nx = static_cast<int>(m_columns.size());
  const int ny = static_cast<int>(m_columns.front().size());
  m_map->data()->setSize(nx, ny);
  m_map->data()->setRange(QCPRange(m_steps.front(), std::max<double>(m_steps.back(), m_steps.front() + 1)),
                          QCPRange(0, std::max(ny - 1, 1)));
  for (int i = 0; i < nx; ++i)
    for (int k = 0; k < ny && k < static_cast<int>(m_columns[i].size()); ++k)
      m_map->data()->setCell(i, k, m_columns[i][k]);
  m_map->rescaleDataRange(true);
  m_plot->rescaleAxes();
  m_plot->replot(QCustomPlot::rpQueuedReplot);
}

}  // namespace fl::widgets
