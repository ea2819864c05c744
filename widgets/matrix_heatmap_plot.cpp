#include "widgets/matrix_heatmap_plot.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QSpinBox>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>
#include <limits>

#include <qcustomplot.h>

#include "widgets/cell_axis.h"
#include "widgets/plot_frame.h"
#include "widgets/snapshot_data.h"

namespace fl::widgets {

namespace {

// A snapshot seen as (slices, rows, columns): leading axes fold into slices, a 1-D one is a row.
struct MatrixShape {
  int64_t slices = 0;
  int64_t rows = 0;
  int64_t columns = 0;
};

MatrixShape matrixShape(const Snapshot& s) {
  MatrixShape m;
  if (s.shape.empty() || s.numel() == 0 || s.data.size() < static_cast<size_t>(s.numel())) return m;
  m.columns = s.shape.back();
  m.rows = s.shape.size() >= 2 ? s.shape[s.shape.size() - 2] : 1;
  m.slices = s.numel() / (m.rows * m.columns);
  return m;
}

const SnapshotAxis* axisFromEnd(const Snapshot& s, size_t back) {
  return s.axes.size() == s.shape.size() && s.axes.size() > back ? &s.axes[s.axes.size() - 1 - back]
                                                                 : nullptr;
}

}  // namespace

MatrixHeatmapPlot::MatrixHeatmapPlot(const QString& title, const QStringList& series,
                                     const QString& xLabel, const QString& yLabel, QWidget* parent)
    : QWidget(parent),
      m_series(series),
      m_xLabel(xLabel),
      m_yLabel(yLabel),
      m_plot(new QCustomPlot(this)),
      m_which(new QComboBox(this)),
      m_slice(new QSpinBox(this)),
      m_caption(new QLabel(this)),
      m_marks(m_plot, XMarkItems::Style::TopAxisTicks) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(m_plot, 1);
  auto* bottom = new QHBoxLayout;
  bottom->addWidget(m_caption, 1);
  bottom->addWidget(m_which);
  bottom->addWidget(m_slice);
  layout->addLayout(bottom);
  m_which->addItems(series);
  m_which->setVisible(series.size() > 1);
  m_slice->setRange(0, 0);
  m_slice->setVisible(false);  // until a 3-D snapshot arrives
  connect(m_which, qOverload<int>(&QComboBox::currentIndexChanged), this,
          &MatrixHeatmapPlot::redraw);
  connect(m_slice, qOverload<int>(&QSpinBox::valueChanged), this, &MatrixHeatmapPlot::redraw);

  setUpPlotFrame(m_plot, title, xLabel, yLabel, /*legend=*/false);
  m_plot->yAxis->setRangeReversed(true);  // row 0 on top
  m_map = new QCPColorMap(m_plot->xAxis, m_plot->yAxis);
  auto* scale = new QCPColorScale(m_plot);
  m_plot->plotLayout()->addElement(1, 1, scale);
  // Room between the map and its scale for half a mark's label: a mark at the last column
  // ("period 2" at the last frequency) is labelled centred on the map's right edge.
  m_plot->plotLayout()->setColumnSpacing(28);
  m_map->setColorScale(scale);
  m_map->setInterpolate(false);  // cells are discrete entries, not samples of a smooth field
  m_map->setVisible(false);
  m_plot->installEventFilter(this);
}

bool MatrixHeatmapPlot::eventFilter(QObject* watched, QEvent* event) {
  // A new width: the marks' labels that fit are others.
  if (watched == m_plot && event->type() == QEvent::Resize) {
    m_marks.refit();
    m_plot->replot(QCustomPlot::rpQueuedReplot);
  }
  return QWidget::eventFilter(watched, event);
}

void MatrixHeatmapPlot::setSnapshot(const Snapshot& snapshot, int64_t step) {
  const QString name = QString::fromStdString(snapshot.name);
  if (!m_series.contains(name)) return;
  m_latest[name] = {snapshot, step, QString()};
  m_dirty = true;
}

void MatrixHeatmapPlot::setOtherRunSnapshot(int64_t runId, const QString& label,
                                            const Snapshot& snapshot, int64_t step) {
  const QString name = QString::fromStdString(snapshot.name);
  if (!m_series.contains(name)) return;
  auto it = std::find_if(m_others.begin(), m_others.end(),
                         [runId](const auto& other) { return other.first == runId; });
  if (it == m_others.end()) it = m_others.insert(m_others.end(), {runId, {}});
  it->second[name] = {snapshot, step, label};
  m_dirty = true;
}

void MatrixHeatmapPlot::clear() {
  m_latest.clear();
  m_others.clear();
  redraw();
}

const MatrixHeatmapPlot::Latest* MatrixHeatmapPlot::shown() const {
  const QString name = m_which->currentText();
  if (auto it = m_latest.find(name); it != m_latest.end()) return &it.value();
  for (const auto& [runId, latest] : m_others)
    if (auto it = latest.find(name); it != latest.end()) return &it.value();
  return nullptr;
}

