#include "widgets/parallel_coordinates.h"

#include <QHelpEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QPainterPath>
#include <QToolTip>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

#include <qcustomplot.h>

#include "widgets/log_ticker.h"

namespace fl::widgets {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
// Fractions computed from the same value twice may differ in the last bit (a brush carried
// over new data): a value on a range's bound stays inside it.
constexpr double kBoundSlack = 1e-9;
constexpr int kAxisGrab = 10;         // px either side of an axis where a drag brushes it
constexpr int kDragStart = 3;         // px a press must move to brush rather than clear
constexpr int kLineGrab = 4;          // px from a line that hover and double-click still find it
constexpr int kNoValueGap = 22;       // px from an axis's bottom end to its "none" mark
constexpr int kStripWidth = 8;        // the metric axis, drawn as the colour scale
constexpr int kMaxListedValues = 12;  // a numeric axis with more values gets round ticks
const char* const kNoValue = "none";  // the mark where runs without a value meet an axis

// Blue for the lowest metric value through teal and orange to red for the highest: every stop
// reads as a line on white (a scale ending in pale yellow would not). Not const: the gradient
// fills its colour table on first use.
QCPColorGradient& metricGradient() {
  static QCPColorGradient gradient = [] {
    QCPColorGradient g;
    g.setColorStops({{0.0, QColor(45, 70, 165)},
                     {0.35, QColor(35, 150, 150)},
                     {0.68, QColor(240, 150, 40)},
                     {1.0, QColor(185, 30, 35)}});
    g.setColorInterpolation(QCPColorGradient::ciRGB);
    return g;
  }();
  return gradient;
}

// A number as a tick reads it: whole numbers whole (8192, not 8.192e+03), others to four
// significant digits.
QString numberText(double v) {
  if (std::abs(v) < 1e7 && v == std::round(v)) return QString::number(std::llround(v));
  return QString::number(v, 'g', 4);
}

bool isNumber(const ParallelValue& value) {
  return value.number.has_value() && std::isfinite(*value.number);
}

QString categoryOf(const ParallelValue& value) {
  if (!value.text.isEmpty()) return value.text;
  return isNumber(value) ? numberText(*value.number) : QString();
}

double distanceToSegment(const QPointF& p, const QPointF& a, const QPointF& b) {
  const QPointF ab = b - a;
  const double length2 = QPointF::dotProduct(ab, ab);
  const double t =
      length2 > 0 ? std::clamp(QPointF::dotProduct(p - a, ab) / length2, 0.0, 1.0) : 0.0;
  const QPointF d = p - (a + t * ab);
  return std::hypot(d.x(), d.y());
}

// Text over the lines it crosses: a pale halo behind it keeps it readable.
void drawHaloText(QPainter& painter, const QRectF& rect, int flags, const QString& text) {
  const QRectF used = painter.boundingRect(rect, flags, text).adjusted(-2, 0, 2, 0);
  painter.fillRect(used, QColor(255, 255, 255, 215));
  painter.drawText(rect, flags, text);
}

QFont tickFont(const QFont& base) {
  QFont f = base;
  f.setPointSizeF(base.pointSizeF() * 0.9);
  return f;
}

}  // namespace

ParallelCoordinatesPlot::ParallelCoordinatesPlot(QWidget* parent) : QWidget(parent) {
  setMouseTracking(true);
  setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Expanding);
  setData({});
}

// ---- data and scales --------------------------------------------------------------------

