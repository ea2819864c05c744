#include "app/gui/shortcuts_box.h"

#include <QAction>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>

namespace fl::gui {

namespace {

// What the mouse does where no menu says it.
const char* const kGestures[][2] = {
    {"Hover a curve plot", "a crosshair, and every shown curve's value at that x"},
    {"Drag a plot", "pan"},
    {"Ctrl + wheel on a plot", "zoom (the plain wheel scrolls the page of panels)"},
    {"Double-click a plot", "follow the data again after a pan or zoom"},
    {"Double-click a panel's title", "maximise it (Esc or Ctrl+0: all panels again)"},
    {"Right-click a panel",
     "its menu: maximise it, log or linear y, a series shown on request, copy or save it"},
    {"Double-click a dock's title bar", "roll it up to its bar, or back"},
    {"Right-click History's header", "choose its columns"},
    {"Drag along a parallel-coordinates axis", "keep the runs in that range (a click clears it)"},
    {"Double-click a parallel-coordinates line", "open its run"},
};

}  // namespace

QString shortcutsText(const QMenuBar* menus) {
  QString rows;
  for (QAction* top : menus->actions()) {
    const QMenu* menu = top->menu();
    if (!menu) continue;
    const QString menuName = top->text().remove('&');
    for (QAction* action : menu->actions()) {
      if (action->shortcut().isEmpty()) continue;
      rows += QString("<tr><td>%1 › %2</td><td>&nbsp;&nbsp;<b>%3</b></td></tr>")
                  .arg(menuName.toHtmlEscaped(), action->text().remove('&').toHtmlEscaped(),
                       action->shortcut().toString(QKeySequence::NativeText).toHtmlEscaped());
    }
  }
  QString gestures;
  for (const auto& [where, what] : kGestures)
    gestures += QString("<tr><td>%1</td><td>&nbsp;&nbsp;%2</td></tr>").arg(where, what);
  return "<h3>Keyboard</h3><table>" + rows + "</table><h3>Mouse</h3><table>" + gestures +
         "</table>";
}

void showShortcutsBox(QWidget* parent, const QMenuBar* menus) {
  QMessageBox box(QMessageBox::NoIcon, "Keyboard and mouse", shortcutsText(menus),
                  QMessageBox::Close, parent);
  box.setTextFormat(Qt::RichText);
  box.exec();
}

}  // namespace fl::gui
