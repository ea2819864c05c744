// Help > Keyboard and mouse: every menu action's shortcut, read from the menus themselves (so the
// list cannot fall behind them), and the mouse gestures of the plots, docks and tables, which no
// menu shows.
#pragma once

#include <QString>

class QMenuBar;
class QWidget;

namespace fl::gui {

// The list as rich text: a row per action with a shortcut ("Run › Run comparison  Ctrl+Shift+R"),
// then the gestures.
QString shortcutsText(const QMenuBar* menus);

void showShortcutsBox(QWidget* parent, const QMenuBar* menus);

}  // namespace fl::gui
