// HistoryView: the run store. Above, its studies (double-click opens one); below, every run as a
// sortable table whose id and name stay in view while the other columns scroll: the config
// values that differ (in the order the experiment declares them) and each metric's last / min /
// max, filtered by text, experiment, status and tag. A study's run stored without a name (by a
// build before studies named their runs) shows the name its study would give it now. Open,
// compare, resume, rename, tag, note, delete (confirmed, No by default; runs still waiting or
// training refused) and export (CSV/JSON) the selected runs. The sort is kept by column key
// across sessions.
#pragma once

#include <QWidget>

#include <cstdint>
#include <functional>
#include <vector>

class QComboBox;
class QHBoxLayout;
class QLabel;
class QLineEdit;
class QPushButton;
class QSettings;
class QSortFilterProxyModel;
class QTableView;
class QTimer;

namespace fl {
class ExperimentRegistry;
}
namespace fl::store {
class RunStore;
}
namespace fl::widgets {
class FrozenColumnsView;
class TextTableModel;
}  // namespace fl::widgets

class QSplitter;

namespace fl::gui {

class HistoryModel;

class HistoryView : public QWidget {
  Q_OBJECT

 public:
  HistoryView(store::RunStore& store, const ExperimentRegistry& registry,
              QWidget* parent = nullptr);

  void refresh();
  // Every filter back to "any" (the title's "show all").
  void clearFilters();
  HistoryModel* model() const { return m_model; }
  widgets::FrozenColumnsView* table() const { return m_table; }
  QTableView* studiesTable() const { return m_studies; }
  widgets::TextTableModel* studiesModel() const { return m_studiesModel; }
  QLineEdit* filterText() const { return m_text; }
  // Hides or shows the column of `key` (the header menu's ticks).
  void setColumnShown(const QString& key, bool shown);
  // Whether the column of `key` is hidden: ticked off by hand, or a machine figure ("system/"
  // metrics: memory, CPU and GPU use), which is hidden until ticked on, because it says how the
  // machine ran, not what the model learned, and took most of the table's width.
  bool isColumnHiddenByChoice(const QString& key) const;
  const QStringList& hiddenColumns() const { return m_hiddenColumns; }
  QComboBox* experimentFilter() const { return m_experiment; }
  // The listed runs' ids in the order the table shows them, and the selected ones.
  std::vector<int64_t> shownIds() const;
  std::vector<int64_t> selectedIds() const;
  void selectIds(const std::vector<int64_t>& ids);
  // Compare (the button, Ctrl+Shift+C): compareRequested with the selected runs, or, with fewer
  // than two, what to select said in the status bar.
  void compareSelected();
  // Sorts by a column key ("metric:test/kl:last"); false when no listed run has that column.
  bool sortByKey(const QString& key, Qt::SortOrder order);
  QString sortKey() const;
  // Deletes without asking (the button asks first); returns how many. Refuses (storeError,
  // naming them; nothing deleted) when any of them waits or trains: in the window's queue
  // (setLiveCheck) or, as the store says, in another process. Then runsDeleted.
  int deleteRuns(const std::vector<int64_t>& ids);
  // What deleting `ids` takes from studies, per study; empty when none is a study's run. Asked
  // before: "Run #ID is a run of study S, which then misses it (its Resume study trains it
  // again)."; said after (`deleted`): "Study S now misses run #ID (its Resume study trains it
  // again)."
  QString studiesMissing(const std::vector<int64_t>& ids, bool deleted = false) const;
  // Which runs the window's queue still holds (their rows are still written).
  void setLiveCheck(std::function<bool(int64_t)> isLive) { m_isLive = std::move(isLive); }
  // Filters and sort order, kept across sessions.
  void saveSettings(QSettings& settings) const;
  void restoreSettings(const QSettings& settings);
  // Writes the runs to `path` as CSV (metrics; snapshots beside it) or JSON by its suffix.
  bool exportRuns(const std::vector<int64_t>& ids, const QString& path, QString* error);

 signals:
  void openRequested(int64_t runId);
  void compareRequested(std::vector<int64_t> runIds);
  void resumeRequested(int64_t runId);
  void studyOpenRequested(int64_t studyId);
  void storeError(const QString& message);
  // What an action on the selected runs did, for the status bar: "Exported 2 run(s) to
  // runs.csv and ...", "Archived run #4", "Renamed 3 runs to 'baseline'".
  void done(const QString& summary);
  // Runs gone from the store: every other part of the window lets them go.
  void runsDeleted(std::vector<int64_t> runIds);
  // Runs renamed, noted or tagged here: views of them elsewhere in the window follow.
  void runsEdited(std::vector<int64_t> runIds);

 private:
  // The selected runs, or none with a word in the status bar when fewer than `least` are.
  std::vector<int64_t> selectedRunsFor(const QString& action, size_t least);
  // The constructor's steps.
  QHBoxLayout* buildFilters();
  QHBoxLayout* buildActions();  // the buttons on the selected runs, connected
  void setUpTables();
  void layOut(QHBoxLayout* filters, QHBoxLayout* actions);
  void connectFiltersAndTables();
  void askDelete();
  bool refuseDeletingLiveRuns(const std::vector<int64_t>& ids);
  void askExport();
  void askEdit(const QString& what);
  void refreshStudies();
  void showListedCount(int64_t listed);
  // The header's right-click menu: a tick per column after the frozen ones (a store's metrics
  // make dozens); the hidden ones are kept by key, so they stay hidden in later listings and
  // sessions.
  void askColumns(const QPoint& at);
  void applyHiddenColumns();
  // The studies' pane as tall as its rows (up to kStudyRowsShown, at most 2/5 of the tab),
  // until the researcher drags the splitter: a fixed share left it one row at 1280x720.
  void fitStudiesPane();

 protected:
  void resizeEvent(QResizeEvent* event) override;

 private:
  static constexpr int kStudyRowsShown = 4;
  store::RunStore& m_store;
  const ExperimentRegistry& m_registry;  // rebuilds what the store leaves out, for exports
  std::function<bool(int64_t)> m_isLive;
  HistoryModel* m_model;
  QSortFilterProxyModel* m_proxy;
  widgets::FrozenColumnsView* m_table;
  widgets::TextTableModel* m_studiesModel;
  QTableView* m_studies;
  QSplitter* m_split = nullptr;  // the studies above the runs
  bool m_studiesSizedByHand = false;
  // "Runs: 2 of 18 listed (filtered by tag, text)": filters are kept between sessions, so a
  // filtered list says so, or it reads as a store that lost its runs.
  QLabel* m_runsTitle = nullptr;
  QLineEdit* m_text;
  QComboBox* m_status;
  QPushButton* m_archive;  // "Archive", or "Unarchive" while the archived runs are listed
  QComboBox* m_experiment;
  QLineEdit* m_tag;
  QTimer* m_typing;             // a refresh once the filter text stops changing
  QStringList m_hiddenColumns;  // by key
  QStringList m_shownColumns;   // by key: machine figures ticked on, hidden otherwise
  QString m_sortKey = "id";
  // Newest first, as W&B and TensorBoard list runs: the run just trained was at the bottom.
  Qt::SortOrder m_sortOrder = Qt::DescendingOrder;
};

}  // namespace fl::gui
