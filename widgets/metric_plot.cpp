#include "widgets/metric_plot.h"

#include <QAbstractScrollArea>
#include <QCoreApplication>
#include <QHash>
#include <QMouseEvent>
#include <QVBoxLayout>
#include <QWheelEvent>

#include <algorithm>
#include <cmath>
#include <limits>

#include <qcustomplot.h>

#include "widgets/curve_decimation.h"
#include "widgets/log_ticker.h"
#include "widgets/plot_frame.h"
#include "widgets/readout_tip.h"
#include "widgets/run_colors.h"
#include "widgets/step_ticker.h"

namespace fl::widgets {

namespace {

// The marker of a curve that is a single point, its shape its series' as its dashes are (the
// line style of seriesPen's position): a run's mse_argmax and mse_expected after one evaluation
// were two dots of one colour, told apart by dashes that a point does not have.
QCPScatterStyle singlePointMarker(const QPen& line, const QColor& color) {
  static const QCPScatterStyle::ScatterShape kShapes[] = {
      QCPScatterStyle::ssDisc,    QCPScatterStyle::ssSquare, QCPScatterStyle::ssTriangle,
      QCPScatterStyle::ssDiamond, QCPScatterStyle::ssCross,  QCPScatterStyle::ssTriangleInverted,
      QCPScatterStyle::ssStar};
  constexpr int kShapeCount = sizeof(kShapes) / sizeof(kShapes[0]);
  const QString style = lineStyleOf(line);
  int position = 0;
  while (position < kShapeCount && lineStyleOf(seriesPen(color, position)) != style) ++position;
  return QCPScatterStyle(kShapes[position % kShapeCount], color, color, 7);
}

QVector<double> toQVector(const std::vector<double>& v) {
  return QVector<double>(v.begin(), v.end());
}

QColor faded(QColor c) {
  c.setAlpha(70);
  return c;
}

// A y range for values lo..hi: 5% padding, and for a constant curve a span the eye can read
// (not ±1e-12 around it, where every tick label is the same number).
std::pair<double, double> paddedRange(double lo, double hi) {
  const double span = hi - lo;
  const double magnitude = std::max(std::abs(lo), std::abs(hi));
  if (span <= 1e-9 * std::max(1.0, magnitude)) {
    const double pad = magnitude > 0 ? 0.1 * magnitude : 1.0;
    return {lo - pad, hi + pad};
  }
  return {lo - 0.05 * span, hi + 0.05 * span};
}

}  // namespace

MetricPlot::MetricPlot(const QString& title, const QString& xLabel, const QString& yLabel,
                       QWidget* parent)
    : QWidget(parent),
      m_plot(new QCustomPlot(this)),
      m_crosshair(nullptr),
      m_floor(std::numeric_limits<double>::quiet_NaN()),
      m_ceiling(m_floor),
      m_legendNote(nullptr) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(m_plot, 1);
  setUpPlotFrame(m_plot, title, xLabel, yLabel, /*legend=*/true);
  // What the legend lists is decided on each redecimate: a new graph is not listed by itself.
  m_plot->setAutoAddPlottableToLegend(false);
  m_plot->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
  // The crosshair lives on its own buffered layer: moving it repaints that layer only.
  m_plot->addLayer("crosshair", m_plot->layer("overlay"), QCustomPlot::limBelow);
  m_plot->layer("crosshair")->setMode(QCPLayer::lmBuffered);
  m_crosshair = new QCPItemStraightLine(m_plot);
  m_crosshair->setLayer("crosshair");
  m_crosshair->setPen(QPen(QColor(120, 120, 120), 1, Qt::DashLine));
  m_crosshair->setVisible(false);
  m_crosshair->setSelectable(false);
  // Where the legend would be, atop its column: over the data it hid the curves it counts.
  // Empty, without margins (so taking no room), while the legend names them.
  m_legendNote = new QCPTextElement(m_plot, QString(), QFont("sans", 8));
  m_legendNote->setTextColor(QColor(110, 110, 110));
  m_legendNote->setTextFlags(Qt::AlignLeft | Qt::AlignTop);
  m_legendNote->setMargins(QMargins());
  if (auto* column = qobject_cast<QCPLayoutGrid*>(m_plot->legend->layout())) {
    column->insertRow(0);  // at the top, where a legend's first names would be
    column->addElement(0, 0, m_legendNote);
    column->setRowStretchFactor(0, 0.001);
    column->setRowSpacing(0);  // an empty note leaves the legend where it was
  }
  m_plot->setMouseTracking(true);
  m_plot->installEventFilter(this);
  connect(m_plot->xAxis, qOverload<const QCPRange&>(&QCPAxis::rangeChanged), this,
          [this](const QCPRange&) {
            if (!m_autoRange) redecimate();
          });
  // A drag or Ctrl+wheel zooms and the plot stops following the data; a click (to focus, to read
  // a point) does not: it held a panel at its old range while new runs came.
  connect(m_plot, &QCustomPlot::mousePress, this,
          [this](QMouseEvent* event) { m_pressedAt = event->pos(); });
  connect(m_plot, &QCustomPlot::mouseMove, this, [this](QMouseEvent* event) {
    if ((event->buttons() & Qt::LeftButton) && (event->pos() - m_pressedAt).manhattanLength() > 3)
      m_autoRange = false;
  });
  connect(m_plot, &QCustomPlot::mouseWheel, this, [this](QWheelEvent*) { m_autoRange = false; });
  connect(m_plot, &QCustomPlot::mouseDoubleClick, this, [this](QMouseEvent* event) {
    // On the title it maximises the panel (the dashboard's): the zoom stays as it was.
    if (m_plot->layoutElementAt(event->pos()) == plotTitle(m_plot)) return;
    m_autoRange = true;  // double-click: back to following the data
    refresh();
  });
  connect(m_plot, &QCustomPlot::mouseMove, this, &MetricPlot::showReadout);
}

