#include "widgets/flow_layout.h"

#include <QWidget>

#include <algorithm>

namespace fl::widgets {

FlowLayout::FlowLayout(QWidget* parent, int spacing) : QLayout(parent), m_spacing(spacing) {}

FlowLayout::~FlowLayout() {
  while (QLayoutItem* item = takeAt(0)) delete item;
}

void FlowLayout::addItem(QLayoutItem* item) { m_items.append(item); }

QLayoutItem* FlowLayout::takeAt(int index) {
  return index >= 0 && index < m_items.size() ? m_items.takeAt(index) : nullptr;
}

QSize FlowLayout::minimumSize() const {
  // As narrow as its widest item: everything else wraps.
  QSize size;
  for (const QLayoutItem* item : m_items) size = size.expandedTo(item->minimumSize());
  const QMargins margins = contentsMargins();
  return size + QSize(margins.left() + margins.right(), margins.top() + margins.bottom());
}

QSize FlowLayout::sizeHint() const {
  // Everything on one row.
  int width = 0, height = 0;
  for (const QLayoutItem* item : m_items) {
    if (item->isEmpty()) continue;
    width += (width ? m_spacing : 0) + item->sizeHint().width();
    height = std::max(height, item->sizeHint().height());
  }
  const QMargins margins = contentsMargins();
  return {width + margins.left() + margins.right(), height + margins.top() + margins.bottom()};
}

void FlowLayout::setGeometry(const QRect& rect) {
  QLayout::setGeometry(rect);
  arrange(rect, true);
}

int FlowLayout::arrange(const QRect& rect, bool place) const {
  const QRect area = rect.marginsRemoved(contentsMargins());
  int x = area.x(), y = area.y(), rowHeight = 0, rows = 0;
  for (QLayoutItem* item : m_items) {
    if (item->isEmpty()) continue;
    const QSize hint = item->sizeHint();
    if (rows == 0) {
      rows = 1;
    } else if (x + hint.width() > area.right() + 1) {  // does not fit: a new row
      x = area.x();
      y += rowHeight + m_spacing;
      rowHeight = 0;
      ++rows;
    }
    // An item wider than the whole row is given the row.
    if (place) item->setGeometry(QRect(x, y, std::min(hint.width(), area.width()), hint.height()));
    x += hint.width() + m_spacing;
    rowHeight = std::max(rowHeight, hint.height());
  }
  m_rows = rows;
  return y + rowHeight - rect.y() + contentsMargins().bottom();
}

}  // namespace fl::widgets
