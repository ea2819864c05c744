// VerticalScrollArea: a scroll area that scrolls up and down only, and asks its layout to be at
// least as wide as its content. A plain QScrollArea in a narrow dock scrolled its form sideways
// when a field at the right took the focus, clipping every label at the left.
#pragma once

#include <QScrollArea>

namespace fl::widgets {

class VerticalScrollArea : public QScrollArea {
  Q_OBJECT

 public:
  explicit VerticalScrollArea(QWidget* content, QWidget* parent = nullptr);

  QSize minimumSizeHint() const override;

 protected:
  // The content's layout changed (fields of another experiment): so does the width asked for.
  bool eventFilter(QObject* watched, QEvent* event) override;
};

}  // namespace fl::widgets
