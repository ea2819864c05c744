// ProgressDelegate: draws a table cell's text with a progress strip beneath it, from a fraction
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

 private:
  static constexpr int kStripHeight = 3;
};

}  // namespace fl::widgets
