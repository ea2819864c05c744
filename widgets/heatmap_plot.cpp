#include "widgets/heatmap_plot.h"

#include <QFontMetrics>
#include <QVBoxLayout>

#include <algorithm>
#include <limits>
#include <numeric>

#include <qcustomplot.h>

#include "widgets/cell_axis.h"
#include "widgets/log_ticker.h"
#include "widgets/plot_frame.h"

namespace fl::widgets {

namespace {

// A colour map's cells are evenly spaced, the evaluations not always: a run whose length is no
// multiple of its evaluation interval evaluates last off the grid (0, 100, ..., 900, 950). The
// cells are spaced by the steps' greatest common interval (at most kMaxCells of them) and each
// shows the evaluation nearest to it, the earlier on a tie, so every column sits at its step.
// More evaluations than kMaxCells keep a cell each.
constexpr int64_t kMaxCells = 2000;

std::vector<size_t> columnOfEachCell(const std::vector<int64_t>& steps) {
  if (steps.size() < 2) return std::vector<size_t>(steps.size(), 0);
  int64_t interval = 0;
  for (size_t i = 1; i < steps.size(); ++i) interval = std::gcd(interval, steps[i] - steps[i - 1]);
  const int64_t span = steps.back() - steps.front();
  const int64_t cells =
      std::min(span / interval + 1, std::max(kMaxCells, static_cast<int64_t>(steps.size())));
  const double width = static_cast<double>(span) / static_cast<double>(cells - 1);
  std::vector<size_t> column(static_cast<size_t>(cells));
  size_t next = 0;  // the first evaluation at or after the cell
  for (int64_t j = 0; j < cells; ++j) {
    const double at = static_cast<double>(steps.front()) + static_cast<double>(j) * width;
    while (next + 1 < steps.size() && static_cast<double>(steps[next]) < at) ++next;
    const bool earlierIsNearer = next > 0 && at - static_cast<double>(steps[next - 1]) <=
                                                 static_cast<double>(steps[next]) - at;
    column[static_cast<size_t>(j)] = earlierIsNearer ? next - 1 : next;
  }
  return column;
}

}  // namespace

HeatmapPlot::HeatmapPlot(const QString& title, const QString& series, const QString& yLabel,
                         QWidget* parent)
    : QWidget(parent), m_series(series), m_title(title), m_plot(new QCustomPlot(this)) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(m_plot);
  setUpPlotFrame(m_plot, title, "step", yLabel, /*legend=*/false);
  m_map = new QCPColorMap(m_plot->xAxis, m_plot->yAxis);
  auto* scale = new QCPColorScale(m_plot);
  m_plot->plotLayout()->addElement(1, 1, scale);
  m_map->setColorScale(scale);
  m_map->setGradient(sequentialGradient());  // NaN blank, not a colour, on a log scale
  // Each column is one evaluation: blending neighbours drew values no evaluation gave (four
  // snapshots read as a smooth field).
  m_map->setInterpolate(false);
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
    axis->setTicker(QSharedPointer<LogTicker>(new LogTicker));
  else
    axis->setTicker(QSharedPointer<QCPAxisTicker>(new QCPAxisTicker));
}

void HeatmapPlot::Columns::add(const Snapshot& snapshot, int64_t step) {
  if (!steps.empty() && step <= steps.back()) {
    // A resumed or restarted run: drop the columns it replaces.
    while (!steps.empty() && steps.back() >= step) {
      steps.pop_back();
      values.pop_back();
    }
  }
  steps.push_back(step);
  values.push_back(snapshot.data);
  ticks = snapshot.axes.empty() ? std::vector<float>{} : snapshot.axes.back().ticks;
  valueLabel = QString::fromStdString(snapshot.valueLabel);
}

void HeatmapPlot::addSnapshot(const Snapshot& snapshot, int64_t step) {
  if (QString::fromStdString(snapshot.name) != m_series) return;
  m_own.add(snapshot, step);
}

void HeatmapPlot::addOtherRunSnapshot(int64_t runId, const QString& label, const Snapshot& snapshot,
                                      int64_t step) {
  if (QString::fromStdString(snapshot.name) != m_series) return;
  auto it = std::find_if(m_others.begin(), m_others.end(),
                         [runId](const auto& other) { return other.first == runId; });
  if (it == m_others.end()) it = m_others.insert(m_others.end(), {runId, Columns{}});
  it->second.label = label;
  it->second.add(snapshot, step);
}

