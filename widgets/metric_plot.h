// MetricPlot: curves of metrics over steps (or epochs, tokens, seconds: the x its owner gives
// and names with setXAxis), for live runs and stored ones.
// Long curves are decimated per pixel column (min/max) on every replot and zoom, never
// truncated; a smoothing weight draws an EMA over a faint raw curve (the legend keeps the
// solid colour); the y axis can be a true log axis. Hovering draws a crosshair and a tooltip
// with every shown curve's value at that step, highest first, inside the plot (the window never
// grows for it); the legend is compact and only for a few curves (past that, hover names them).
// A curve can be hidden (kept, not drawn, read or ranged over). A constant curve gets a
// readable range, a lone point a marker, whole-number values whole ticks, bounded values (an
// accuracy) an axis inside their bounds.
//
//   plot->setCurve("#3 train/loss", pen, steps, values);   // replaces
//   plot->appendToCurve("#3 train/loss", newSteps, newValues);
//   plot->refresh();                                        // one queued replot
#pragma once

#include <QColor>
#include <QList>
#include <QMap>
#include <QPair>
#include <QPen>
#include <QString>
#include <QWidget>

#include <optional>
#include <vector>

#include "widgets/curve_decimation.h"

class QCustomPlot;
class QCPErrorBars;
class QCPGraph;
class QCPItemStraightLine;
class QCPTextElement;
class QMouseEvent;
class QWheelEvent;

namespace fl::widgets {

class MetricPlot : public QWidget {
  Q_OBJECT

 public:
  explicit MetricPlot(const QString& title, const QString& xLabel, const QString& yLabel,
                      QWidget* parent = nullptr);
  ~MetricPlot() override;  // takes its readout with it

  void setCurve(const QString& name, const QPen& pen, std::vector<double> x, std::vector<double> y);
  void setCurve(const QString& name, const QColor& color, std::vector<double> x,
                std::vector<double> y) {
    setCurve(name, QPen(color, 1.6), std::move(x), std::move(y));
  }
  void appendToCurve(const QString& name, const std::vector<double>& x,
                     const std::vector<double>& y);
  void removeCurve(const QString& name);
  void clearCurves();
  // Back to following the data (after a zoom or drag): for another set of runs shown, whose
  // steps the zoomed range may not even hold.
  void followData();
  QStringList curveNames() const { return m_curves.keys(); }
  size_t pointCount(const QString& name) const;
  std::vector<double> curveX(const QString& name) const;  // as given, every point
  QPen curvePen(const QString& name) const;

  // What a curve is: one `style` (a metric of several, "mse_argmax") of one `run` ("#3 fourier").
  // Where every shown curve says so and several runs show several styles, the legend names each
  // run once (its colour) and each style once (its line style) instead of a row per curve.
  void setCurveParts(const QString& name, const QString& run, const QString& style);

  // A hidden curve keeps its points (and takes new ones) but is not drawn, named in the legend,
  // read by the hover or counted in the axis range (from the next refresh()).
  void setCurveHidden(const QString& name, bool hidden);
  bool isCurveHidden(const QString& name) const;

  // A band around a curve (a group's mean ± one standard deviation), each vector at the
  // curve's x: filled faintly in its colour behind it, counted in the value range and given by
  // the readout beside the value. Empty vectors (or sizes not the curve's) take it away; a new
  // setCurve keeps it only if set again.
  struct Band {
    std::vector<double> low, high;
    // Optional: the lowest member's value, where a log axis draws the band's lower edge where
    // `low` is zero or below.
    std::vector<double> lowest;
    // Optional: how many of the group's `members` the mean is over. Where fewer (members that
    // ended sooner), the readout says so: past the shortest member the curve is fewer runs'.
    std::vector<int> count;
    int members = 0;
  };
  void setCurveBand(const QString& name, Band band);
  bool hasBand(const QString& name) const;

  // The value axis never goes past these (NaN: no bound), e.g. 0 and 1 for an accuracy; a
  // floor alone (0 for a squared error) holds the axis and cuts the bands (mean - sd) at it.
  void setValueBounds(double floor, double ceiling);
  // Curves drawn as steps (the value holds until the next sample), not sloped lines.
  void setStepwise(bool stepwise) { m_stepwise = stepwise; }

  // What x counts, for its ticks and the hover readout: whole counts (steps, tokens: compact
  // whole-number ticks "20k", "@ 1200"), fractions (epochs: "@ 2.35") or seconds ("@ 12.3 s").
  enum class XKind { Count, Fraction, Seconds };
  // Names the x axis and reads it as `kind`; the range follows the data again (a zoom in the
  // previous unit means nothing in this one). The curves' x are the owner's to convert.
  void setXAxis(const QString& label, XKind kind);
  XKind xKind() const { return m_xKind; }
  QString xLabel() const;

