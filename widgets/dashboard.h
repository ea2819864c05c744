// Dashboard: the grid of plots an experiment declared (PanelSpec), fed with plain values.
// Several runs can be shown at once: metric curves are keyed by run, each in its run's colour
// (RunColors, shared with the window's tables), a run's several keys in one panel told apart by
// line style; snapshot panels show the focused run, with other runs' curves and bars overlaid
// where that reads well (heatmaps show one run: another's where the focused run has none). Laid out
// as a grid (as many columns as the width holds; panels keep a readable size) or as tabs, one panel
// filling the area, at the reader's choice; in the grid any panel can be maximised (double-click
// its title, its context menu, or maximize()) and the others brought back (Esc). Series a panel
// draws only on request (PanelSpec::onRequest) are offered in its context menu. The owner calls
// refresh() once per GUI tick.
//
// Metric series are exact keys or, ending in '*', prefixes: "val/ppl@*" gives one curve per
// key starting with "val/ppl@" (legend "@64", "@512", ...), however many the config makes.
#pragma once

#include <QList>
#include <QMap>
#include <QSet>
#include <QWidget>

#include <functional>
#include <memory>
#include <vector>

#include "core/engine/events.h"
#include "core/engine/panel_spec.h"
#include "widgets/metric_plot.h"

class QGridLayout;
class QLabel;
class QMenu;
class QShortcut;
class QTabWidget;

namespace fl::widgets {

class RunColors;
class SnapshotPlot;
class HeatmapPlot;
class MatrixHeatmapPlot;
class VerdictPanel;

class Dashboard : public QWidget {
  Q_OBJECT

 public:
  explicit Dashboard(QWidget* parent = nullptr);
  ~Dashboard() override;

  // The colours of runs, shared with the window's tables (the dashboard's own until set).
  void setColors(RunColors* colors);
  RunColors& colors() const { return *m_colors; }

  // Rebuilds the panels (drops all data). Probe panels are built by their owner, not here.
  void setPanels(const std::vector<PanelSpec>& panels);
  void clearData();
  // Drops the metric curves only (the snapshots stay): before they are drawn over another x.
  void clearMetrics();
  // What every curve panel's x is (kept for panels built later): setMetric and appendMetric
  // are given x already converted to it. Until set, the panels' own (steps).
  void setXAxis(const QString& label, MetricPlot::XKind kind);

  // `x`: the points' steps, or what setXAxis made the x.
  void setMetric(int64_t runId, const std::string& key, std::vector<double> x,
                 std::vector<double> values);
  void appendMetric(int64_t runId, const std::string& key, const std::vector<double>& x,
                    const std::vector<double>& values);
  void addSnapshot(const Snapshot& snapshot, int64_t step);
  // A snapshot of another shown run (a comparison), given in step order: overlaid on the curve
  // and bar panels (the latest of each name), and kept by the heatmaps, which draw the first
  // compared run's where the focused run has none.
  void addOverlaySnapshot(int64_t runId, const Snapshot& snapshot, int64_t step);
  void setSmoothing(double weight);
  // The name legends use for a run ("#3 fourier N=12"); the id alone when unset.
  void setRunLabel(int64_t runId, const QString& label);
  // Curves drawn under a run's id stand for a group of `members` runs (their mean, with a band):
  // named "<name> ×<members>", without the run's number. The members' snapshots, drawn one by
  // one (some of them, where others predicted for another input), are named by `name` and the
  // members drawn. clearGroupLabel makes them the run's own again.
  void setGroupLabel(int64_t runId, const QString& name, int members);
  void clearGroupLabel(int64_t runId);
  // A shown run as a member of a group whose curves are drawn under `leader`'s id: its snapshot
  // overlays take the group's colour and name, so the legend lists the group once. A run alone
  // is its own leader (the default).
  void setGroupLeader(int64_t runId, int64_t leader);
  // The run whose id a run's group is drawn under (its colour), or the run itself.
  int64_t groupLeaderOf(int64_t runId) const { return m_leaders.value(runId, runId); }
  // The band around a run's (a group's) curve of `key`, at the x setMetric gave it.
  void setMetricBand(int64_t runId, const std::string& key, MetricPlot::Band band);
  // The run addSnapshot() is fed from (the focused one): its snapshot curves take its colour.
  void setShownRun(int64_t runId);
  int64_t shownRun() const { return m_shownRun; }
  // Whether the shown run has ended (finished, failed, ...): a snapshot or heatmap panel it gave
  // nothing then says the run recorded nothing for it, where a live run's says "yet".
  void setShownRunEnded(bool ended);
  void refresh();

  // Places a panel built by the owner (e.g. the probe) in the grid; `title` names its tab.
  void addPanelWidget(const QString& id, QWidget* widget, const QString& title);
  QList<MetricPlot*> metricPlots() const { return m_metricPlots; }
  QWidget* panel(const QString& id) const { return m_panels.value(id); }
  QStringList panelIds() const { return m_order; }

