// RunsDock: the Runs dock: the queue's runs as a table (RunsTableModel: status, progress bar,
// ETA, threads, verdict) with Stop. Selecting rows asks to show them: one run, or several
// overlaid (Ctrl/Shift-click), the run clicked last focused.
#pragma once

#include <QDockWidget>

#include <cstdint>
#include <vector>

class QTableView;

namespace fl::gui {

class RunsTableModel;

class RunsDock : public QDockWidget {
  Q_OBJECT

 public:
  RunsDock(RunsTableModel* model, QWidget* parent = nullptr);

  QTableView* table() const { return m_table; }

 signals:
  // The selected runs, the current one first.
  void showRequested(std::vector<int64_t> runIds);
  void stopRequested();

 private:
  RunsTableModel* m_model;
  QTableView* m_table;
};

}  // namespace fl::gui
