// Dashboard: the grid of plots an experiment declared (PanelSpec), fed with plain values.
// Several runs can be shown at once: metric curves are keyed by run, each in its run's colour;
// snapshot panels show the focused run, with other runs' curves overlaid where that reads well.
// The owner calls refresh() once per GUI tick.
//
// Metric series are exact keys or, ending in '*', prefixes: "val/ppl@*" gives one curve per
// key starting with "val/ppl@" (legend "@64", "@512", ...), however many the config makes.
#pragma once

#include <QList>
#include <QMap>
#include <QSet>
#include <QWidget>

#include <vector>

#include "core/engine/events.h"
#include "core/engine/panel_spec.h"

class QGridLayout;

namespace fl::widgets {

class MetricPlot;
class SnapshotPlot;
class HeatmapPlot;
class MatrixHeatmapPlot;
class VerdictPanel;

class Dashboard : public QWidget {
  Q_OBJECT

 public:
  explicit Dashboard(QWidget* parent = nullptr);

  // Rebuilds the panels (drops all data). Probe panels are built by their owner, not here.
  void setPanels(const std::vector<PanelSpec>& panels);
  void clearData();

  void setMetric(int64_t runId, const std::string& key, std::vector<double> steps,
                 std::vector<double> values);
  void appendMetric(int64_t runId, const std::string& key, const std::vector<double>& steps,
                    const std::vector<double>& values);
  void addSnapshot(const Snapshot& snapshot, int64_t step);
  // A snapshot of another shown run (a comparison): overlaid on the curve panels.
  void addOverlaySnapshot(int64_t runId, const Snapshot& snapshot);
  void setSmoothing(double weight);
  // The name legends use for a run ("#3 fourier N=12"); the id alone when unset.
  void setRunLabel(int64_t runId, const QString& label);
  // The run addSnapshot() is fed from (the focused one): its snapshot curves take its colour.
  void setShownRun(int64_t runId);
  void refresh();

  // Places a panel built by the owner (e.g. the probe) in the grid.
  void addPanelWidget(const QString& id, QWidget* widget);
  QList<MetricPlot*> metricPlots() const { return m_metricPlots; }
  QWidget* panel(const QString& id) const { return m_panels.value(id); }

 private:
  // Where a metric key is drawn: its plot, its place among that plot's keys (which shade of the
  // run colour) and the legend suffix telling it from the plot's other keys (empty when alone).
  struct KeySlot {
    MetricPlot* plot = nullptr;
    int position = 0;
    QString suffix;
  };
  const KeySlot& slotFor(const std::string& key);
  QString curveName(int64_t runId, const KeySlot& slot) const;

  QGridLayout* m_grid;
  QMap<QString, QWidget*> m_panels;
  QList<MetricPlot*> m_metricPlots;
  QMap<QString, KeySlot> m_slots;  // metric key -> slot: declared keys, then prefix matches
  struct PrefixSeries {
    QString prefix;  // "val/ppl@" from "val/ppl@*"
    MetricPlot* plot;
  };
  QList<PrefixSeries> m_prefixes;       // in declaration order: the first match wins
  QMap<MetricPlot*, int> m_keysInPlot;  // keys placed so far per plot: the next one's position
  QMap<int64_t, QString> m_runLabels;
  int64_t m_shownRun = 1;
  // What refresh() must redraw: metric plots given points, snapshot panels when any snapshot
  // came, everything after a change of run or panels.
  QSet<MetricPlot*> m_dirty;
  bool m_snapshotsChanged = true;
  bool m_allDirty = true;
  QList<SnapshotPlot*> m_snapshotPlots;
  QList<HeatmapPlot*> m_heatmaps;
  QList<MatrixHeatmapPlot*> m_matrixHeatmaps;
  QList<VerdictPanel*> m_verdicts;
};

}  // namespace fl::widgets
