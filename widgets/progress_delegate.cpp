#include "widgets/progress_delegate.h"

#include <QApplication>
#include <QStyleOptionProgressBar>

#include <algorithm>

namespace fl::widgets {

void ProgressDelegate::paint(QPainter* painter, const QStyleOptionViewItem& option,
                             const QModelIndex& index) const {
  const QVariant fraction = index.data(kProgressRole);
  if (!fraction.isValid()) {
    QStyledItemDelegate::paint(painter, option, index);
    return;
  }
  QStyleOptionProgressBar bar;
  bar.rect = option.rect.adjusted(1, 2, -1, -2);
  bar.minimum = 0;
  bar.maximum = 1000;
  bar.progress = static_cast<int>(1000 * std::clamp(fraction.toDouble(), 0.0, 1.0));
  bar.text = index.data(Qt::DisplayRole).toString();
  bar.textVisible = true;
  bar.textAlignment = Qt::AlignCenter;
  bar.state = option.state | QStyle::State_Horizontal;
  const QWidget* widget = option.widget;
  QStyle* style = widget ? widget->style() : QApplication::style();
  style->drawControl(QStyle::CE_ProgressBar, &bar, painter, widget);
}

}  // namespace fl::widgets