MetricPlot::~MetricPlot() { hideReadout(); }

bool MetricPlot::eventFilter(QObject* watched, QEvent* event) {
  // The readout is its own window: it goes with the pointer, and with the plot (another run
  // shown, the panels rebuilt, the window minimised).
  if (watched == m_plot && (event->type() == QEvent::Leave || event->type() == QEvent::Hide))
    hideReadout();
  // The wheel scrolls the page of panels, as a browser's dashboards do; Ctrl+wheel zooms. A
  // plain wheel zoomed whichever plot passed under the pointer, and a reader scrolling down
  // the page left each one zoomed and no longer following its runs.
  if (watched == m_plot && event->type() == QEvent::Wheel &&
      !(static_cast<QWheelEvent*>(event)->modifiers() & Qt::ControlModifier)) {
    scrollThePage(*static_cast<QWheelEvent*>(event));
    return true;
  }
  // The panel's help is the plot's parent's tooltip: asked for when the pointer rests, it
  // replaced the readout of the values under the pointer.
  if (watched == m_plot && event->type() == QEvent::ToolTip && m_crosshair->visible()) return true;
  // A new width: the curves are decimated per pixel column and the legend's names elided to
  // the plot's share, both for the width they now have.
  if (watched == m_plot && event->type() == QEvent::Resize) redecimate();
  return QWidget::eventFilter(watched, event);
}

void MetricPlot::scrollThePage(QWheelEvent& wheel) {
  // Handed to the nearest scroll area: Qt passes a wheel on to the parents only when it came
  // from the window system, so one ignored here would not reach the page in every case.
  for (QWidget* w = parentWidget(); w; w = w->parentWidget())
    if (auto* area = qobject_cast<QAbstractScrollArea*>(w)) {
      const QPointF global = wheel.globalPosition();
      QWheelEvent forwarded(area->viewport()->mapFromGlobal(global), global, wheel.pixelDelta(),
                            wheel.angleDelta(), wheel.buttons(), wheel.modifiers(), wheel.phase(),
                            wheel.inverted(), wheel.source());
      QCoreApplication::sendEvent(area->viewport(), &forwarded);
      wheel.setAccepted(forwarded.isAccepted());
      return;
    }
  wheel.ignore();  // no page to scroll: the window's own parents may take it
}

