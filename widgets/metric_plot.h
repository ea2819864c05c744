// MetricPlot: curves of metrics over steps (QCustomPlot), for live runs and stored ones.
// Long curves are decimated per pixel column (min/max) on every replot and zoom, never
// truncated; a smoothing weight draws an EMA over a faint raw curve; the y axis can be a true
// log axis. Hovering shows the exact value under the cursor.
//
//   plot->setCurve("run 3 train/loss", color, steps, values);   // replaces
//   plot->appendToCurve("run 3 train/loss", newSteps, newValues);
//   plot->refresh();                                              // one queued replot
#pragma once

#include <QColor>
#include <QMap>
#include <QString>
#include <QWidget>

#include <vector>

#include "widgets/curve_decimation.h"

class QCustomPlot;
class QCPGraph;
class QLabel;
class QMouseEvent;

namespace fl::widgets {

class MetricPlot : public QWidget {
  Q_OBJECT

 public:
  explicit MetricPlot(const QString& title, const QString& xLabel, const QString& yLabel,
                      QWidget* parent = nullptr);

  void setCurve(const QString& name, const QColor& color, std::vector<double> x,
                std::vector<double> y);
  void appendToCurve(const QString& name, const std::vector<double>& x,
                     const std::vector<double>& y);
  void removeCurve(const QString& name);
  void clearCurves();
  QStringList curveNames() const { return m_curves.keys(); }
  size_t pointCount(const QString& name) const;

  void setLogY(bool logY);
  bool logY() const { return m_logY; }
  void setSmoothing(double weight);  // 0..0.999
  double smoothing() const { return m_smoothing; }

  // Re-decimates for the current view and queues one replot.
  void refresh();
  // Number of points handed to QCustomPlot for a curve at the last refresh (after decimation).
  int drawnPointCount(const QString& name) const;
  QCustomPlot* plot() const { return m_plot; }

 private:
  struct CurveData {
    QColor color;
    std::vector<double> x;
    std::vector<double> y;
    QCPGraph* raw = nullptr;
    QCPGraph* smooth = nullptr;
    std::vector<double> smoothed;  // EMA of y at m_smoothing, extended as points arrive
    EmaState ema;
  };
  void redecimate();
  void showValueAt(QMouseEvent* event);

  QCustomPlot* m_plot;
  QLabel* m_hover;
  QMap<QString, CurveData> m_curves;
  bool m_logY = false;
  double m_smoothing = 0;
  bool m_autoRange = true;
};

}  // namespace fl::widgets