const HeatmapPlot::Columns* HeatmapPlot::drawn() const {
  if (!m_own.steps.empty()) return &m_own;
  for (const auto& [runId, columns] : m_others)
    if (!columns.steps.empty()) return &columns;
  return nullptr;
}

size_t HeatmapPlot::columns() const {
  const Columns* c = drawn();
  return c ? c->steps.size() : 0;
}

void HeatmapPlot::clear() {
  m_own = Columns{};
  m_others.clear();
  m_drawnOther.clear();
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

void HeatmapPlot::showTitle() {
  auto* title = plotTitle(m_plot);
  if (!title) return;
  // Unshown, the widget's width is not the one it will be drawn at.
  if (m_whose.isEmpty() || !isVisible()) {
    title->setText(m_whose.isEmpty() ? m_title : m_title + " · " + m_whose);
    return;
  }
  const QString lead = m_title + " · ";
  const QFontMetrics metrics(title->font());
  // The title's cell is the plot's column, beside the colour scale's (at least its usual width
  // before it is first laid out).
  const int scale = std::max(90, m_map->colorScale()->outerRect().width());
  const int room = std::max(metrics.horizontalAdvance("#00 …"),
                            width() - scale - 16 - metrics.horizontalAdvance(lead));
  title->setText(lead + legendName(m_whose, title->font(), room));
}

void HeatmapPlot::resizeEvent(QResizeEvent* event) {
  QWidget::resizeEvent(event);
  if (m_whose.isEmpty() || !isVisible()) return;
  showTitle();
  m_plot->replot(QCustomPlot::rpQueuedReplot);
}

void HeatmapPlot::refresh() {
  const Columns* c = drawn();
  m_drawnOther = c && c != &m_own ? c->label : QString();
  // A compared run's columns say whose they are: the focus line names another run. The focused
  // run's say so too beside compared runs: one run of several is drawn.
  const bool comparing = std::any_of(m_others.begin(), m_others.end(),
                                     [](const auto& other) { return !other.second.steps.empty(); });
  m_whose = !m_drawnOther.isEmpty()                     ? m_drawnOther
            : c && comparing && !m_shownLabel.isEmpty() ? m_shownLabel
                                                        : QString();
  showTitle();
  m_plot->setToolTip(m_drawnOther.isEmpty()
                         ? QString()
                         : QString("The focused run has no %1; this is %2's, a compared run.")
                               .arg(m_series, m_drawnOther));
  m_map->setVisible(c);
  m_emptyNote->setVisible(!c);
  m_emptyNote->setText(noDataCaption(m_shownRunEnded));
  if (!c) {
    m_plot->replot(QCustomPlot::rpQueuedReplot);
    return;
  }
  // The colour scale says what the colours are ("mean |c_k|"), as a matrix heatmap's does.
  m_map->colorScale()->axis()->setLabel(c->valueLabel);
  const std::vector<size_t> columnOfCell = columnOfEachCell(c->steps);
  const int nx = static_cast<int>(columnOfCell.size());
  const int ny = static_cast<int>(c->values.front().size());
  const auto [yLo, yHi] = layOutCells(m_plot->yAxis, c->ticks, ny);
  m_map->data()->setSize(nx, ny);
  const double lastStep = std::max<double>(c->steps.back(), c->steps.front() + 1);
  m_map->data()->setRange(QCPRange(c->steps.front(), lastStep), QCPRange(yLo, yHi));
  const double blank = std::numeric_limits<double>::quiet_NaN();
  for (int i = 0; i < nx; ++i) {
    const auto& values = c->values[columnOfCell[static_cast<size_t>(i)]];
    for (int k = 0; k < ny && k < static_cast<int>(values.size()); ++k) {
      const double v = values[static_cast<size_t>(k)];
      m_map->data()->setCell(i, k, m_logScale && !(v > 0) ? blank : v);
    }
  }
  m_map->rescaleDataRange(true);
  showWholeCells(m_plot->xAxis, c->steps.front(), lastStep, nx);
  showWholeCells(m_plot->yAxis, yLo, yHi, ny);
  fitTicks(m_plot);
  m_plot->replot(QCustomPlot::rpQueuedReplot);
}

}  // namespace fl::widgets