void MetricPlot::setCurve(const QString& name, const QPen& pen, std::vector<double> x,
                          std::vector<double> y) {
  auto it = m_curves.find(name);
  if (it == m_curves.end()) {
    CurveData c;
    c.raw = m_plot->addGraph();
    c.smooth = m_plot->addGraph();
    if (m_stepwise)
      for (QCPGraph* graph : {c.raw, c.smooth}) graph->setLineStyle(QCPGraph::lsStepLeft);
    c.raw->setName(name);
    c.smooth->setName(name);
    it = m_curves.insert(name, c);
  }
  it->pen = pen;
  it->x = std::move(x);
  it->y = std::move(y);
  it->smoothed.clear();
  it->ema = {};
  it->band = {};
}

void MetricPlot::setCurveParts(const QString& name, const QString& run, const QString& style) {
  auto it = m_curves.find(name);
  if (it == m_curves.end()) return;
  it->run = run;
  it->style = style;
}

QList<const MetricPlot::CurveData*> MetricPlot::shownCurvesInOrder() const {
  QHash<const QCPGraph*, const CurveData*> curveOf;
  for (const auto& c : m_curves) curveOf.insert(c.raw, &c);
  QList<const CurveData*> shown;
  for (int i = 0; i < m_plot->graphCount(); ++i)
    if (const CurveData* c = curveOf.value(m_plot->graph(i)); c && !c->hidden) shown << c;
  return shown;
}

std::optional<MetricPlot::LegendKeys> MetricPlot::legendKeysOfRunsAndStyles(
    const QList<const CurveData*>& shownInOrder) const {
  LegendKeys keys;
  int shown = 0;
  for (const CurveData* curve : shownInOrder) {
    const CurveData& c = *curve;
    ++shown;
    if (c.run.isEmpty() || c.style.isEmpty()) return std::nullopt;
    bool knownRun = false;
    for (const auto& run : keys.runs) knownRun |= run.first == c.run;
    if (!knownRun) keys.runs.append({c.run, c.pen.color()});
    bool knownStyle = false;
    for (const auto& [label, pen] : keys.styles) {
      // One label, one line style; two labels never share one (the key would name both).
      if ((label == c.style) != (lineStyleOf(pen) == lineStyleOf(c.pen))) return std::nullopt;
      knownStyle |= label == c.style;
    }
    if (!knownStyle) keys.styles.append({c.style, c.pen});
    keys.markers = keys.markers || c.x.size() == 1;
    // Keys a compact legend cannot show help no more than the hover note does.
    if (keys.styles.size() > kCompactLegendEntries) return std::nullopt;
  }
  // One run's keys are its styles alone (the focus line names it): six ablations of one run
  // were named "#326 tiny, …removed_all", cut where high- and low-pass differ. Runs too many
  // for their own keys beside the styles are read on hover.
  keys.runsOnHover =
      keys.runs.size() > 1 && keys.runs.size() + keys.styles.size() > kCompactLegendEntries;
  // A comparison focused on a run without these curves drew another run's as "h0".."h3".
  keys.nameTheOneRun = keys.runs.size() == 1 && !m_shownRunName.isEmpty() &&
                       keys.runs.front().first != m_shownRunName;
  // Worth it only where no longer than naming each curve.
  const qsizetype listed = (keys.runs.size() > 1 && !keys.runsOnHover) || keys.nameTheOneRun
                               ? keys.runs.size() + keys.styles.size()
                               : keys.styles.size();
  // (The one run's own key is worth a row: naming it in each curve elided the styles away.)
  if (keys.runs.isEmpty() || keys.styles.size() < 2 || listed > shown + keys.nameTheOneRun)
    return std::nullopt;
  return keys;
}

