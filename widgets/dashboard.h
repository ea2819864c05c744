// Dashboard: the grid of plots an experiment declared (PanelSpec), fed with plain values.
// Several runs can be shown at once: metric curves are keyed by run, each in its run's colour;
// snapshot panels show the focused run. The owner calls refresh() once per GUI tick.
#pragma once

#include <QMap>
#include <QWidget>

#include <vector>

#include "core/engine/events.h"
#include "core/engine/panel_spec.h"

class QGridLayout;

namespace fl::widgets {

class MetricPlot;
class SnapshotPlot;
class HeatmapPlot;

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
  void refresh();

  // Places a panel built by the owner (e.g. the probe) in the grid.
  void addPanelWidget(const QString& id, QWidget* widget);
  QList<MetricPlot*> metricPlots() const;
  QWidget* panel(const QString& id) const { return m_panels.value(id); }

 private:
  QString curveName(int64_t runId, const std::string& key) const;

  QGridLayout* m_grid;
  QMap<QString, QWidget*> m_panels;
  QMap<QString, MetricPlot*> m_plotForKey;  // metric key -> its plot
  QMap<QString, int> m_seriesInPanel;       // metric key -> how many keys its plot shows
  QMap<int64_t, QString> m_runLabels;
  QList<SnapshotPlot*> m_snapshotPlots;
  QList<HeatmapPlot*> m_heatmaps;
};

}  // namespace fl::widgets
