#include "app/gui/window_settings.h"

#include <QGuiApplication>
#include <QScreen>
#include <QSettings>
#include <QSlider>

#include <algorithm>

#include "app/gui/history_view.h"
#include "app/gui/launch_panel.h"
#include "app/gui/main_window.h"
#include "app/gui/run_display.h"
#include "app/gui/runs_dock.h"

namespace fl::gui {

void restoreWindowSettings(MainWindow& window) {
  QSettings settings("FourierLab", "FourierLab");
  window.restoreGeometry(settings.value("geometry").toByteArray());
  window.restoreState(settings.value("windowState").toByteArray());
  LaunchPanel* launch = window.launchPanel();
  if (settings.contains("experiment"))
    launch->selectExperiment(settings.value("experiment").toString());
  if (settings.contains("preset")) launch->selectPreset(settings.value("preset").toString());
  if (settings.contains("device")) launch->selectDevice(settings.value("device").toString());
  // "parallel" (0 = auto); the older "parallelRuns" key held a fixed 4 that outran 2 cores.
  launch->setParallelRuns(settings.value("parallel", 0).toInt());
  launch->setBatchStudies(settings.value("batchStudies", true).toBool());
  window.display()->smoothing()->setValue(settings.value("smoothing", 0).toInt());
  window.history()->restoreSettings(settings);
  if (!settings.contains("geometry")) {
    // The first window fits the screen it opens on, with room around it.
    QScreen* screen = window.screen() ? window.screen() : QGuiApplication::primaryScreen();
    const QRect available = screen->availableGeometry();
    window.resize(std::min(1500, available.width() * 9 / 10),
                  std::min(950, available.height() * 9 / 10));
    // The Runs dock starts at its few rows: the plots get the height.
    window.resizeDocks({window.runsDock()}, {window.runsDock()->sizeHint().height()}, Qt::Vertical);
  }
}

void saveWindowSettings(const MainWindow& window) {
  QSettings settings("FourierLab", "FourierLab");
  settings.setValue("geometry", window.saveGeometry());
  settings.setValue("windowState", window.saveState());
  const LaunchPanel* launch = window.launchPanel();
  if (auto e = launch->experiment())
    settings.setValue("experiment", QString::fromStdString(e->name()));
  settings.setValue("preset", launch->presetName());
  settings.setValue("device", launch->device());
  settings.setValue("parallel", launch->parallelRuns());
  settings.setValue("batchStudies", launch->batchStudies());
  settings.setValue("smoothing", window.display()->smoothing()->value());
  window.history()->saveSettings(settings);
}

}  // namespace fl::gui
