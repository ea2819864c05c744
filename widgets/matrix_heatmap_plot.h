// MatrixHeatmapPlot: the latest 2-D snapshot of a panel as an image, rows x columns (e.g. a
// coefficient matrix, an attention pattern), with a colour scale. A 3-D snapshot (slices x rows
// x columns, e.g. one matrix per head) shows one slice, picked with a spin box named after the
// leading axis ("head 2"). When the panel names several series, a combo picks the one shown.
//
// Axes are titled from the snapshot's axes (label and unit) and read in their tick coordinates;
// row 0 is at the top, as a matrix is written. Data with both signs gets a diverging gradient
// centred on zero, so sign is readable at a glance; other data violet to yellow. The colour range
// covers all slices, so switching heads keeps the colours' meaning.
//
// It draws the focused run's snapshot. Where the focused run has none of the series picked (an
// unfiltered baseline beside a FourierQK run) and a compared run has, the first such run's is
// drawn, the caption naming it.
#pragma once

#include <QMap>
#include <QStringList>
#include <QWidget>

#include <utility>
#include <vector>

#include "core/engine/events.h"
#include "widgets/x_marks.h"

class QComboBox;
class QCustomPlot;
class QCPColorMap;
class QLabel;
class QSpinBox;

namespace fl::widgets {

class MatrixHeatmapPlot : public QWidget {
  Q_OBJECT

 public:
  // xLabel/yLabel title the axes when the snapshot's axes have no labels.
  MatrixHeatmapPlot(const QString& title, const QStringList& series, const QString& xLabel,
                    const QString& yLabel, QWidget* parent = nullptr);

  void setSnapshot(const Snapshot& snapshot, int64_t step);
  // A compared run's snapshot, `label` naming the run ("#5 fourier"); runs are tried in the
  // order they first came.
  void setOtherRunSnapshot(int64_t runId, const QString& label, const Snapshot& snapshot,
                           int64_t step);
  void clear();
  // Whether the shown run has ended: an empty panel then says the run recorded nothing for it.
  void setShownRunEnded(bool ended);
  // The focused run's name ("#26 rope"): beside compared runs, the caption says the matrix is
  // its.
  void setShownRunLabel(const QString& label) {
    m_dirty = m_dirty || label != m_shownLabel;
    m_shownLabel = label;
  }
  // What the panel says under the plot: the step and slice drawn, or why nothing is.
  QString caption() const;
  // Redraws when a snapshot arrived since the last call (a large matrix is not redrawn every
  // GUI tick for other panels' sake).
  void refresh();
  bool hasData() const { return !m_latest.isEmpty(); }
  QCustomPlot* plot() const { return m_plot; }
  QCPColorMap* colorMap() const { return m_map; }
  QSpinBox* sliceSelector() const { return m_slice; }
  QComboBox* seriesSelector() const { return m_which; }

 protected:
  bool eventFilter(QObject* watched, QEvent* event) override;

 private:
  struct Latest {
    Snapshot snapshot;
    int64_t step = 0;
    QString run;  // a compared run's label; empty for the focused run's
  };
  const Latest* shown() const;
  void redraw();
  void draw(const Latest& latest);

  QStringList m_series;
  QString m_xLabel;
  QString m_yLabel;
  QString m_shownLabel;
  QCustomPlot* m_plot;
  QCPColorMap* m_map;
  QComboBox* m_which;
  QSpinBox* m_slice;
  QLabel* m_caption;
  XMarkItems m_marks;                                               // the shown snapshot's x_marks
  QMap<QString, Latest> m_latest;                                   // by series name
  std::vector<std::pair<int64_t, QMap<QString, Latest>>> m_others;  // compared runs', in order
  bool m_dirty = true;
  bool m_shownRunEnded = false;
};

}  // namespace fl::widgets