void MetricPlot::showLegendKeys(const std::optional<LegendKeys>& keys) {
  if (keys == m_shownKeys) return;
  for (auto* key : m_legendKeys) m_plot->removeGraph(key);
  m_legendKeys.clear();
  m_shownKeys = keys;
  if (!keys) return;
  QList<QPair<QString, QPen>> pens;
  const bool oneRun = keys->runs.size() == 1;  // its styles in its colour
  if ((!oneRun && !keys->runsOnHover) || keys->nameTheOneRun)
    for (const auto& [label, color] : keys->runs) pens.append({label, runKeyPen(color)});
  const qsizetype runKeys = pens.size();
  for (const auto& [label, line] : keys->styles) {
    QPen pen = styleKeyPen(line);
    if (oneRun) pen.setColor(keys->runs.front().second);
    pens.append({label, pen});
  }
  m_legendKeys = fl::widgets::showLegendKeys(m_plot, pens);
  if (keys->markers)
    for (qsizetype i = 0; i < keys->styles.size(); ++i)
      m_legendKeys[runKeys + i]->setScatterStyle(
          singlePointMarker(keys->styles[i].second, pens[runKeys + i].second.color()));
}

void MetricPlot::setCurveBand(const QString& name, Band band) {
  auto it = m_curves.find(name);
  if (it == m_curves.end()) return;
  const size_t n = it->x.size();
  const bool fits = !band.low.empty() && band.low.size() == n && band.high.size() == n;
  if (!fits) band = {};
  if (band.lowest.size() != n) band.lowest.clear();
  if (band.count.size() != n) band.count.clear();
  it->band = std::move(band);
  if (fits && !it->bandLow) {
    // Added first would put them above the curve: moved below every graph instead.
    it->bandLow = m_plot->addGraph();
    it->bandHigh = m_plot->addGraph();
    for (auto* g : {it->bandLow, it->bandHigh}) {
      g->setPen(Qt::NoPen);
      g->setLayer("grid");  // over the grid lines, under every curve
      if (m_stepwise) g->setLineStyle(QCPGraph::lsStepLeft);
    }
    it->bandHigh->setChannelFillGraph(it->bandLow);
  }
  if (it->bandLow) {
    it->bandLow->setVisible(!it->hidden);
    it->bandHigh->setVisible(!it->hidden);
  }
  if (fits && !it->bandBar) {
    it->bandBar = new QCPErrorBars(m_plot->xAxis, m_plot->yAxis);
    it->bandBar->removeFromLegend();
    it->bandBar->setDataPlottable(it->raw);
  }
  if (it->bandBar) it->bandBar->setVisible(!it->hidden);
}

bool MetricPlot::hasBand(const QString& name) const {
  auto it = m_curves.find(name);
  return it != m_curves.end() && !it->band.low.empty();
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
  if (it->bandLow) m_plot->removeGraph(it->bandLow);
  if (it->bandHigh) m_plot->removeGraph(it->bandHigh);
  if (it->bandBar) m_plot->removePlottable(it->bandBar);
  m_curves.erase(it);
}

void MetricPlot::clearCurves() {
  for (const auto& name : m_curves.keys()) removeCurve(name);
  showLegendKeys(std::nullopt);
}

void MetricPlot::followData() {
  m_autoRange = true;
  refresh();
}

size_t MetricPlot::pointCount(const QString& name) const {
  auto it = m_curves.find(name);
  return it == m_curves.end() ? 0 : it->x.size();
}

std::vector<double> MetricPlot::curveX(const QString& name) const {
  auto it = m_curves.find(name);
  return it == m_curves.end() ? std::vector<double>() : it->x;
}

QPen MetricPlot::curvePen(const QString& name) const {
  auto it = m_curves.find(name);
  return it == m_curves.end() ? QPen() : it->pen;
}

int MetricPlot::drawnPointCount(const QString& name) const {
  auto it = m_curves.find(name);
  return it == m_curves.end() ? 0 : it->raw->data()->size();
}

