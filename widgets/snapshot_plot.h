// SnapshotPlot: draws the latest snapshots a panel names.
//
// Curves mode: each named snapshot as a curve over its last axis, for one chosen row (e.g. a
// test input, picked with a spin box), or for every row when the snapshot's meta carries
// "row_labels" (one labelled curve per row, rows told apart by line style, no spin box). A
// snapshot's declared role decides how it reads: a truth is drawn once in a neutral colour, a
// prediction in the run's colour and overlaid in comparisons; bin probabilities are drawn as a
// step density (probability / bin width) so they share the axis with densities on a fine grid.
// Other series are named after the snapshot. The x range follows the data (whole-number ticks
// for whole-number coordinates); setLogY() gives a log y axis (non-positive values are
// skipped). Other runs' snapshots of the same names (a comparison) are overlaid in their run
// colours, each row in the same line style as the shown run's.
//
// Bars mode: 1-D snapshots as bars (e.g. |c_k| per frequency); meta "labels" name the bars on
// the x axis (ablations). Several series stand side by side, told apart by fill pattern; in a
// comparison each run's bars stand beside the shown run's, in the run's colour, with a legend.
//
// In either mode, a focused run with nothing for the panel (a linear head beside a Fourier one)
// leaves the compared runs' drawn, and the caption says so.
#pragma once

#include <QColor>
#include <QMap>
#include <QStringList>
#include <QWidget>

#include <limits>

#include "core/engine/events.h"
#include "widgets/x_marks.h"

class QCustomPlot;
class QSpinBox;
class QLabel;

namespace fl::widgets {

class SnapshotPlot : public QWidget {
  Q_OBJECT

 public:
  enum class Mode { Curves, Bars };

  SnapshotPlot(const QString& title, Mode mode, const QStringList& series, const QString& xLabel,
               const QString& yLabel, QWidget* parent = nullptr);

  void setLogY(bool logY);
  bool logY() const { return m_logY; }
  // The value axis never goes past these (NaN: no bound), e.g. 0 and 1 for an accuracy.
  void setValueBounds(double floor, double ceiling) {
    m_floor = floor;
    m_ceiling = ceiling;
  }
  // The run whose snapshots setSnapshot() gives, its colour and its name in a legend ("#3
  // rope"): its curves take the colour, as its metric curves do, so a comparison reads the same
  // in every panel.
  void setShownRun(int64_t runId, const QColor& color, const QString& label = QString()) {
    m_shownRun = runId;
    m_shownColor = color;
    m_shownLabel = label;
  }
  // Whether the shown run has ended: an empty panel then says the run recorded nothing for it.
  void setShownRunEnded(bool ended) { m_shownRunEnded = ended; }
  // What the plot says while it has nothing to draw, where it is not the run's data (a
  // probe's answer): empty for the run's ("no data for this run yet").
  void setEmptyCaption(const QString& caption) { m_emptyCaption = caption; }
  // What the panel says under the plot: the step drawn, or why nothing is.
  QString caption() const;
  // What the legend calls each series (PanelSpec::seriesLabels); empty: their names.
  void setSeriesLabels(const QStringList& labels) { m_seriesLabels = labels; }
  void setSnapshot(const Snapshot& snapshot, int64_t step);
  // Another run's snapshot to overlay (a comparison), drawn in its colour. Truths and bin
  // probabilities stay the shown run's: only continuous predictions and generic curves overlay.
  // A run's truths are kept to tell whether its row is the shown run's: a prediction for an
  // input whose true density is another (another seed's test set, another dataset) is not
  // drawn against the shown truth, and the caption names the runs left out.
  void setOverlaySnapshot(int64_t runId, const QString& label, const QColor& color,
                          const Snapshot& snapshot);
  void clear();
  int overlayCount() const { return m_overlays.size(); }  // runs overlaid
  void refresh();
  int row() const;
  QSpinBox* rowSelector() const { return m_row; }  // null in bars mode
  QCustomPlot* plot() const { return m_plot; }
  bool hasData() const { return !m_latest.isEmpty(); }
  // The latest snapshot of one series, or null.
  const Snapshot* latest(const QString& name) const {
    auto it = m_latest.find(name);
    return it == m_latest.end() ? nullptr : &it.value();
  }

 protected:
  bool eventFilter(QObject* watched, QEvent* event) override;

 private:
  void drawCurves();
  void drawBars();
  QString seriesLabel(int index) const;
  // Several runs' several series or rows: a legend of each run's colour and each line style
  // (by seriesPen position), instead of a row per curve (runs x styles rows, too many to read
  // or to fit).
  void showFactoredLegend(const QList<QPair<QString, QColor>>& runs,
                          const QMap<int, QString>& styles);
  void updateRowSelector();
  void addBarKey(const QString& label, const QBrush& brush);  // a legend row of bars mode

  Mode m_mode;
  QStringList m_series;
  QCustomPlot* m_plot;
  QSpinBox* m_row = nullptr;
  QLabel* m_caption;
  bool m_logY = false;
  double m_floor = std::numeric_limits<double>::quiet_NaN();
  double m_ceiling = std::numeric_limits<double>::quiet_NaN();
  int64_t m_shownRun = 0;
  QColor m_shownColor = QColor(31, 119, 180);
  QString m_shownLabel;
  bool m_shownRunEnded = false;
  QStringList m_seriesLabels;
  QStringList m_notDrawn;    // overlaid runs whose chosen row has another true density
  bool m_textTicks = false;  // the x axis shows bar labels
  QString m_emptyCaption;    // what an empty plot says ("" : noDataCaption's words)
  QMap<QString, Snapshot> m_latest;
  struct Overlay {
    QString label;
    QColor color;
    QMap<QString, Snapshot> snapshots;  // by name
    QMap<QString, Snapshot> truths;     // by name: compared with the shown run's, not drawn
  };
  // Whether an overlaid run's row `row` of `prediction` answers the same question as the shown
  // run's: the same true density there (or, without truths, the same input); true when
  // nothing tells.
  bool sameTruthAt(const Overlay& run, const Snapshot& prediction, int64_t row) const;
  QMap<int64_t, Overlay> m_overlays;  // by run id
  int64_t m_step = 0;
  XMarkItems m_marks;  // the shown snapshots' x_marks
};

}  // namespace fl::widgets
