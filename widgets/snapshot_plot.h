// SnapshotPlot: draws the latest snapshots a panel names. Curves mode: for one chosen row
// (e.g. a test input), each named snapshot as a curve over its last axis; bin probabilities
// are drawn as a step density (probability / bin width) so they share the axis with densities
// on a fine grid. Bars mode: a 1-D snapshot as bars (e.g. |c_k| per frequency).
#pragma once

#include <QMap>
#include <QStringList>
#include <QWidget>

#include "core/engine/events.h"

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

  void setSnapshot(const Snapshot& snapshot, int64_t step);
  // Another run's prediction to overlay (a comparison): its predicted-density series are drawn
  // in the run's colour over the shown run's truth and prediction.
  void setOverlaySnapshot(int64_t runId, const QString& label, const Snapshot& snapshot);
  void clear();
  int overlayCount() const { return m_overlays.size(); }
  void refresh();
  int row() const;
  QCustomPlot* plot() const { return m_plot; }
  bool hasData() const { return !m_latest.isEmpty(); }
  // The latest snapshot of one series, or null.
  const Snapshot* latest(const QString& name) const {
    auto it = m_latest.find(name);
    return it == m_latest.end() ? nullptr : &it.value();
  }

 private:
  void drawCurves();
  void drawBars();

  Mode m_mode;
  QStringList m_series;
  QCustomPlot* m_plot;
  QSpinBox* m_row = nullptr;
  QLabel* m_caption;
  QMap<QString, Snapshot> m_latest;
  struct Overlay {
    QString label;
    Snapshot snapshot;
  };
  QMap<int64_t, Overlay> m_overlays;  // by run id
  int64_t m_step = 0;
};

}  // namespace fl::widgets
