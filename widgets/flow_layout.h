// FlowLayout: lays its items left to right and starts a new row where the next one does not fit,
// as text wraps. A row of choices (the study figure's view, metric, x, lines, panels, band) then
// keeps each choice readable in a narrow pane instead of squeezing every combo to a few letters.
// Its height follows its width (heightForWidth), so the widgets below it move down when it wraps.
#pragma once

#include <QLayout>
#include <QList>

namespace fl::widgets {

class FlowLayout : public QLayout {
 public:
  explicit FlowLayout(QWidget* parent = nullptr, int spacing = 6);
  ~FlowLayout() override;

  void addItem(QLayoutItem* item) override;
  int count() const override { return static_cast<int>(m_items.size()); }
  QLayoutItem* itemAt(int index) const override { return m_items.value(index); }
  QLayoutItem* takeAt(int index) override;

  Qt::Orientations expandingDirections() const override { return {}; }
  bool hasHeightForWidth() const override { return true; }
  int heightForWidth(int width) const override { return arrange(QRect(0, 0, width, 0), false); }
  QSize minimumSize() const override;
  QSize sizeHint() const override;
  void setGeometry(const QRect& rect) override;

  // How many rows the items took at the last layout (1 when they fit on one line).
  int rows() const { return m_rows; }

 private:
  // Places the items inside `rect` (only measures when !place); returns the height they take.
  int arrange(const QRect& rect, bool place) const;

  QList<QLayoutItem*> m_items;
  int m_spacing;
  mutable int m_rows = 0;
};

}  // namespace fl::widgets