  void setLogY(bool logY);
  bool logY() const { return m_logY; }
  void setSmoothing(double weight);  // 0..0.999
  double smoothing() const { return m_smoothing; }
  // The run the focus line names (setCurveParts' run of its curves): a panel whose curves are
  // all another run's names that run in its legend, where the focused one's are its styles
  // alone (as are any run's while none is named). Takes effect at the next refresh.
  void setShownRunName(const QString& run) { m_shownRunName = run; }

  // Re-decimates for the current view and queues one replot.
  void refresh();
  // Number of points handed to QCustomPlot for a curve at the last refresh (after decimation).
  int drawnPointCount(const QString& name) const;
  QCustomPlot* plot() const { return m_plot; }

  // The readout for the pointer at widget position `pos` (what the tooltip shows): one line per
  // shown curve with its value at the nearest step, the highest value first (as TensorBoard and
  // W&B sort theirs); empty outside the axes.
  QString readoutAt(const QPoint& pos) const;
  bool crosshairVisible() const;
  // Takes the hover readout and its crosshair away (before the panel is copied or saved: the
  // dashed line of the last hover was drawn into the image).
  void hideReadout();
  // What the plot says in place of a legend too long to be useful ("12 curves: hover to read
  // them"); empty while the legend names the curves.
  QString legendNote() const;
  // Where that note is drawn, in the plot's pixels: beside the axes, under the legend's place.
  QRect legendNoteArea() const;

 protected:
  bool eventFilter(QObject* watched, QEvent* event) override;

 private:
  struct CurveData {
    QPen pen;
    std::vector<double> x;
    std::vector<double> y;
    QCPGraph* raw = nullptr;
    QCPGraph* smooth = nullptr;
    std::vector<double> smoothed;  // EMA of y at m_smoothing, extended as points arrive
    EmaState ema;
    bool hidden = false;
    Band band;  // empty vectors without one
    QCPGraph* bandLow = nullptr;
    QCPGraph* bandHigh = nullptr;  // filled down to bandLow
    // A band of one point (a group evaluated once) spans no width to fill: its bar instead.
    QCPErrorBars* bandBar = nullptr;
    QString run, style;  // setCurveParts, empty when not given
  };
  QList<const CurveData*> shownCurvesInOrder() const;  // as they came, not by name
  // A legend of runs (colours) and styles (line styles), as setCurveParts describes it.
  struct LegendKeys {
    QList<QPair<QString, QColor>> runs;
    QList<QPair<QString, QPen>> styles;  // a label and a pen of its line style
    // Too many runs for a key each: the styles alone are keyed, the runs read on hover.
    bool runsOnHover = false;
    // One run, not the focused one: keyed by name too (its lines read as the focused run's).
    bool nameTheOneRun = false;
    // Some curve is a single point: its style is told by its marker, which the keys then show.
    bool markers = false;
    bool operator==(const LegendKeys&) const = default;
  };
  // The keys the shown curves allow: every one names its parts, each style is one line style,
  // and the keys are no more than the curves and fit a compact legend. None otherwise. Curves
  // of one run get keys of their styles alone, in the run's colour (the focus line names the
  // run): "#6 qk-quick causality" and "#6 qk-quick filter_causality" were elided to one name.
  // Runs too many for their own keys leave the styles keyed alone: eight runs' mse_argmax and
  // mse_expected read "16 curves: hover to read them" with nothing saying dashed is argmax.
  std::optional<LegendKeys> legendKeysOfRunsAndStyles(
      const QList<const CurveData*>& shownInOrder) const;
  // Lists `keys` in the legend in place of the curves, or takes former keys away (none); nothing
  // changes while the keys stay the same.
  void showLegendKeys(const std::optional<LegendKeys>& keys);
  void drawBand(CurveData& c, double xLower, double xUpper, int columns);
  // The band's lower edge as drawn: cut at the panel's floor; on a log axis, where it is zero or
  // below, the lowest member's value there, or NaN (the axis's floor) without a positive one.
  std::vector<double> drawnBandLow(const CurveData& c) const;
  void redecimate();
  bool smoothes(const CurveData& c) const;  // the smoothing applies to this curve
  void showReadout(QMouseEvent* event);
  // A plain wheel over the plot, handed to the page of panels around it.
  void scrollThePage(QWheelEvent& wheel);
  QString xText(double x) const;  // as the readout writes an x

  QCustomPlot* m_plot;
  QCPItemStraightLine* m_crosshair;
  QMap<QString, CurveData> m_curves;
  bool m_logY = false;
  bool m_wholeY = false;  // the y ticker is an IntegerTicker
  XKind m_xKind = XKind::Count;
  double m_smoothing = 0;
  bool m_autoRange = true;
  bool m_stepwise = false;
  QPoint m_pressedAt;  // where the mouse went down: a drag, not a click, stops following
  double m_floor;
  double m_ceiling;
  QCPTextElement* m_legendNote;   // "12 curves: hover to read them" when the legend steps aside
  QList<QCPGraph*> m_legendKeys;  // curves without points that the legend shows as keys
  std::optional<LegendKeys> m_shownKeys;
  QString m_shownRunName;
};

}  // namespace fl::widgets
