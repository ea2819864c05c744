// HistoryView: every run in the store as a sortable table (parameters that differ and metric
// summaries as columns), filtered by experiment, status, tag and text; open, rename, tag, note,
// delete (confirmed) and export (CSV/JSON) the selected runs.
#pragma once

#include <QWidget>

#include <cstdint>
#include <vector>

class QComboBox;
class QSettings;
class QLineEdit;
class QTableWidget;
class QTimer;

namespace fl::store {
class RunStore;
}

namespace fl::gui {

class HistoryView : public QWidget {
  Q_OBJECT

 public:
  HistoryView(store::RunStore& store, QWidget* parent = nullptr);

  void refresh();
  QTableWidget* table() const { return m_table; }
  QLineEdit* filterText() const { return m_text; }
  QComboBox* experimentFilter() const { return m_experiment; }
  std::vector<int64_t> selectedIds() const;
  // Deletes without asking (the button asks first); returns how many.
  int deleteRuns(const std::vector<int64_t>& ids);
  // Filters and sort order, kept across sessions.
  void saveSettings(QSettings& settings) const;
  void restoreSettings(const QSettings& settings);
  // Writes the runs to `path` as CSV (metrics; snapshots beside it) or JSON by its suffix.
  bool exportRuns(const std::vector<int64_t>& ids, const QString& path, QString* error);

 signals:
  void openRequested(int64_t runId);
  void compareRequested(std::vector<int64_t> runIds);
  void resumeRequested(int64_t runId);
  void storeError(const QString& message);

 private:
  void askDelete();
  void askExport();
  void askEdit(const QString& what);

  store::RunStore& m_store;
  QTableWidget* m_table;
  QLineEdit* m_text;
  QComboBox* m_status;
  QComboBox* m_experiment;
  QLineEdit* m_tag;
  QTimer* m_typing;  // a refresh once the filter text stops changing
};

}  // namespace fl::gui
