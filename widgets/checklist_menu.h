// ChecklistMenu: a menu of ticks that stays open while they are ticked, so several are chosen in
// one visit (a QMenu closes after every click: each further tick meant opening it again). An
// action that is not checkable still closes it.
#pragma once

#include <QMenu>

namespace fl::widgets {

class ChecklistMenu : public QMenu {
  Q_OBJECT

 public:
  using QMenu::QMenu;

 protected:
  void mouseReleaseEvent(QMouseEvent* event) override;
  void keyPressEvent(QKeyEvent* event) override;

 private:
  // Toggles the highlighted action when it is a tick; false when there is none to toggle.
  bool toggleActive();
};

}  // namespace fl::widgets