ParallelCoordinatesPlot::Axis ParallelCoordinatesPlot::buildAxis(
    const QString& name, const std::vector<ParallelValue>& values, bool metric) const {
  Axis axis;
  axis.name = name;
  bool numeric = true, any = false;
  double low = std::numeric_limits<double>::infinity(), high = -low;
  std::map<double, QString> distinct;  // number -> its first text
  for (const auto& v : values) {
    if (!v.present()) continue;
    any = true;
    if (!isNumber(v)) {
      numeric = false;
      continue;
    }
    low = std::min(low, *v.number);
    high = std::max(high, *v.number);
    distinct.emplace(*v.number, v.text.isEmpty() ? numberText(*v.number) : v.text);
  }
  if (any && numeric) {
    axis.low = low;
    axis.high = high;
    axis.scale = low > 0 && high / low > 100 ? ParallelScale::Log : ParallelScale::Linear;
  } else if (any) {
    for (const auto& v : values) {
      const QString c = categoryOf(v);
      if (!c.isEmpty() && !axis.categories.contains(c)) axis.categories << c;
    }
  } else {
    axis.scale = ParallelScale::Linear;  // nothing to place: no ticks, every run at "none"
  }
  for (const auto& v : values) {
    axis.runFractions.push_back(fractionOn(axis, v));
    axis.anyMissing = axis.anyMissing || std::isnan(axis.runFractions.back());
  }
  // The labels it could show: each category; each value of a parameter with few (a metric's
  // values are many and arbitrary); else round numbers (QCustomPlot's tickers) within the values'
  // extent.
  if (axis.scale == ParallelScale::Categorical) {
    for (const auto& c : axis.categories) axis.ticks.push_back({fractionOn(axis, {{}, c}), c});
  } else if (any && low == high) {
    axis.ticks.push_back({0.5, distinct.begin()->second});
  } else if (any && distinct.size() <= static_cast<size_t>(kMaxListedValues) && !metric) {
    for (const auto& [number, text] : distinct)
      axis.ticks.push_back({fractionOn(axis, {number, {}}), text});
  } else if (any) {
    QVector<double> positions;
    if (axis.scale == ParallelScale::Log) {
      LogTicker ticker;
      ticker.setTickCount(6);
      ticker.generate(QCPRange(low, high), QLocale::c(), 'g', 4, positions, nullptr, nullptr);
    } else {
      QCPAxisTicker ticker;
      ticker.setTickCount(6);
      ticker.generate(QCPRange(low, high), QLocale::c(), 'g', 4, positions, nullptr, nullptr);
    }
    for (double p : positions) {
      if (std::abs(p) < 1e-9 * (high - low)) p = 0;  // not 5.55e-17
      if (p >= low - 1e-12 * std::abs(low) && p <= high + 1e-12 * std::abs(high))
        axis.ticks.push_back({fractionOn(axis, {p, {}}), numberText(p)});
    }
  }
  return axis;
}

double ParallelCoordinatesPlot::fractionOn(const Axis& axis, const ParallelValue& value) const {
  if (!value.present()) return kNaN;
  switch (axis.scale) {
    case ParallelScale::Categorical: {
      const qsizetype index = axis.categories.indexOf(categoryOf(value));
      if (index < 0) return kNaN;
      const auto n = axis.categories.size();
      return n == 1 ? 0.5 : static_cast<double>(index) / static_cast<double>(n - 1);
    }
    case ParallelScale::Linear:
      if (!isNumber(value)) return kNaN;
      if (axis.low == axis.high) return *value.number == axis.low ? 0.5 : kNaN;
      return (*value.number - axis.low) / (axis.high - axis.low);
    case ParallelScale::Log:
      if (!isNumber(value) || *value.number <= 0) return kNaN;
      return (std::log10(*value.number) - std::log10(axis.low)) /
             (std::log10(axis.high) - std::log10(axis.low));
  }
  return kNaN;
}

double ParallelCoordinatesPlot::valueAt(const Axis& axis, double fraction) {
  if (axis.scale == ParallelScale::Log)
    return std::pow(
        10.0, std::log10(axis.low) + fraction * (std::log10(axis.high) - std::log10(axis.low)));
  return axis.low + fraction * (axis.high - axis.low);
}

void ParallelCoordinatesPlot::setData(ParallelData data) {
  const std::vector<Axis> oldAxes = std::move(m_axes);
  const auto oldBrushes = std::move(m_brushes);
  m_data = std::move(data);
  m_axes.clear();
  const size_t runs = m_data.runs.size();
  for (int p = 0; p < m_data.parameters.size(); ++p) {
    std::vector<ParallelValue> values(runs);
    for (size_t r = 0; r < runs; ++r)
      if (static_cast<size_t>(p) < m_data.runs[r].values.size())
        values[r] = m_data.runs[r].values[static_cast<size_t>(p)];
    m_axes.push_back(buildAxis(m_data.parameters[p], values, false));
  }
  std::vector<ParallelValue> metric(runs);
  for (size_t r = 0; r < runs; ++r)
    if (const auto& m = m_data.runs[r].metric; m && std::isfinite(*m)) metric[r].number = *m;
  Axis metricAxis = buildAxis(m_data.metric, metric, true);
  if (metricAxis.scale == ParallelScale::Categorical) metricAxis.scale = ParallelScale::Linear;
  m_axes.push_back(std::move(metricAxis));

  // Each brush moves to the axis of the same name (the metric's to the metric's).
  m_brushes.assign(m_axes.size(), std::nullopt);
  for (size_t i = 0; i < m_axes.size(); ++i)
    for (size_t j = 0; j < oldAxes.size(); ++j) {
      const bool bothMetric = i + 1 == m_axes.size() && j + 1 == oldAxes.size();
      const bool bothParameter = i + 1 < m_axes.size() && j + 1 < oldAxes.size();
      if (oldBrushes[j] && oldAxes[j].name == m_axes[i].name && (bothMetric || bothParameter))
        m_brushes[i] = carryBrush(oldAxes[j], m_axes[i], *oldBrushes[j]);
    }
  m_hover = -1;
  m_drag = {};
  relayout();
  updateBrushed();
}

