#include "widgets/progress_delegate.h"

#include <QPainter>

#include <algorithm>

namespace fl::widgets {

void ProgressDelegate::paint(QPainter* painter, const QStyleOptionViewItem& option,
                             const QModelIndex& index) const {
  const QVariant fraction = index.data(kProgressRole);
  QStyleOptionViewItem text(option);
  if (fraction.isValid()) text.displayAlignment = Qt::AlignCenter;
  // The text as the cell's own, in its colours (selected too); the bar a strip beneath it. Drawn
  // over a progress bar, the fill's edge crossed the digits: "epoch 26336/3000▏0" read as a run
  // past its total.
  QStyledItemDelegate::paint(painter, text, index);
  if (!fraction.isValid()) return;
  const QRect cell = option.rect.adjusted(3, 0, -3, 0);
  const QRect groove(cell.left(), cell.bottom() - kStripHeight, cell.width(), kStripHeight);
  const double filled = std::clamp(fraction.toDouble(), 0.0, 1.0);
  // On a selected row, whose background is the highlight, in the selected text's colour.
  const bool selected = option.state & QStyle::State_Selected;
  const QColor fill =
      option.palette.color(selected ? QPalette::HighlightedText : QPalette::Highlight);
  QColor rest = fill;
  rest.setAlphaF(0.3);
  painter->save();
  painter->fillRect(groove, rest);
  painter->fillRect(
      QRect(groove.left(), groove.top(), static_cast<int>(filled * groove.width()), kStripHeight),
      fill);
  painter->restore();
}

}  // namespace fl::widgets
