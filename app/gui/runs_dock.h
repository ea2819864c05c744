// RunsDock: the Runs dock: the queue's runs as a table (RunsTableModel: status, progress bar,
// ETA, threads, verdict) with Stop. Selecting rows asks to show them: one run, or several
// overlaid (Ctrl/Shift-click), the run clicked last focused. A row's context menu shows, stops
// or resumes its run (resume: a cancelled, interrupted or failed run from its last checkpoint,
// as History's Resume does).
#pragma once

#include <QDockWidget>

#include <cstdint>
#include <vector>

class QMenu;
class QTableView;

namespace fl::gui {

class RunsTableModel;

class RunsDock : public QDockWidget {
  Q_OBJECT

 public:
  RunsDock(RunsTableModel* model, QWidget* parent = nullptr);

  QTableView* table() const { return m_table; }
  // The context menu of a row (null off the rows): Show, Stop, Resume, each enabled when it
  // applies to the row's run.
  QMenu* menuForRow(int row);

 signals:
  // The selected runs, the current one first.
  void showRequested(std::vector<int64_t> runIds);
  void stopRequested();
  void stopRunRequested(int64_t runId);
  void resumeRequested(int64_t runId);

 private:
  RunsTableModel* m_model;
  QTableView* m_table;
};

}  // namespace fl::gui