std::optional<std::pair<double, double>> ParallelCoordinatesPlot::carryBrush(
    const Axis& from, const Axis& to, std::pair<double, double> range) const {
  const auto inside = [&](double f) {
    return f >= range.first - kBoundSlack && f <= range.second + kBoundSlack;
  };
  const bool fromCategorical = from.scale == ParallelScale::Categorical;
  if (fromCategorical != (to.scale == ParallelScale::Categorical)) return std::nullopt;
  double low = std::numeric_limits<double>::infinity(), high = -low;
  if (fromCategorical) {
    for (const auto& c : from.categories)
      if (inside(fractionOn(from, {{}, c})))
        if (const double f = fractionOn(to, {{}, c}); !std::isnan(f)) {
          low = std::min(low, f);
          high = std::max(high, f);
        }
    if (low > high) return std::nullopt;
    return std::make_pair(low, high);
  }
  if (from.low == from.high) {
    if (!inside(0.5)) return std::nullopt;
    low = high = from.low;
  } else {
    low = valueAt(from, range.first);
    high = valueAt(from, range.second);
  }
  if (to.low == to.high) {
    if (to.low < low || to.low > high) return std::nullopt;
    return std::make_pair(0.5, 0.5);
  }
  return std::make_pair(std::clamp(fractionOn(to, {low, {}}), 0.0, 1.0),
                        std::clamp(fractionOn(to, {high, {}}), 0.0, 1.0));
}

QString ParallelCoordinatesPlot::axisName(int axis) const {
  return m_axes.at(static_cast<size_t>(axis)).name;
}

ParallelScale ParallelCoordinatesPlot::axisScale(int axis) const {
  return m_axes.at(static_cast<size_t>(axis)).scale;
}

double ParallelCoordinatesPlot::fractionOf(int axis, const ParallelValue& value) const {
  return fractionOn(m_axes.at(static_cast<size_t>(axis)), value);
}

double ParallelCoordinatesPlot::runFraction(int run, int axis) const {
  return m_axes.at(static_cast<size_t>(axis)).runFractions.at(static_cast<size_t>(run));
}

// ---- brushing -----------------------------------------------------------------------------

void ParallelCoordinatesPlot::setBrush(int axis, double fromFraction, double toFraction) {
  m_brushes.at(static_cast<size_t>(axis)) =
      std::make_pair(std::min(fromFraction, toFraction), std::max(fromFraction, toFraction));
  updateBrushed();
}

void ParallelCoordinatesPlot::clearBrush(int axis) {
  m_brushes.at(static_cast<size_t>(axis)).reset();
  updateBrushed();
}

void ParallelCoordinatesPlot::clearBrushes() {
  for (auto& b : m_brushes) b.reset();
  updateBrushed();
}

std::optional<std::pair<double, double>> ParallelCoordinatesPlot::brush(int axis) const {
  return m_brushes.at(static_cast<size_t>(axis));
}

void ParallelCoordinatesPlot::updateBrushed() {
  std::vector<int64_t> brushed;
  m_inBrush.assign(m_data.runs.size(), true);
  for (size_t r = 0; r < m_data.runs.size(); ++r) {
    for (size_t a = 0; a < m_axes.size() && m_inBrush[r]; ++a) {
      if (!m_brushes[a]) continue;
      const double f = m_axes[a].runFractions[r];
      m_inBrush[r] = f >= m_brushes[a]->first - kBoundSlack &&
                     f <= m_brushes[a]->second + kBoundSlack;  // false for NaN
    }
    if (m_inBrush[r]) brushed.push_back(m_data.runs[r].runId);
  }
  update();
  if (brushed == m_brushed) return;
  m_brushed = std::move(brushed);
  emit brushedRunsChanged(m_brushed);
}

