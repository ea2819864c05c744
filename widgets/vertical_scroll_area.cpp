#include "widgets/vertical_scroll_area.h"

#include <QEvent>
#include <QScrollBar>

namespace fl::widgets {

VerticalScrollArea::VerticalScrollArea(QWidget* content, QWidget* parent) : QScrollArea(parent) {
  setWidget(content);
  setWidgetResizable(true);
  setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  content->installEventFilter(this);
}

QSize VerticalScrollArea::minimumSizeHint() const {
  QSize size = QScrollArea::minimumSizeHint();
  if (widget())
    size.setWidth(widget()->minimumSizeHint().width() + verticalScrollBar()->sizeHint().width() +
                  2 * frameWidth());
  return size;
}

bool VerticalScrollArea::eventFilter(QObject* watched, QEvent* event) {
  if (watched == widget() && event->type() == QEvent::LayoutRequest) updateGeometry();
  return QScrollArea::eventFilter(watched, event);
}

}  // namespace fl::widgets
