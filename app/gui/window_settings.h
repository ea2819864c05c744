// What the window keeps between sessions (QSettings "FourierLab"): its geometry and docks (and
// which are collapsed to their title bar), the experiment, preset, device, parallel runs,
// smoothing, the dashboard's layout (grid or tabs), the curves' x axis, how the runs are grouped,
// and the History's filters and sort. A first start (nothing saved) sizes the window to fit the
// screen it opens on.
#pragma once

class QDockWidget;
class QMainWindow;

namespace fl::gui {

class HistoryView;
class LaunchPanel;
class RunDisplay;
class RunsDock;

// The parts of the window whose state is kept: named here, so this file needs only them.
struct WindowParts {
  QMainWindow* window = nullptr;
  LaunchPanel* launch = nullptr;
  RunDisplay* display = nullptr;
  HistoryView* history = nullptr;
  RunsDock* runsDock = nullptr;
  QDockWidget* configureDock = nullptr;
};

void restoreWindowSettings(const WindowParts& parts);
void saveWindowSettings(const WindowParts& parts);

}  // namespace fl::gui
