// RunsDock: the Runs dock: the queue's runs as a table (RunsTableModel: status, progress bar,
// ETA, threads, verdict) with Stop, and a search field that keeps the rows matching it (any
// column). Selecting rows asks to show them: one run, or several overlaid (Ctrl/Shift-click),
// the run clicked last focused; a row's eye (the check box by its colour) puts the run on the
// plots or takes it off. A row's context menu shows, stops or resumes its run (resume: a
// cancelled, interrupted or failed run from its last checkpoint, as History's Resume does) and
// picks its colour, and pins it to the top (pinned runs come first, whatever the order). Beside
// the search, how the plots group the runs (mean ± sd of each group). The dock's title counts the
// runs by state ("Runs: 2 running · 1 waiting · 4 finished"), so a dock rolled up to its bar still
// says how the runs are doing.
#pragma once

#include <QDockWidget>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "app/gui/run_grouping.h"

class QColor;
class QComboBox;
class QLineEdit;
class QMenu;
class QSortFilterProxyModel;
class QPushButton;
class QTableView;
class QTimer;

namespace fl::gui {

class RunsTableModel;

class RunsDock : public QDockWidget {
  Q_OBJECT

 public:
  RunsDock(RunsTableModel* model, QWidget* parent = nullptr);

  QTableView* table() const { return m_table; }
  QLineEdit* search() const { return m_search; }
  // What the table says while it has no rows (how runs get here, or that none matches the
  // search); empty while it has some.
  QString emptyTableText() const;
  // How the plots group the runs: no grouping, by study, by setting (seeds averaged), or by a
  // config key that differs among the listed runs (the keys follow the rows).
  QComboBox* groupChoice() const { return m_groupChoice; }
  GroupBy groupBy() const;
  void setGroupBy(const GroupBy& by);  // as if chosen: groupByChosen follows
  // Where the keys to group by come from besides the dock's rows (the runs on the plots, opened
  // from History); the choices are made again after updateGroupChoices().
  void setExtraGroupKeys(std::function<std::vector<std::string>()> keys) {
    m_extraGroupKeys = std::move(keys);
  }
  void updateGroupChoices();
  // Brings the run's row into view once the rows just added are laid out (they scroll to
  // themselves first): a comparison opened from History ended scrolled to its last run, the
  // focused first one out of sight.
  void scrollToRun(int64_t runId);
  // Selects the rows of the runs on the plots, and no other: after a comparison opened from
  // History, the row clicked before stayed highlighted, read as the run shown (and stopped).
  // Neither scrolls nor shows anything (the display follows clicks, not the selection).
  void selectRuns(const std::vector<int64_t>& runIds);
  // Whether the shown run is training or waiting: only then can it be stopped.
  // `why`: what a click does, or why there is nothing to do (the button's tooltip).
  void setStopEnabled(bool enabled, const QString& why);
  static constexpr const char* kNothingToStop =
      "The shown run is not training or waiting: nothing to stop";
  QPushButton* stopButton() const { return m_stop; }
  // The context menu of a row of the model (null off the rows): Show, Stop, Resume, each enabled
  // when it applies to the row's run, and Colour.
  QMenu* menuForRow(int row);

 signals:
  // The selected runs, the current one first.
  void showRequested(std::vector<int64_t> runIds);
  void stopRequested();
  void stopRunRequested(int64_t runId);
  void resumeRequested(int64_t runId);
  // Colour… in a row's menu: the reader picked this colour for the run (invalid: the palette's).
  void colorChosen(int64_t runId, const QColor& color);
  // Pin to the top / Unpin in a row's menu.
  void pinRequested(int64_t runId, bool pinned);
  void groupByChosen(const GroupBy& by);

 private:
  void sizeColumns();
  int64_t runAtViewRow(int row) const;
  void updateTitle();

  RunsTableModel* m_model;
  QSortFilterProxyModel* m_filter;
  QTableView* m_table;
  QPushButton* m_stop = nullptr;
  QLineEdit* m_search;
  QComboBox* m_groupChoice;
  std::function<std::vector<std::string>()> m_extraGroupKeys;
  QTimer* m_titleTimer;       // the title's counts, redone a moment after rows change
  bool m_eyeToggled = false;  // the click that ticked an eye is not also a "show this run"
};

}  // namespace fl::gui
