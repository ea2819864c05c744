// RunDisplay: the Live tab. Shows one run, or several compared (the first is focused: its
// snapshots; the others' curves and predictions are overlaid), drawn from their RunViews and
// appended on every tick; a line above names the focused run in its colour with its state and
// verdicts; the config values that differ between compared runs one click away (a button that
// opens them as a table, so the plots keep the height); a smoothing slider that says its EMA
// weight; the curves' x axis (step, epoch, tokens seen, wall time: those the focused run's
// experiment can give); the dashboard as a grid or as tabs. Clicking another run within a
// comparison focuses it and keeps the comparison; showing a run alone keeps the comparison one
// click away ("back to the comparison"). Comparing runs of different experiments says so. With
// nothing shown it says what to do (and offers the demo on an empty store).
#pragma once

#include <QElapsedTimer>
#include <QWidget>

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "app/gui/curve_x_axis.h"
#include "app/gui/run_grouping.h"
#include "app/gui/run_view.h"
#include "core/engine/registry.h"

class QHBoxLayout;
class QComboBox;
class QLabel;
class QPushButton;
class QToolButton;
class QSlider;
class QStackedWidget;
class QTableView;

namespace fl::store {
class RunStore;
}
namespace fl::widgets {
class Dashboard;
class ProbePanel;
class RunColors;
class TextTableModel;
}  // namespace fl::widgets

namespace fl::gui {

class MetricsTableModel;
class ProbeRouter;
class RunQueue;
class RunViews;

class RunDisplay : public QWidget {
  Q_OBJECT

 public:
  RunDisplay(const ExperimentRegistry& registry, store::RunStore& store, RunViews& views,
             RunQueue& queue, widgets::RunColors& colors, QWidget* parent = nullptr);
  ~RunDisplay() override;

  // The panels of an experiment. Another experiment than the shown one clears the display
  // (no header, metrics or curves of the previous runs stay).
  void setExperiment(std::shared_ptr<const Experiment> experiment);
  // One run alone. A comparison shown before stays one click away (backToComparison).
  void showRun(int64_t runId);
  // Several runs: the first focused, the others overlaid.
  void compare(const std::vector<int64_t>& runIds);
  // A run of the shown comparison becomes the focused one (the others stay overlaid); any
  // other run is shown alone.
  void focusRun(int64_t runId);
  // Runs picked in a list: one is focused (keeping the comparison it belongs to), several are
  // compared.
  void showSelection(const std::vector<int64_t>& runIds);
  // A run's eye: on the plots beside the shown runs (the focus kept), or off them (the next
  // shown run focused; none left: the empty page).
  void setRunShown(int64_t runId, bool shown);
  // How the shown runs are grouped on the curve plots: a group of two or more shown runs is
  // drawn as its members' mean ± one standard deviation, under its first member's colour and the
  // group's name and size ("head=fourier ×4"); snapshots and tables stay per run.
  void setGroupBy(const GroupBy& by);
  const GroupBy& groupBy() const { return m_groupBy; }
  // The config keys whose values are not the same in every shown run.
  std::vector<std::string> differingKeysOfShown() const;
  // The shown runs' groups, in the order of their first members (one per run without grouping).
  const std::vector<RunGroup>& groups() const { return m_groups; }
  // Draws the shown runs again, e.g. in the colours the reader picked.
  void redraw();
  // The store changed (History, the CLI): a single run's settings table reads its tags and
  // notes again.
  void rereadRunSettings();
  // Deleted runs leave the display: the other shown runs are drawn again without them, or,
  // when none is left, the empty page is shown. The comparison to go back to loses them too.
  void forgetRuns(const std::vector<int64_t>& runIds);
  bool canGoBack() const;
  bool backToComparison();
  // New data of any run: what the shown ones reported is drawn.
  void apply(const RunDeltas& deltas);

  int64_t focused() const { return m_shown.empty() ? 0 : m_shown.front(); }
  const std::vector<int64_t>& shown() const { return m_shown; }
  // Every panel as PNG, PDF and SVG, named by the shown runs ("run-4-kl.png", a comparison's
  // "runs-4-6-7-kl.png"), their metrics and snapshots as CSV and each one's config as JSON
  // ("run-6-config.json"), into `folder`; returns the files written.
  QStringList exportShown(const QString& folder, QString* error);
  // What the empty display says: the demo is offered when the store has no run yet.
  void setStoreEmpty(bool empty);