QString ParallelCoordinatesPlot::countText() const {
  return QString("%1 of %2 runs").arg(m_brushed.size()).arg(m_data.runs.size());
}

// ---- geometry -----------------------------------------------------------------------------

void ParallelCoordinatesPlot::resizeEvent(QResizeEvent* event) {
  QWidget::resizeEvent(event);
  relayout();
}

void ParallelCoordinatesPlot::relayout() {
  const QFontMetrics names(font());
  const QFontMetrics ticks(tickFont(font()));
  const auto widestTick = [&](const Axis& axis) {
    int widest = 0;
    for (const auto& t : axis.ticks) widest = std::max(widest, ticks.horizontalAdvance(t.text));
    if (axis.anyMissing) widest = std::max(widest, ticks.horizontalAdvance(kNoValue));
    return widest;
  };
  Layout l;
  // Parameters label their ticks left of the axis, the metric right of its colour strip.
  l.left = std::clamp(m_axes.size() > 1 ? widestTick(m_axes.front()) + 14 : 20, 20, 140);
  l.right = width() - std::clamp(widestTick(m_axes.back()) + kStripWidth / 2 + 12, 30, 140);
  const double spacing = m_axes.size() > 1 ? (l.right - l.left) / (m_axes.size() - 1) : l.right;
  int widestName = 0;
  for (const auto& a : m_axes) widestName = std::max(widestName, names.horizontalAdvance(a.name));
  // Names wider than the space between axes alternate between two rows.
  l.nameRows = m_axes.size() > 2 && widestName > spacing - 12 ? 2 : 1;
  l.top = 6 + l.nameRows * names.height() + 6 + ticks.height() / 2.0;
  for (const auto& a : m_axes) l.noValueRow = l.noValueRow || a.anyMissing;
  const double footer = names.height() + 10;
  l.bottom = height() - footer - ticks.height() / 2.0 - 4 - (l.noValueRow ? kNoValueGap : 0);
  l.bottom = std::max(l.bottom, l.top + 20);
  m_layout = l;
}

double ParallelCoordinatesPlot::axisX(int axis) const {
  if (m_axes.size() < 2) return (m_layout.left + m_layout.right) / 2;
  return m_layout.left +
         (m_layout.right - m_layout.left) * axis / static_cast<double>(m_axes.size() - 1);
}

double ParallelCoordinatesPlot::yOf(double fraction) const {
  return m_layout.bottom - fraction * (m_layout.bottom - m_layout.top);
}

double ParallelCoordinatesPlot::noValueY() const { return m_layout.bottom + kNoValueGap; }

double ParallelCoordinatesPlot::fractionAtY(double y) const {
  return std::clamp((m_layout.bottom - y) / (m_layout.bottom - m_layout.top), 0.0, 1.0);
}

QPointF ParallelCoordinatesPlot::pointAt(int axis, double fraction) const {
  return {axisX(axis), yOf(fraction)};
}

QPointF ParallelCoordinatesPlot::noValuePoint(int axis) const { return {axisX(axis), noValueY()}; }

QPointF ParallelCoordinatesPlot::vertex(int run, int axis) const {
  const double f = runFraction(run, axis);
  return std::isnan(f) ? noValuePoint(axis) : pointAt(axis, f);
}

int ParallelCoordinatesPlot::axisNear(const QPoint& point) const {
  if (point.y() < m_layout.top - kAxisGrab || point.y() > m_layout.bottom + kAxisGrab) return -1;
  for (int a = 0; a < axisCount(); ++a)
    if (std::abs(point.x() - axisX(a)) <= kAxisGrab) return a;
  return -1;
}

int ParallelCoordinatesPlot::runAt(const QPoint& point) const {
  int best = -1;
  double bestDistance = kLineGrab;
  for (int r = 0; r < static_cast<int>(m_data.runs.size()); ++r) {
    double d = std::numeric_limits<double>::infinity();
    for (int a = 0; a + 1 < axisCount(); ++a)
      d = std::min(d, distanceToSegment(point, vertex(r, a), vertex(r, a + 1)));
    if (axisCount() == 1) d = distanceToSegment(point, vertex(r, 0), vertex(r, 0));
    // Lines in the brushed set win over faint ones they nearly touch.
    if (!m_inBrush[static_cast<size_t>(r)]) d += 1.5;
    if (d <= bestDistance) {
      best = r;
      bestDistance = d;
    }
  }
  return best;
}