  // Shows one panel alone, filling the dashboard; an empty id shows them all again. With tabs,
  // the panel's tab is brought forward.
  void maximize(const QString& id);
  QString maximized() const { return m_maximized; }
  int columns() const { return m_columns; }

  enum class Layout { Grid, Tabs };
  void setLayoutMode(Layout layout);
  Layout layoutMode() const { return m_layout; }
  QTabWidget* tabs() const { return m_tabs; }

  // Draws (or hides again) a series the panel draws only on request, for every shown run.
  void setOnRequestShown(const QString& key, bool shown);
  bool onRequestShown(const QString& key) const { return m_requested.contains(key); }
  // The panel's context menu as the reader gets it (maximise or show all; series on request).
  QMenu* contextMenuFor(const QString& id);
  // What names the shown runs in a file's name ("runs-4-6-7"), for "Save image…" to suggest
  // "runs-4-6-7-kl.png" as the window's export does; without it, "kl.png".
  void setFileStem(std::function<QString()> stem) { m_fileStem = std::move(stem); }
  QString suggestedImageName(const QString& id) const {
    const QString stem = m_fileStem ? m_fileStem() : QString();
    return (stem.isEmpty() ? id : stem + "-" + id) + ".png";
  }

 signals:
  void maximizedChanged(const QString& id);
  void layoutModeChanged(Layout layout);

 protected:
  void resizeEvent(QResizeEvent* event) override;
  // One column's width: the panels' grid asks for no more, so a narrow window drops columns
  // (relayout) instead of being held wide (or clipped) by the columns it has now.
  QSize minimumSizeHint() const override;

 private:
  // Where a metric key is drawn: its plot, its place among that plot's keys (which line style
  // of the run colour) and the suffix telling its curves from the plot's other keys' (empty
  // when drawn alone).
  struct KeySlot {
    MetricPlot* plot = nullptr;
    int position = 0;
    QString suffix;
    bool onRequest = false;  // drawn only while the reader asks (m_requested)
    // Its line style's name in a legend of runs and line styles: the suffix, or the key's own
    // name where the suffix is empty beside keys drawn on request ("kl" beside "kl_exact").
    QString style;
  };
  // setPanels' steps: the old panels gone, then each new one built (null: not drawn here).
  void clearPanels();
  QWidget* buildPanel(const PanelSpec& panel);
  MetricPlot* buildMetricPlot(const PanelSpec& panel, const QString& title, const QString& xLabel,
                              const QString& yLabel);
  const KeySlot& slotFor(const std::string& key);
  QString curveName(int64_t runId, const KeySlot& slot) const;
  QString curveRunName(int64_t runId) const;     // curveName without the key
  QString snapshotRunName(int64_t runId) const;  // a snapshot's run: its group's name, or its own
  QString runLegendLabel(int64_t runId) const;   // "#3 rope": a run in a snapshot panel's legend
  void place(const QString& id, QWidget* widget, const QString& title);
  // The shown run's colour and name in the snapshot panels: its group's where it has one.
  void applyShownRun();
  void applyShownRun(SnapshotPlot* plot) const;
  void applyRequested(const QString& key);
  void relayout();
  int columnsFor(int width) const;

  std::unique_ptr<RunColors> m_ownColors;
  RunColors* m_colors;
  QGridLayout* m_grid;
  QTabWidget* m_tabs;
  QShortcut* m_restore;  // Esc: every panel again after one was maximised
  Layout m_layout = Layout::Grid;
  QMap<QString, QWidget*> m_panels;
  QMap<QString, QString> m_titles;  // panel id -> its title (the tab's name)
  QStringList m_order;              // panels in declaration order
  QString m_maximized;
  std::function<QString()> m_fileStem;
  QMap<QString, QStringList> m_onRequestOf;    // panel id -> its keys drawn on request
  QSet<QString> m_requested;                   // keys drawn on request that the reader asked for
  QMap<QString, QSet<QString>> m_curvesOfKey;  // metric key -> its curves' names (every run)
  int m_columns = 3;
  QList<MetricPlot*> m_metricPlots;
  QMap<QString, KeySlot> m_slots;  // metric key -> slot: declared keys, then prefix matches
  struct PrefixSeries {
    QString prefix;  // "val/ppl@" from "val/ppl@*"
    MetricPlot* plot;
  };
  QList<PrefixSeries> m_prefixes;       // in declaration order: the first match wins
  QMap<MetricPlot*, int> m_keysInPlot;  // keys placed so far per plot: the next one's position
  QMap<int64_t, QString> m_runLabels;
  struct GroupName {
    QString name;  // "head=fourier"
    int members = 0;
  };
  QMap<int64_t, GroupName> m_groupLabels;  // runs whose curves stand for a group
  QMap<int64_t, int64_t> m_leaders;        // a group's member -> the run its curves are drawn as
  QString m_xLabel;                        // empty: each panel's own label, over steps
  MetricPlot::XKind m_xKind = MetricPlot::XKind::Count;
  int64_t m_shownRun = 0;
  bool m_shownRunEnded = false;
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