void MetricPlot::setCurveHidden(const QString& name, bool hidden) {
  auto it = m_curves.find(name);
  if (it == m_curves.end() || it->hidden == hidden) return;
  it->hidden = hidden;
  it->raw->setVisible(!hidden);
  it->smooth->setVisible(!hidden);
  if (it->bandLow) it->bandLow->setVisible(!hidden);
  if (it->bandHigh) it->bandHigh->setVisible(!hidden);
  if (it->bandBar) it->bandBar->setVisible(!hidden);
  // No redraw here: a dashboard hides many curves at once and refreshes once after.
}

bool MetricPlot::isCurveHidden(const QString& name) const {
  auto it = m_curves.find(name);
  return it != m_curves.end() && it->hidden;
}

void MetricPlot::setValueBounds(double floor, double ceiling) {
  m_floor = floor;
  m_ceiling = ceiling;
  refresh();
}

void MetricPlot::setXAxis(const QString& label, XKind kind) {
  m_xKind = kind;
  m_plot->xAxis->setLabel(label);
  // Steps and tokens keep the compact whole-number ticks; epochs and seconds fall between.
  if (kind == XKind::Count)
    m_plot->xAxis->setTicker(QSharedPointer<QCPAxisTicker>(new StepTicker));
  else
    m_plot->xAxis->setTicker(QSharedPointer<QCPAxisTicker>(new QCPAxisTicker));
  m_autoRange = true;
  refresh();
}

QString MetricPlot::xLabel() const { return m_plot->xAxis->label(); }

QString MetricPlot::xText(double x) const {
  switch (m_xKind) {
    case XKind::Fraction:
      return QString::number(x, 'f', 2);
    case XKind::Seconds:
      return QString::number(x, 'f', 1) + " s";
    case XKind::Count:
      break;
  }
  return QString::number(x, 'f', 0);
}

void MetricPlot::setLogY(bool logY) {
  m_logY = logY;
  m_wholeY = false;
  m_plot->yAxis->setScaleType(logY ? QCPAxis::stLogarithmic : QCPAxis::stLinear);
  if (logY)
    m_plot->yAxis->setTicker(QSharedPointer<LogTicker>(new LogTicker));
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
      if (!c.x.empty() && !c.hidden) {
        lo = std::min(lo, c.x.front());
        hi = std::max(hi, c.x.back());
      }
    // A lone step sits in the middle of a small range instead of on the edge of [s, s + 1].
    if (std::isfinite(lo)) {
      if (hi > lo)
        m_plot->xAxis->setRange(lo, hi);
      else
        m_plot->xAxis->setRange(lo - 1, lo + 1);
    } else {
      // Nothing drawn: not the ranges of the curves before (a new run's panels read the last
      // run's steps and losses until its first value).
      m_plot->xAxis->setRange(0, 1);
    }
  }
  redecimate();
}

bool MetricPlot::smoothes(const CurveData& c) const {
  // An EMA of weight w averages over about 1 / (1 - w) points: a curve with no more points
  // than that (4 evaluations at 0.91) would be averaged whole, its last value far from its
  // last point, so it is drawn as it is.
  return m_smoothing > 0 && static_cast<double>(c.y.size()) > 1.0 / (1.0 - m_smoothing);
}

