// FrozenColumnsView: a table whose first columns stay in place while the others scroll
// sideways (Qt's "frozen column" example): a History with fifty metric columns keeps each row's
// id and name in view. A second view over the same model and selection is laid over the first
// columns; sorting from either header sorts both.
#pragma once

#include <QTableView>

namespace fl::widgets {

class FrozenColumnsView : public QTableView {
  Q_OBJECT

 public:
  explicit FrozenColumnsView(int frozenColumns, QWidget* parent = nullptr);

  void setModel(QAbstractItemModel* model) override;
  QTableView* frozenView() const { return m_frozen; }
  int frozenColumns() const { return m_count; }

 protected:
  void resizeEvent(QResizeEvent* event) override;
  QModelIndex moveCursor(CursorAction action, Qt::KeyboardModifiers modifiers) override;
  void scrollTo(const QModelIndex& index, ScrollHint hint = EnsureVisible) override;

 private:
  void updateFrozen();

  QTableView* m_frozen;
  int m_count;
};

}  // namespace fl::widgets
