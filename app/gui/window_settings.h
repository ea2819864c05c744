// What the window keeps between sessions (QSettings "FourierLab"): its geometry and docks, the
// experiment, preset, device, parallel runs, smoothing, and the History's filters and sort.
// A first start (nothing saved) sizes the window to fit the screen it opens on.
#pragma once

namespace fl::gui {

class MainWindow;

void restoreWindowSettings(MainWindow& window);
void saveWindowSettings(const MainWindow& window);

}  // namespace fl::gui