void MatrixHeatmapPlot::setShownRunEnded(bool ended) {
  m_dirty = m_dirty || ended != m_shownRunEnded;
  m_shownRunEnded = ended;
}

QString MatrixHeatmapPlot::caption() const { return m_caption->text(); }

void MatrixHeatmapPlot::refresh() {
  if (m_dirty) redraw();
}

void MatrixHeatmapPlot::redraw() {
  m_dirty = false;
  const Latest* latest = shown();
  const MatrixShape m = latest ? matrixShape(latest->snapshot) : MatrixShape{};
  m_map->setVisible(m.slices > 0);
  if (m.slices == 0) {
    m_caption->setText(latest ? "cannot draw this snapshot's shape"
                              : noDataCaption(m_shownRunEnded));
    m_slice->setVisible(false);
    m_marks.show({});
    m_plot->replot(QCustomPlot::rpQueuedReplot);
    return;
  }
  draw(*latest);
  m_plot->replot(QCustomPlot::rpQueuedReplot);
}

void MatrixHeatmapPlot::draw(const Latest& latest) {
  const Snapshot& s = latest.snapshot;
  const MatrixShape m = matrixShape(s);
  const auto* xAxis = axisFromEnd(s, 0);
  const auto* yAxis = axisFromEnd(s, 1);
  const auto* sliceAxis = axisFromEnd(s, 2);

  // The slice selector: "head 0" .. "head H-1", or the meta's row labels in the caption.
  {
    QSignalBlocker block(m_slice);  // a range change must not recurse into refresh()
    m_slice->setRange(0, static_cast<int>(m.slices - 1));
    m_slice->setPrefix((sliceAxis && !sliceAxis->label.empty()
                            ? QString::fromStdString(sliceAxis->label)
                            : QString("slice")) +
                       " ");
  }
  m_slice->setVisible(m.slices > 1);
  const int64_t slice = m_slice->value();
  const QStringList sliceLabels = metaStrings(s, "row_labels");
  // A compared run's says whose it is: the focus line names another run. The focused run's
  // says so too beside compared runs: one run of several is drawn.
  QString caption =
      !latest.run.isEmpty()
          ? QString("%1's, step %2 (the focused run has none)").arg(latest.run).arg(latest.step)
      : !m_others.empty() && !m_shownLabel.isEmpty()
          ? QString("%1's, step %2").arg(m_shownLabel).arg(latest.step)
          : QString("step %1").arg(latest.step);
  if (m.slices > 1 && sliceLabels.size() == m.slices)
    caption += ": " + sliceLabels[static_cast<int>(slice)];
  m_caption->setText(caption);

  m_plot->xAxis->setLabel(xAxis && !xAxis->label.empty() ? axisTitle(*xAxis) : m_xLabel);
  m_plot->yAxis->setLabel(yAxis && !yAxis->label.empty() ? axisTitle(*yAxis) : m_yLabel);
  m_map->colorScale()->axis()->setLabel(QString::fromStdString(s.valueLabel));

  const int columns = static_cast<int>(m.columns);
  const int rows = static_cast<int>(m.rows);
  const auto [xLo, xHi] =
      layOutCells(m_plot->xAxis, xAxis ? xAxis->ticks : std::vector<float>{}, columns);
  const auto [yLo, yHi] =
      layOutCells(m_plot->yAxis, yAxis ? yAxis->ticks : std::vector<float>{}, rows);
  auto* data = m_map->data();
  data->setSize(columns, rows);
  data->setRange(QCPRange(xLo, xHi), QCPRange(yLo, yHi));
  const size_t base = static_cast<size_t>(slice * m.rows * m.columns);
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < columns; ++c)
      data->setCell(c, r, s.data[base + static_cast<size_t>(r) * columns + c]);

  // Colour range over every slice (see the header).
  double lo = std::numeric_limits<double>::infinity(), hi = -lo;
  for (float v : s.data)
    if (std::isfinite(v)) {
      lo = std::min<double>(lo, v);
      hi = std::max<double>(hi, v);
    }
  if (!(lo <= hi)) lo = hi = 0;
  if (lo < 0 && hi > 0) {
    const double extreme = std::max(-lo, hi);
    m_map->setGradient(QCPColorGradient::gpPolar);
    m_map->setDataRange(QCPRange(-extreme, extreme));
  } else {
    m_map->setGradient(sequentialGradient());
    m_map->setDataRange(QCPRange(lo, hi > lo ? hi : lo + 1));
  }
  showWholeCells(m_plot->xAxis, xLo, xHi, columns);
  showWholeCells(m_plot->yAxis, yLo, yHi, rows);
  m_marks.show(xMarks(s));
}

}  // namespace fl::widgets