QColor ParallelCoordinatesPlot::metricColor(double fraction) const {
  return QColor::fromRgb(metricGradient().color(fraction, QCPRange(0, 1)));
}

QString ParallelCoordinatesPlot::runToolTip(int run) const {
  const auto& r = m_data.runs.at(static_cast<size_t>(run));
  QString tip = QString("run #%1").arg(r.runId);
  if (!r.label.isEmpty()) tip += "  " + r.label;
  const bool has = r.metric && std::isfinite(*r.metric);
  tip += has ? QString("\n%1 = %2").arg(m_data.metric).arg(*r.metric, 0, 'g', 5)
             : QString("\nno %1 value").arg(m_data.metric);
  return tip;
}

// ---- drawing ------------------------------------------------------------------------------

void ParallelCoordinatesPlot::paintEvent(QPaintEvent*) {
  QPainter painter(this);
  painter.fillRect(rect(), Qt::white);
  painter.setRenderHint(QPainter::Antialiasing);
  if (m_data.runs.empty()) {
    painter.setPen(palette().color(QPalette::PlaceholderText));
    painter.drawText(rect(), Qt::AlignCenter, "No runs to draw yet");
    return;
  }
  drawLines(painter);
  drawAxes(painter);
  drawFooter(painter);
}

void ParallelCoordinatesPlot::drawLines(QPainter& painter) const {
  const bool anyBrush =
      std::any_of(m_brushes.begin(), m_brushes.end(), [](const auto& b) { return b.has_value(); });
  const auto path = [&](int run) {
    QPainterPath p(vertex(run, 0));
    for (int a = 1; a < axisCount(); ++a) p.lineTo(vertex(run, a));
    return p;
  };
  const auto colorOf = [&](int run) {
    const double f = runFraction(run, metricAxis());
    return std::isnan(f) ? QColor(150, 150, 150) : metricColor(f);
  };
  painter.setBrush(Qt::NoBrush);
  const int runs = static_cast<int>(m_data.runs.size());
  // Faint lines under the brushed ones; runs without a metric (grey) under the coloured.
  for (int r = 0; r < runs; ++r)
    if (!m_inBrush[static_cast<size_t>(r)]) {
      painter.setPen(QPen(QColor(185, 185, 185, 90), 1));
      painter.drawPath(path(r));
    }
  for (const bool withMetric : {false, true})
    for (int r = 0; r < runs; ++r) {
      if (!m_inBrush[static_cast<size_t>(r)] ||
          std::isnan(runFraction(r, metricAxis())) == withMetric)
        continue;
      QColor c = colorOf(r);
      c.setAlpha(anyBrush ? 235 : 190);
      painter.setPen(QPen(c, withMetric ? 1.6 : 1.2));
      painter.drawPath(path(r));
    }
  if (m_hover >= 0 && m_hover < runs) {
    painter.setPen(QPen(QColor(255, 255, 255), 5));
    painter.drawPath(path(m_hover));
    painter.setPen(QPen(colorOf(m_hover), 3));
    painter.drawPath(path(m_hover));
  }
}

std::vector<ParallelCoordinatesPlot::Tick> ParallelCoordinatesPlot::fittingTicks(
    const Axis& axis) const {
  // Labels at least a line apart, the lowest and highest kept: the highest replaces the one
  // below it when they would touch.
  const double gap = QFontMetrics(tickFont(font())).height() + 1;
  std::vector<Tick> sorted = axis.ticks;
  std::sort(sorted.begin(), sorted.end(),
            [](const Tick& a, const Tick& b) { return a.fraction < b.fraction; });
  std::vector<Tick> kept;
  for (const auto& t : sorted)
    if (kept.empty() || yOf(kept.back().fraction) - yOf(t.fraction) >= gap) kept.push_back(t);
  if (kept.size() >= 2 && !sorted.empty() && kept.back().fraction != sorted.back().fraction &&
      yOf(kept[kept.size() - 2].fraction) - yOf(sorted.back().fraction) >= gap)
    kept.back() = sorted.back();
  return kept;
}