void MetricPlot::redecimate() {
  const QCPRange range = m_plot->xAxis->range();
  const int columns = std::max(50, m_plot->axisRect()->width());
  double yLo = std::numeric_limits<double>::infinity(), yHi = -yLo;
  bool whole = !m_logY;
  // Decided before the curves are drawn: with keys, the curves stay out of the legend (taking
  // hundreds of rows in and out of it on every tick would cost more than drawing them).
  const auto shownInOrder = shownCurvesInOrder();
  const auto keys = legendKeysOfRunsAndStyles(shownInOrder);
  int shown = 0;
  for (auto& c : m_curves) {
    if (c.hidden) {
      if (!keys) {
        c.raw->removeFromLegend();
        c.smooth->removeFromLegend();
      }
      continue;
    }
    ++shown;
    const bool smoothing = smoothes(c);
    drawBand(c, range.lower, range.upper, columns);
    for (const auto& bound : {drawnBandLow(c), c.band.high})
      for (double v : bound)
        if (std::isfinite(v) && (!m_logY || v > 0)) {
          yLo = std::min(yLo, v);
          yHi = std::max(yHi, v);
          whole = whole && v == std::round(v);
        }
    const Curve raw = decimateMinMax(c.x, c.y, range.lower, range.upper, columns);
    c.raw->setData(toQVector(raw.x), toQVector(raw.y), /*alreadySorted=*/true);
    QPen rawPen = c.pen;
    if (smoothing) {
      rawPen.setColor(faded(c.pen.color()));
      rawPen.setWidthF(1.0);
      rawPen.setStyle(Qt::SolidLine);
    }
    c.raw->setPen(rawPen);
    // A single evaluation is a point: without a marker a one-point line draws nothing.
    c.raw->setScatterStyle(c.x.size() == 1 ? singlePointMarker(c.pen, c.pen.color())
                                           : QCPScatterStyle());
    // Antialiasing a decimated curve (several points per pixel column) costs ~35 ms a replot
    // for 1M points and shows nothing more; sparse curves keep it.
    const bool dense = raw.x.size() > static_cast<size_t>(2 * columns);
    c.raw->setAntialiased(!dense && !smoothing);
    c.smooth->setAntialiased(!dense);
    // The legend shows the curve drawn solid, the smoothed one while smoothing (listed below).
    if (smoothing) {
      extendEma(c.y, m_smoothing, c.ema, c.smoothed);
      const Curve smooth = decimateMinMax(c.x, c.smoothed, range.lower, range.upper, columns);
      c.smooth->setData(toQVector(smooth.x), toQVector(smooth.y), true);
      QPen smoothPen = c.pen;
      smoothPen.setWidthF(c.pen.widthF() + 0.2);
      c.smooth->setPen(smoothPen);
      if (!keys) c.raw->removeFromLegend();
    } else {
      c.smooth->data()->clear();
      if (!keys) c.smooth->removeFromLegend();
    }
    for (double v : raw.y)
      if (std::isfinite(v) && (!m_logY || v > 0)) {
        yLo = std::min(yLo, v);
        yHi = std::max(yHi, v);
        whole = whole && v == std::round(v);
      }
  }
  if (m_autoRange && std::isfinite(yLo)) {
    auto [lo, hi] = m_logY ? std::pair(yLo / 1.2, yHi * 1.2) : paddedRange(yLo, yHi);
    if (std::isfinite(m_floor) && std::isfinite(m_ceiling)) {
      // Inside the bounds, but for the margin that keeps a line on them in sight: a flat
      // accuracy at 0 reads 0..1, not -1..1, above the axis line.
      const double margin = kBoundedCurveMargin * (m_ceiling - m_floor);
      lo = std::max(lo, m_floor - margin);
      hi = std::min(hi, m_ceiling + margin);
      if (hi <= lo) std::tie(lo, hi) = std::pair(m_floor - margin, m_ceiling + margin);
    } else if (std::isfinite(m_floor) && !m_logY && hi > m_floor) {
      // A floor alone (a squared error is never negative): the axis stops just below it.
      lo = std::max(lo, m_floor - kBoundedCurveMargin * (hi - m_floor));
    }
    m_plot->yAxis->setRange(lo, hi);
  } else if (m_autoRange && std::isfinite(m_floor) && std::isfinite(m_ceiling)) {
    // Nothing to draw yet: the bounds' range, not QCustomPlot's 0..5 (an accuracy panel read
    // 0 to 5 before its first evaluation).
    const double margin = kBoundedCurveMargin * (m_ceiling - m_floor);
    m_plot->yAxis->setRange(m_floor - margin, m_ceiling + margin);
  } else if (m_autoRange) {
    m_plot->yAxis->setRange(m_logY ? 0.1 : 0.0, 1.0);
  }
  // Whole-number series (periods, counts) get whole-number ticks.
  if (!m_logY && std::isfinite(yLo) && whole != m_wholeY) {
    m_wholeY = whole;
    m_plot->yAxis->setTicker(whole ? QSharedPointer<QCPAxisTicker>(new IntegerTicker)
                                   : QSharedPointer<QCPAxisTicker>(new QCPAxisTicker));
  }
  showLegendKeys(keys);
  // The legend shows the curve drawn solid (the smoothed one while smoothing), in the order the
  // curves came; one already listed stays where it is.
  if (!keys)
    for (const CurveData* c : shownInOrder) (smoothes(*c) ? c->smooth : c->raw)->addToLegend();
  const bool named = fitLegend(m_plot, kCompactLegendEntries);
  const bool runsOnHover = named && keys && keys->runsOnHover;
  const bool note = (!named && shown > 0) || runsOnHover;
  m_legendNote->setText(runsOnHover
                            ? QString("%1 runs:\nhover to\nread them").arg(keys->runs.size())
                        : note ? QString("%1 curves:\nhover to\nread them").arg(shown)
                               : QString());
  // A saved plot has no pointer to hover: it says what the colours are.
  setSavedText(m_legendNote, runsOnHover
                                 ? QString("%1 runs,\none colour\neach").arg(keys->runs.size())
                                 : QString("%1 curves").arg(shown));
  m_legendNote->setMargins(note ? QMargins(2, 2, 4, 2) : QMargins());
  m_legendNote->setMaximumSize(QWIDGETSIZE_MAX, note ? QWIDGETSIZE_MAX : 0);
  fitTicks(m_plot);
  m_plot->replot(QCustomPlot::rpQueuedReplot);
}

