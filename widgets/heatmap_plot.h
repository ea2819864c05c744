// HeatmapPlot: a 1-D snapshot stacked over steps (step x index), e.g. the Fourier spectrum
// |c_k| at every evaluation: how learned frequencies evolve during training. The y axis reads
// in the snapshot's own coordinates (its last axis's ticks: frequencies, evaluation lengths),
// and setLogScale() colours by the logarithm of the values (perplexities). Each column sits at
// its step, also where the evaluations are unevenly spaced (a last one off the interval).
//
// It draws one run: the focused one. In a comparison the other runs' snapshots are kept too, so
// that where the focused run has none (a linear head beside a Fourier one) the first compared
// run that has some is drawn, the title naming it.
#pragma once

#include <QWidget>

#include <vector>

#include "core/engine/events.h"

class QCustomPlot;
class QCPColorMap;
class QCPItemText;

namespace fl::widgets {

class HeatmapPlot : public QWidget {
  Q_OBJECT

 public:
  HeatmapPlot(const QString& title, const QString& series, const QString& yLabel,
              QWidget* parent = nullptr);

  void addSnapshot(const Snapshot& snapshot, int64_t step);
  // A compared run's snapshot, `label` naming the run ("#5 fourier"); runs are tried in the
  // order they first came.
  void addOtherRunSnapshot(int64_t runId, const QString& label, const Snapshot& snapshot,
                           int64_t step);
  // Whose columns are drawn: empty for the focused run's (or none), else the compared run's
  // label.
  QString drawnOtherRun() const { return m_drawnOther; }
  // The focused run's name ("#26 rope"): beside compared runs, the title says the columns are
  // its (a heatmap draws one run, and nothing said which).
  void setShownRunLabel(const QString& label) { m_shownLabel = label; }
  // Log colour scale; values <= 0 are left blank.
  void setLogScale(bool logScale);
  void clear();
  // Whether the shown run has ended: an empty heatmap then says the run recorded nothing for it.
  void setShownRunEnded(bool ended) { m_shownRunEnded = ended; }
  void refresh();
  // What the plot says in its middle while it has no columns (empty once it has).
  QString emptyNote() const;
  size_t columns() const;  // of the run drawn
  QCustomPlot* plot() const { return m_plot; }
  QCPColorMap* colorMap() const { return m_map; }

 protected:
  void resizeEvent(QResizeEvent* event) override;

 private:
  // "<title> · <whose>", the run's name cut to the plot's width: a long one ran off both edges.
  void showTitle();
  // One run's snapshots of the series, a column per step.
  struct Columns {
    QString label;  // the run's, for a compared run
    std::vector<int64_t> steps;
    std::vector<std::vector<float>> values;
    std::vector<float> ticks;  // of the latest snapshot's last axis
    QString valueLabel;        // of the latest snapshot ("mean |c_k|")
    void add(const Snapshot& snapshot, int64_t step);
  };
  const Columns* drawn() const;

  QString m_series;
  QString m_title;
  QCustomPlot* m_plot;
  QCPColorMap* m_map;
  QCPItemText* m_emptyNote;
  bool m_logScale = false;
  bool m_shownRunEnded = false;
  Columns m_own;                                      // the focused run's
  std::vector<std::pair<int64_t, Columns>> m_others;  // compared runs', in the order they came
  QString m_drawnOther;
  QString m_shownLabel;
  QString m_whose;  // the run the title names ("" : none)
};

}  // namespace fl::widgets
