// ParallelCoordinatesPlot: a study's runs as parallel coordinates, the view a sweep is read
// with first. One vertical axis per swept parameter and a last one for a metric; one polyline
// per run, coloured by its metric value (the metric axis is drawn as the colour scale). Runs
// without a value on an axis (a failed or unfinished run's metric, an arm without a parameter)
// meet it at a "none" mark below it, grey when the metric is what they lack.
//
// Brushing: dragging along an axis selects a range of it; the runs inside every axis's range
// are drawn in colour, the others faint, counted ("5 of 36 runs") and announced
// (brushedRunsChanged). A click on an axis without dragging clears its range. Hovering a line
// names its run; double-clicking it says which run it is (runDoubleClicked).
//
// Qt only: the owner fills it with plain values (ParallelData).
//
//   ParallelData data;
//   data.parameters = {"dataset", "frequencies"};
//   data.metric = "test/kl";
//   data.runs.push_back({12, "seed 1", {{std::nullopt, "gmm2"}, {12.0, "12"}}, 0.21});
//   plot->setData(data);
#pragma once

#include <QString>
#include <QStringList>
#include <QWidget>

#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

class QPainter;

namespace fl::widgets {

// One run's value on one axis. A parameter axis is numeric when each of its values has a
// number, categorical (by text) otherwise; neither a number nor a text: the run has no value.
struct ParallelValue {
  std::optional<double> number;
  QString text;  // as labelled: "1e-06", "gmm2"

  bool present() const { return number.has_value() || !text.isEmpty(); }
};

struct ParallelRun {
  int64_t runId = 0;
  QString label;                      // its hover text: "linear: dataset=gmm2 seed 1 (finished)"
  std::vector<ParallelValue> values;  // one per parameter
  std::optional<double> metric;       // none: failed, unfinished or never reported
};

struct ParallelData {
  QStringList parameters;
  QString metric;
  std::vector<ParallelRun> runs;
};

enum class ParallelScale { Categorical, Linear, Log };

class ParallelCoordinatesPlot : public QWidget {
  Q_OBJECT

 public:
  explicit ParallelCoordinatesPlot(QWidget* parent = nullptr);

  // Brushes stay on the axes of the same name, over the same values (a metric's range keeps
  // its bounds as new runs widen the axis); brushedRunsChanged says when that changes the set.
  void setData(ParallelData data);
  const ParallelData& data() const { return m_data; }

  // The axes: the parameters in order, then the metric (the last).
  int axisCount() const { return static_cast<int>(m_axes.size()); }
  int metricAxis() const { return axisCount() - 1; }
  QString axisName(int axis) const;
  // Numeric axes are linear from their lowest value (bottom) to their highest (top), or
  // logarithmic when all values are positive and span more than two decades; categorical ones
  // space their values evenly in the order the runs first give them.
  ParallelScale axisScale(int axis) const;
  // Where a value sits along an axis: 0 at the bottom, 1 at the top (a single value: 0.5);
  // NaN where the axis has no place for it. The metric axis reads `value.number`.
  double fractionOf(int axis, const ParallelValue& value) const;
  // Run `run` (an index into data().runs) on an axis; NaN without a value.
  double runFraction(int run, int axis) const;
  // The pixel of a fraction along an axis (0: the bottom end, 1: the top end), and of the
  // "none" mark under it where runs without a value meet it.
  QPointF pointAt(int axis, double fraction) const;
  QPointF noValuePoint(int axis) const;

  // A range of fractions on an axis (either order); runs outside it are dropped from the
  // brushed set. Several axes' ranges intersect.
  void setBrush(int axis, double fromFraction, double toFraction);
  void clearBrush(int axis);
  void clearBrushes();
  std::optional<std::pair<double, double>> brush(int axis) const;
  // The runs inside every range (all of them without a range), in data order.
  const std::vector<int64_t>& brushedRuns() const { return m_brushed; }
  QString countText() const;  // "5 of 36 runs"

  // The run whose line passes nearest a point (within a few pixels), or -1; for hover.
  int runAt(const QPoint& point) const;
  QString runToolTip(int run) const;

  QSize sizeHint() const override { return {760, 380}; }
  QSize minimumSizeHint() const override { return {320, 220}; }

 signals:
  void brushedRunsChanged(std::vector<int64_t> runIds);
  void runDoubleClicked(int64_t runId);

 protected:
  void paintEvent(QPaintEvent* event) override;
  void resizeEvent(QResizeEvent* event) override;
  bool event(QEvent* event) override;
  void mousePressEvent(QMouseEvent* event) override;
  void mouseMoveEvent(QMouseEvent* event) override;
  void mouseReleaseEvent(QMouseEvent* event) override;
  void mouseDoubleClickEvent(QMouseEvent* event) override;
  void leaveEvent(QEvent* event) override;

 private:
  struct Tick {
    double fraction;
    QString text;
  };
  struct Axis {
    QString name;
    ParallelScale scale = ParallelScale::Categorical;
    double low = 0, high = 0;  // numeric: the values' extent
    QStringList categories;    // categorical: in order of first appearance
    std::vector<Tick> ticks;   // the labels it could show; those that fit are drawn
    std::vector<double> runFractions;
    bool anyMissing = false;
  };
  struct Layout {
    double left = 0, right = 0, top = 0, bottom = 0;
    int nameRows = 1;
    bool noValueRow = false;
  };
  struct Drag {
    int axis = -1;
    double startY = 0;
    bool moved = false;
  };

  Axis buildAxis(const QString& name, const std::vector<ParallelValue>& values, bool metric) const;
  double fractionOn(const Axis& axis, const ParallelValue& value) const;
  // The value at a fraction of a numeric axis (the inverse of fractionOn).
  static double valueAt(const Axis& axis, double fraction);
  // A brush moved from an axis to its successor in new data; none when no value it held is left.
  std::optional<std::pair<double, double>> carryBrush(const Axis& from, const Axis& to,
                                                      std::pair<double, double> range) const;
  void relayout();
  double axisX(int axis) const;
  double yOf(double fraction) const;
  double noValueY() const;
  QPointF vertex(int run, int axis) const;
  int axisNear(const QPoint& point) const;
  double fractionAtY(double y) const;
  QColor metricColor(double fraction) const;
  // Recomputes the brushed set; announces it when it changed.
  void updateBrushed();

  void drawLines(QPainter& painter) const;
  void drawAxes(QPainter& painter) const;
  void drawFooter(QPainter& painter) const;
  std::vector<Tick> fittingTicks(const Axis& axis) const;

  ParallelData m_data;
  std::vector<Axis> m_axes;
  std::vector<std::optional<std::pair<double, double>>> m_brushes;  // per axis
  std::vector<int64_t> m_brushed;
  std::vector<bool> m_inBrush;  // per run
  Layout m_layout;
  Drag m_drag;
  int m_hover = -1;
};

}  // namespace fl::widgets