void MetricPlot::drawBand(CurveData& c, double xLower, double xUpper, int columns) {
  if (!c.bandLow) return;
  if (c.bandBar) c.bandBar->data()->clear();
  if (c.band.low.empty()) {
    c.bandLow->data()->clear();
    c.bandHigh->data()->clear();
    return;
  }
  // One point: a filled band of no width showed the group's mean alone, its spread only on
  // hover (a group's single evaluation read as settled); drawn as a bar, as the Study figure
  // draws it.
  if (c.x.size() == 1) {
    c.bandLow->data()->clear();
    c.bandHigh->data()->clear();
    const double low = drawnBandLow(c).front(), high = c.band.high.front(), mean = c.y.front();
    if (std::isfinite(low) && std::isfinite(high) && std::isfinite(mean)) {
      c.bandBar->setData(QVector<double>{std::max(0.0, mean - low)},
                         QVector<double>{std::max(0.0, high - mean)});
      QColor pen = c.pen.color();
      pen.setAlpha(160);
      c.bandBar->setPen(QPen(pen, 1.4));
    }
    return;
  }
  // Per pixel column as the curve; the fill between the two envelopes keeps every extreme.
  std::vector<double> low = drawnBandLow(c);
  for (double& v : low)
    if (m_logY && std::isnan(v)) v = std::numeric_limits<double>::min();  // the axis floor
  const Curve lower = decimateMinMax(c.x, low, xLower, xUpper, columns);
  const Curve high = decimateMinMax(c.x, c.band.high, xLower, xUpper, columns);
  c.bandLow->setData(toQVector(lower.x), toQVector(lower.y), true);
  c.bandHigh->setData(toQVector(high.x), toQVector(high.y), true);
  QColor fill = c.pen.color();
  fill.setAlpha(48);
  c.bandHigh->setBrush(fill);
}