void ParallelCoordinatesPlot::drawAxes(QPainter& painter) const {
  const QFont tickF = tickFont(font());
  QFont nameF = font();
  nameF.setBold(true);
  const QFontMetrics names(nameF), ticks(tickF);
  const double spacing =
      m_axes.size() > 1 ? (m_layout.right - m_layout.left) / (m_axes.size() - 1) : width();
  const QColor ink(60, 60, 60);
  for (int a = 0; a < axisCount(); ++a) {
    const Axis& axis = m_axes[static_cast<size_t>(a)];
    const bool metric = a == metricAxis();
    const double x = axisX(a);
    // The axis: a line, or for the metric the colour strip its lines take their colour from.
    if (metric) {
      QLinearGradient strip(0, m_layout.bottom, 0, m_layout.top);
      for (int k = 0; k <= 10; ++k) strip.setColorAt(k / 10.0, metricColor(k / 10.0));
      const QRectF bar(x - kStripWidth / 2.0, m_layout.top, kStripWidth,
                       m_layout.bottom - m_layout.top);
      painter.fillRect(bar, strip);
      painter.setPen(QPen(ink, 1));
      painter.drawRect(bar);
    } else {
      painter.setPen(QPen(ink, 1.2));
      painter.drawLine(QPointF(x, m_layout.top), QPointF(x, m_layout.bottom));
    }
    // Its range, if brushed.
    if (const auto& b = m_brushes[static_cast<size_t>(a)]) {
      const QRectF range(QPointF(x - 7, yOf(b->second) - 2), QPointF(x + 7, yOf(b->first) + 2));
      painter.setPen(QPen(QColor(20, 20, 20), 1.2));
      painter.setBrush(QColor(20, 20, 20, metric ? 30 : 55));
      painter.drawRect(range);
      painter.setBrush(Qt::NoBrush);
    }
    // Its ticks: left of a parameter's axis, right of the metric's strip.
    painter.setFont(tickF);
    const double labelWidth =
        a == 0 ? m_layout.left - 8
               : (metric ? width() - x - kStripWidth / 2.0 - 6 : std::min(spacing - 14, 160.0));
    const auto label = [&](double y, const QString& text) {
      const QString shown = ticks.elidedText(text, Qt::ElideRight, static_cast<int>(labelWidth));
      const double h = ticks.height();
      painter.setPen(QPen(ink, 1));
      if (metric) {
        painter.drawLine(QPointF(x + kStripWidth / 2.0, y), QPointF(x + kStripWidth / 2.0 + 3, y));
        drawHaloText(painter, QRectF(x + kStripWidth / 2.0 + 5, y - h / 2, labelWidth, h),
                     Qt::AlignLeft | Qt::AlignVCenter, shown);
      } else {
        painter.drawLine(QPointF(x - 4, y), QPointF(x, y));
        drawHaloText(painter, QRectF(x - 6 - labelWidth, y - h / 2, labelWidth, h),
                     Qt::AlignRight | Qt::AlignVCenter, shown);
      }
    };
    for (const auto& t : fittingTicks(axis)) label(yOf(t.fraction), t.text);
    if (axis.anyMissing) {
      painter.setPen(QPen(ink, 1, Qt::DotLine));
      painter.drawLine(QPointF(x, m_layout.bottom + 4), QPointF(x, noValueY()));
      label(noValueY(), kNoValue);
    }
    // Its name on top, in one of two rows when names are wider than the space between axes.
    painter.setFont(nameF);
    painter.setPen(QColor(20, 20, 20));
    QString name = axis.name + (axis.scale == ParallelScale::Log ? " (log)" : "");
    const int room = static_cast<int>(spacing * m_layout.nameRows) - 12;
    name = names.elidedText(name, Qt::ElideRight, std::max(room, 30));
    const double w = names.horizontalAdvance(name) + 2;
    const double left = std::clamp(x - w / 2, 2.0, std::max(2.0, width() - w - 2));
    const double row = m_layout.nameRows == 2 && a % 2 == 1 ? 1 : 0;
    painter.drawText(QRectF(left, 6 + row * names.height(), w, names.height()), Qt::AlignCenter,
                     name);
  }
}

