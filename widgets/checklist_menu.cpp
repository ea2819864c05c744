#include "widgets/checklist_menu.h"

#include <QKeyEvent>
#include <QMouseEvent>

namespace fl::widgets {

bool ChecklistMenu::toggleActive() {
  QAction* action = activeAction();
  if (!action || !action->isEnabled() || !action->isCheckable()) return false;
  action->trigger();  // toggles, and emits toggled() and triggered() as a click would
  return true;
}

void ChecklistMenu::mouseReleaseEvent(QMouseEvent* event) {
  // Only a release over the ticked action itself: one outside the menu still closes it.
  if (rect().contains(event->position().toPoint()) &&
      actionAt(event->position().toPoint()) == activeAction() && toggleActive())
    return;
  QMenu::mouseReleaseEvent(event);
}

void ChecklistMenu::keyPressEvent(QKeyEvent* event) {
  // Space ticks and stays; Return and Enter keep closing the menu after ticking.
  if (event->key() == Qt::Key_Space && toggleActive()) return;
  QMenu::keyPressEvent(event);
}

}  // namespace fl::widgets