std::vector<double> MetricPlot::drawnBandLow(const CurveData& c) const {
  // A band under the panel's floor (mean - sd of a squared error below 0) is cut at it: no
  // value is there to spread over. On a log axis, where one seed's spike makes sd as large as
  // the mean, mean - sd lands at zero or just above it, decades under every member: the band
  // was a jagged wall to the axis's floor. There it stops at the lowest member.
  std::vector<double> low = c.band.low;
  for (size_t i = 0; i < low.size(); ++i) {
    double& v = low[i];
    if (v < m_floor) v = m_floor;
    if (!m_logY) continue;
    const bool member = i < c.band.lowest.size() && c.band.lowest[i] > 0;
    if (member && !(v >= c.band.lowest[i])) v = c.band.lowest[i];
    if (!(v > 0)) v = std::numeric_limits<double>::quiet_NaN();
  }
  return low;
}

QString MetricPlot::readoutAt(const QPoint& pos) const {
  if (!m_plot->axisRect()->rect().contains(pos)) return {};
  const double x = m_plot->xAxis->pixelToCoord(pos.x());
  struct Row {
    double value;
    QString html;
  };
  std::vector<Row> rows;
  for (auto it = m_curves.cbegin(); it != m_curves.cend(); ++it) {
    const auto& c = it.value();
    if (c.x.empty() || c.hidden) continue;
    // The nearest point on either side.
    auto at = std::lower_bound(c.x.begin(), c.x.end(), x);
    if (at == c.x.end() || (at != c.x.begin() && x - *(at - 1) < *at - x)) --at;
    const size_t i = static_cast<size_t>(at - c.x.begin());
    QString value = QString::number(c.y[i], 'g', 6);
    const bool smoothed = smoothes(c) && i < c.smoothed.size();
    if (smoothed)
      value = QString("%1 (smoothed %2)").arg(value, QString::number(c.smoothed[i], 'g', 6));
    const Band& band = c.band;
    if (!band.low.empty())
      value += QString(" ± %1").arg(QString::number((band.high[i] - band.low[i]) / 2, 'g', 3));
    if (i < band.count.size() && band.count[i] < band.members)
      value += QString(" (%1 of %2 runs)").arg(band.count[i]).arg(band.members);
    rows.push_back(
        {smoothed ? c.smoothed[i] : c.y[i],
         QString("<tr><td style='color:%1'>&#9632;</td><td>%2</td><td "
                 "align=right>%3</td><td>@ %4</td></tr>")
             .arg(c.pen.color().name(), it.key().toHtmlEscaped(), value, xText(c.x[i]))});
  }
  if (rows.empty()) return {};
  // Highest first; a NaN (a diverged run) last.
  std::stable_sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) {
    if (std::isnan(a.value) || std::isnan(b.value))
      return !std::isnan(a.value) && std::isnan(b.value);
    return a.value > b.value;
  });
  // Rows that never wrap: "3.09307 (smoothed" over "3.09121) @ 37500" read as a smoothed value
  // of 37500.
  QString html = "<table cellspacing=2 style='white-space:nowrap'>";
  for (const auto& row : rows) html += row.html;
  return html + "</table>";
}

bool MetricPlot::crosshairVisible() const { return m_crosshair->visible(); }

QRect MetricPlot::legendNoteArea() const { return m_legendNote->outerRect(); }

QString MetricPlot::legendNote() const { return QString(m_legendNote->text()).replace('\n', ' '); }

void MetricPlot::showReadout(QMouseEvent* event) {
  const QString text = readoutAt(event->pos());
  if (text.isEmpty()) {
    hideReadout();
    return;
  }
  const double x = m_plot->xAxis->pixelToCoord(event->pos().x());
  m_crosshair->point1->setCoords(x, 0);
  m_crosshair->point2->setCoords(x, 1);
  m_crosshair->setVisible(true);
  m_plot->layer("crosshair")->replot();
  // A tooltip is its own small window: the plot and the window keep their sizes.
  showReadoutTip(event->globalPosition().toPoint(), text);
}

void MetricPlot::hideReadout() {
  if (!m_crosshair->visible()) return;
  m_crosshair->setVisible(false);
  m_plot->layer("crosshair")->replot();
  hideReadoutTip();
}

}  // namespace fl::widgets
