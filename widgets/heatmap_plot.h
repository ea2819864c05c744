// HeatmapPlot: a 1-D snapshot stacked over steps (step x index), e.g. the Fourier spectrum
// |c_k| at every evaluation: how learned frequencies evolve during training. The y axis reads
// in the snapshot's own coordinates (its last axis's ticks: frequencies, evaluation lengths),
// and setLogScale() colours by the logarithm of the values (perplexities).
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
  // Log colour scale; values <= 0 are left blank.
  void setLogScale(bool logScale);
  void clear();
  // Whether the shown run has ended: an empty heatmap then says the run recorded nothing for it.
  void setShownRunEnded(bool ended) { m_shownRunEnded = ended; }
  void refresh();
  // What the plot says in its middle while it has no columns (empty once it has).
  QString emptyNote() const;
  size_t columns() const { return m_steps.size(); }
  QCustomPlot* plot() const { return m_plot; }
  QCPColorMap* colorMap() const { return m_map; }

 private:
  QString m_series;
  QCustomPlot* m_plot;
  QCPColorMap* m_map;
  QCPItemText* m_emptyNote;
  bool m_logScale = false;
  bool m_shownRunEnded = false;
  std::vector<int64_t> m_steps;
  std::vector<std::vector<float>> m_columns;
  std::vector<float> m_ticks;  // of the latest snapshot's last axis
};

}  // namespace fl::widgets
