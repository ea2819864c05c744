// ProgressDelegate: draws a table cell as a progress bar with its text on it, from a fraction
// the model gives under kProgressRole (0..1; a cell without one is drawn as plain text). A model
// column, not a widget per row, so a table of hundreds of runs updates by dataChanged alone.
#pragma once

#include <QStyledItemDelegate>

namespace fl::widgets {

inline constexpr int kProgressRole = Qt::UserRole + 40;

class ProgressDelegate : public QStyledItemDelegate {
 public:
  using QStyledItemDelegate::QStyledItemDelegate;
  void paint(QPainter* painter, const QStyleOptionViewItem& option,
             const QModelIndex& index) const override;
};

}  // namespace fl::widgets