  widgets::Dashboard* dashboard() const { return m_dashboard; }
  widgets::ProbePanel* probePanel() const { return m_probe; }
  QTableView* metricsTable() const { return m_metricsTable; }
  MetricsTableModel* metricsModel() const { return m_metricsModel; }
  QTableView* configDiffTable() const { return m_diffTable; }
  // Opens the config differences (shown while comparing).
  QToolButton* configDiffButton() const { return m_diffButton; }
  QComboBox* layoutChoice() const { return m_layoutChoice; }
  // The axis the curves are drawn over: the reader's choice, kept while a run that cannot give
  // it is focused (then the curves are over steps and the choice shows "Step").
  QComboBox* xAxisChoice() const { return m_xAxisChoice; }
  XAxis xAxis() const { return m_xAxis; }
  void setXAxis(XAxis axis);
  // What the curves are drawn over now: the choice, or steps where the focused run cannot.
  XAxis shownXAxis() const;
  widgets::TextTableModel* configDiffModel() const { return m_diffModel; }
  QSlider* smoothing() const { return m_smoothing; }
  QLabel* focusLine() const { return m_focusLine; }
  QLabel* warning() const { return m_warning; }

  // What the legends call a shown run: its own name, or what sets it apart from the others
  // shown (with its experiment where they are of several).
  QString labelOf(int64_t runId) const;

 signals:
  void experimentShown(const QString& name);
  void demoRequested();
  // The runs on the plots changed (another run, a comparison, one taken off).
  void shownChanged();

 private:
  // The constructor's steps: the line above the plots, from left to right, then the pages.
  void addFocusLine(QHBoxLayout* row);
  void addConfigDiffButton(QHBoxLayout* controls);
  void addXAxisChoice(QHBoxLayout* controls);
  void addLayoutChoice(QHBoxLayout* controls);
  void addSmoothing(QHBoxLayout* controls);
  QWidget* buildPages();
  void rebuildPanels();
  void setShown(std::vector<int64_t> runIds);
  void clearShown();
  // The line above the plots: runs of several experiments, runs left off the chosen x axis.
  void updateWarning();
  void draw(int64_t runId);
  void drawCurves(int64_t runId);
  // The choices the focused run's experiment can give (the others disabled, saying why), and
  // the dashboard's x axis to match.
  void updateXAxis();
  void redrawCurves();
  std::optional<RunXAxis> xAxisOf(const RunView& view, XAxis axis,
                                  std::string* why = nullptr) const;
  void updateFocusLine();
  // The config button's table: one run's settings, or what differs between several.
  void showRunSettings(const RunView& view);
  void fitConfigTable(int rows);
  void updateConfigDiff();
  QString labelOf(int64_t runId, const std::map<int64_t, std::string>& legendNames) const;
  // Each shown run's name as a legend of them all reads it (compactName of the edits they do
  // not all share); a run's own name where it is shown alone.
  std::map<int64_t, std::string> legendNamesOfShown() const;
  // Grouping: the shown runs' groups made again and named on the plots; a group's curves, each
  // its members' mean with the band.
  void regroup();
  void drawGroupCurves(const RunGroup& group, const std::set<std::string>* onlyKeys = nullptr);

  const ExperimentRegistry& m_registry;
  store::RunStore& m_store;
  RunViews& m_views;
  RunQueue& m_queue;
  widgets::RunColors& m_colors;
  std::shared_ptr<const Experiment> m_experiment;
  std::vector<int64_t> m_shown;       // the focused run first
  std::vector<int64_t> m_comparison;  // the last comparison shown, for backToComparison()
  QStackedWidget* m_pages;
  QLabel* m_welcome;
  QPushButton* m_demo;
  QLabel* m_focusLine;
  QLabel* m_back;
  QLabel* m_warning;
  QSlider* m_smoothing;
  QLabel* m_smoothingValue;
  widgets::Dashboard* m_dashboard;
  widgets::ProbePanel* m_probe = nullptr;
  QTableView* m_metricsTable = nullptr;
  MetricsTableModel* m_metricsModel;
  widgets::TextTableModel* m_diffModel;
  QTableView* m_diffTable;
  QToolButton* m_diffButton;
  QComboBox* m_layoutChoice;
  QComboBox* m_xAxisChoice;
  XAxis m_xAxis = XAxis::Step;
  GroupBy m_groupBy;
  std::vector<RunGroup> m_groups;
  std::map<int64_t, size_t> m_groupOf;  // shown run -> its group in m_groups
  std::unique_ptr<ProbeRouter> m_probeRouter;
  bool m_storeEmpty = false;
  bool m_everShown = false;  // then the store is no longer empty
  // The tags and notes the single run's settings table shows, as last read from the store.
  std::pair<std::vector<std::string>, std::string> m_settingsTagsAndNotes;
  QElapsedTimer m_tablesUpdated;  // the metrics table and the focus line: at most 4 Hz
  // Groups whose members reported since their mean was last made, by key: made again at most
  // 4 times a second (each remake reads every member's whole curve), and at once on a status.
  std::map<size_t, std::set<std::string>> m_regrown;
  QElapsedTimer m_groupsRedrawn;
};

}  // namespace fl::gui
