// HeatmapPlot: a 1-D snapshot stacked over steps (step x index), e.g. the Fourier spectrum
// |c_k| at every evaluation: how learned frequencies evolve during training.
#pragma once

#include <QWidget>

#include <vector>

#include "core/engine/events.h"

class QCustomPlot;
class QCPColorMap;

namespace fl::widgets {

class HeatmapPlot : public QWidget {
  Q_OBJECT

 public:
  HeatmapPlot(const QString& title, const QString& series, const QString& yLabel,
              QWidget* parent = nullptr);

  void addSnapshot(const Snapshot& snapshot, int64_t step);
  void clear();
  void refresh();
  size_t columns() const { return m_steps.size(); }
  QCustomPlot* plot() const { return m_plot; }

 private:
  QString m_series;
  QCustomPlot* m_plot;
  QCPColorMap* m_map;
  std::vector<int64_t> m_steps;
  std::vector<std::vector<float>> m_columns;
};

}  // namespace fl::widgets