void ParallelCoordinatesPlot::drawFooter(QPainter& painter) const {
  painter.setFont(font());
  const QFontMetrics fm(font());
  const QRectF line(6, height() - fm.height() - 6, width() - 12, fm.height());
  int missing = 0;
  for (double f : m_axes.back().runFractions) missing += std::isnan(f) ? 1 : 0;
  const QString right = missing ? QString("%1 without a %2 value (grey, at \"%3\")")
                                      .arg(missing)
                                      .arg(m_data.metric, kNoValue)
                                : QString();
  QFont bold = font();
  bold.setBold(true);
  painter.setFont(bold);
  painter.setPen(QColor(20, 20, 20));
  const QString count = countText();
  painter.drawText(line, Qt::AlignLeft | Qt::AlignVCenter, count);
  const double countWidth = QFontMetrics(bold).horizontalAdvance(count) + 8;
  painter.setFont(font());
  painter.setPen(QColor(100, 100, 100));
  const double rightWidth = fm.horizontalAdvance(right);
  const QString hint =
      fm.elidedText("· drag along an axis to select a range, click it to clear", Qt::ElideRight,
                    static_cast<int>(line.width() - countWidth - rightWidth - 16));
  painter.drawText(line.adjusted(countWidth, 0, 0, 0), Qt::AlignLeft | Qt::AlignVCenter, hint);
  painter.drawText(line, Qt::AlignRight | Qt::AlignVCenter, right);
}

// ---- mouse --------------------------------------------------------------------------------

bool ParallelCoordinatesPlot::event(QEvent* event) {
  if (event->type() != QEvent::ToolTip) return QWidget::event(event);
  auto* help = static_cast<QHelpEvent*>(event);
  const int run = runAt(help->pos());
  if (run >= 0) {
    QToolTip::showText(help->globalPos(), runToolTip(run), this);
    return true;
  }
  // Above the axes: the axis's whole name and scale (it may be elided).
  if (help->pos().y() < m_layout.top && !m_axes.empty()) {
    int nearest = 0;
    for (int a = 1; a < axisCount(); ++a)
      if (std::abs(help->pos().x() - axisX(a)) < std::abs(help->pos().x() - axisX(nearest)))
        nearest = a;
    const Axis& axis = m_axes[static_cast<size_t>(nearest)];
    const char* scale = axis.scale == ParallelScale::Categorical ? "values spaced evenly"
                        : axis.scale == ParallelScale::Log       ? "logarithmic"
                                                                 : "linear";
    QToolTip::showText(
        help->globalPos(),
        QString("%1 (%2)%3\nDrag along the axis to select a range, click it to clear")
            .arg(axis.name, scale, nearest == metricAxis() ? ": the lines' colour" : ""),
        this);
    return true;
  }
  QToolTip::hideText();
  return true;
}

void ParallelCoordinatesPlot::mousePressEvent(QMouseEvent* event) {
  if (event->button() == Qt::LeftButton) {
    m_drag = {axisNear(event->position().toPoint()), event->position().y(), false};
  }
  QWidget::mousePressEvent(event);
}

void ParallelCoordinatesPlot::mouseMoveEvent(QMouseEvent* event) {
  const double y = event->position().y();
  if (m_drag.axis >= 0) {
    m_drag.moved = m_drag.moved || std::abs(y - m_drag.startY) >= kDragStart;
    if (m_drag.moved) setBrush(m_drag.axis, fractionAtY(m_drag.startY), fractionAtY(y));
    return;
  }
  const int hover = runAt(event->position().toPoint());
  if (hover != m_hover) {
    m_hover = hover;
    update();
  }
}

void ParallelCoordinatesPlot::mouseReleaseEvent(QMouseEvent* event) {
  if (event->button() == Qt::LeftButton && m_drag.axis >= 0) {
    if (m_drag.moved)
      setBrush(m_drag.axis, fractionAtY(m_drag.startY), fractionAtY(event->position().y()));
    else
      clearBrush(m_drag.axis);
    m_drag = {};
  }
  QWidget::mouseReleaseEvent(event);
}

void ParallelCoordinatesPlot::mouseDoubleClickEvent(QMouseEvent* event) {
  const int run = runAt(event->position().toPoint());
  if (run >= 0) emit runDoubleClicked(m_data.runs[static_cast<size_t>(run)].runId);
}

void ParallelCoordinatesPlot::leaveEvent(QEvent* event) {
  if (m_hover >= 0) {
    m_hover = -1;
    update();
  }
  QWidget::leaveEvent(event);
}

}  // namespace fl::widgets
