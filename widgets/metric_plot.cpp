#include "widgets/metric_plot.h"

#include <QLabel>
#include <QVBoxLayout>

#include <cmath>
#include <limits>

#include <qcustomplot.h>

#include "widgets/plot_frame.h"

#include "widgets/curve_decimation.h"

namespace fl::widgets {

namespace {

QVector<double> toQVector(const std::vector<double>& v) { return QVector<double>(v.begin(), v.end()); }

QColor faded(QColor c) {
  c.setAlpha(70);
  return c;
}

}  // namespace

MetricPlot::MetricPlot(const QString& title, const QString& xLabel, const QString& yLabel,
                       QWidget* parent)
    : QWidget(parent), m_plot(new QCustomPlot(this)), m_hover(new QLabel(this)) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(m_plot, 1);
  layout->addWidget(m_hover);
  m_hover->setText(" ");
  setUpPlotFrame(m_plot, title, xLabel, yLabel, /*legend=*/true);
  m_plot->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
  connect(m_plot->xAxis, qOverload<const QCPRange&>(&QCPAxis::rangeChanged), this,
          [this](const QCPRange&) {
            if (!m_autoRange) redecimate();
          });
  connect(m_plot, &QCustomPlot::mousePress, this, [this](QMouseEvent*) { m_autoRange = false; });
  connect(m_plot, &QCustomPlot::mouseWheel, this, [this](QWheelEvent*) { m_autoRange = false; });
  connect(m_plot, &QCustomPlot::mouseDoubleClick, this, [this](QMouseEvent*) {
    m_autoRange = true;  // double-click: back to following the data
    refresh();
  });
  connect(m_plot, &QCustomPlot::mouseMove, this, &MetricPlot::showValueAt);
}

void MetricPlot::setCurve(const QString& name, const QColor& color, std::vector<double> x,
                          std::vector<double> y) {
  auto it = m_curves.find(name);
  if (it == m_curves.end()) {
    CurveData c;
    c.raw = m_plot->addGraph();
    c.smooth = m_plot->addGraph();
    c.raw->setName(name);
    c.smooth->removeFromLegend();
    it = m_curves.insert(name, c);
  }
  it->color = color;
  it->x = std::move(x);
  it->y = std::move(y);
  it->smoothed.clear();
  it->ema = {};
}

void MetricPlot::appendToCurve(const QString& name, const std::vector<double>& x,
                               const std::vector<double>& y) {
  auto it = m_curves.find(name);
  if (it == m_curves.end()) return;
  it->x.insert(it->x.end(), x.begin(), x.end());
  it->y.insert(it->y.end(), y.begin(), y.end());
}

void MetricPlot::removeCurve(const QString& name) {
  auto it = m_curves.find(name);
  if (it == m_curves.end()) return;
  m_plot->removeGraph(it->raw);
  m_plot->removeGraph(it->smooth);
  m_curves.erase(it);
}

void MetricPlot::clearCurves() {
  for (const auto& name : m_curves.keys()) removeCurve(name);
}

size_t MetricPlot::pointCount(const QString& name) const {
  auto it = m_curves.find(name);
  return it == m_curves.end() ? 0 : it->x.size();
}

int MetricPlot::drawnPointCount(const QString& name) const {
  auto it = m_curves.find(name);
  return it == m_curves.end() ? 0 : it->raw->data()->size();
}

void MetricPlot::setLogY(bool logY) {
  m_logY = logY;
  m_plot->yAxis->setScaleType(logY ? QCPAxis::stLogarithmic : QCPAxis::stLinear);
  if (logY)
    m_plot->yAxis->setTicker(QSharedPointer<QCPAxisTickerLog>(new QCPAxisTickerLog));
  else
    m_plot->yAxis->setTicker(QSharedPointer<QCPAxisTicker>(new QCPAxisTicker));
  refresh();
}

void MetricPlot::setSmoothing(double weight) {
  m_smoothing = std::clamp(weight, 0.0, 0.999);
  for (auto& c : m_curves) {
    c.smoothed.clear();  // another weight: start over
    c.ema = {};
  }
  refresh();
}

void MetricPlot::refresh() {
  if (m_autoRange) {
    double lo = std::numeric_limits<double>::infinity(), hi = -lo;
    for (const auto& c : m_curves)
      if (!c.x.empty()) {
        lo = std::min(lo, c.x.front());
        hi = std::max(hi, c.x.back());
      }
    if (std::isfinite(lo)) m_plot->xAxis->setRange(lo, hi > lo ? hi : lo + 1);
  }
  redecimate();
}

void MetricPlot::redecimate() {
  fitLegend(m_plot);
  fitTicks(m_plot);
  const QCPRange range = m_plot->xAxis->range();
  const int columns = std::max(50, m_plot->axisRect()->width());
  double yLo = std::numeric_limits<double>::infinity(), yHi = -yLo;
  for (auto& c : m_curves) {
    const bool smoothing = m_smoothing > 0;
    const Curve raw = decimateMinMax(c.x, c.y, range.lower, range.upper, columns);
    c.raw->setData(toQVector(raw.x), toQVector(raw.y), /*alreadySorted=*/true);
    c.raw->setPen(QPen(smoothing ? faded(c.color) : c.color, smoothing ? 1.0 : 1.6));
    // Antialiasing a decimated curve (several points per pixel column) costs ~35 ms a replot
    // for 1M points and shows nothing more; sparse curves keep it.
    const bool dense = raw.x.size() > static_cast<size_t>(2 * columns);
    c.raw->setAntialiased(!dense && !smoothing);
    c.smooth->setAntialiased(!dense);
    if (smoothing) {
      extendEma(c.y, m_smoothing, c.ema, c.smoothed);
      const Curve smooth = decimateMinMax(c.x, c.smoothed, range.lower, range.upper, columns);
      c.smooth->setData(toQVector(smooth.x), toQVector(smooth.y), true);
      c.smooth->setPen(QPen(c.color, 1.8));
    } else {
      c.smooth->data()->clear();
    }
    for (double v : raw.y)
      if (std::isfinite(v) && (!m_logY || v > 0)) {
        yLo = std::min(yLo, v);
        yHi = std::max(yHi, v);
      }
  }
  if (m_autoRange && std::isfinite(yLo)) {
    if (m_logY)
      m_plot->yAxis->setRange(yLo / 1.2, yHi * 1.2);
    else {
      const double pad = std::max(1e-12, (yHi - yLo) * 0.05);
      m_plot->yAxis->setRange(yLo - pad, yHi + pad);
    }
  }
  m_plot->replot(QCustomPlot::rpQueuedReplot);
}

void MetricPlot::showValueAt(QMouseEvent* event) {
  const double x = m_plot->xAxis->pixelToCoord(event->pos().x());
  QString text;
  for (auto it = m_curves.cbegin(); it != m_curves.cend(); ++it) {
    const auto& c = it.value();
    if (c.x.empty()) continue;
    auto pos = std::lower_bound(c.x.begin(), c.x.end(), x);
    if (pos == c.x.end()) --pos;
    const size_t i = static_cast<size_t>(pos - c.x.begin());
    text += QString("%1%2: %3 @ %4").arg(text.isEmpty() ? "" : "   ", it.key())
                .arg(c.y[i], 0, 'g', 6).arg(c.x[i], 0, 'f', 0);
  }
  m_hover->setText(text.isEmpty() ? " " : text);
}

}  // namespace fl::widgets
