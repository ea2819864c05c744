#include "app/gui/window_settings.h"

#include <QComboBox>
#include <QDockWidget>
#include <QGuiApplication>
#include <QMainWindow>
#include <QScreen>
#include <QSettings>
#include <QSlider>
#include <QTimer>

#include <algorithm>

#include <nlohmann/json.hpp>

#include "app/gui/dock_title_bar.h"
#include "app/gui/history_view.h"
#include "app/gui/launch_panel.h"
#include "app/gui/run_display.h"
#include "app/gui/runs_dock.h"

namespace fl::gui {

namespace {

// A screen at least this large opens the first window at 90% of it, with room around it.
constexpr QSize kRoomyScreen(1600, 900);

DockTitleBar* titleBarOf(QDockWidget* dock) {
  return dock ? qobject_cast<DockTitleBar*>(dock->titleBarWidget()) : nullptr;
}

}  // namespace

void restoreWindowSettings(const WindowParts& parts) {
  QSettings settings("FourierLab", "FourierLab");
  QMainWindow& window = *parts.window;
  window.restoreGeometry(settings.value("geometry").toByteArray());
  window.restoreState(settings.value("windowState").toByteArray());
  LaunchPanel* launch = parts.launch;
  if (settings.contains("experiment"))
    launch->selectExperiment(settings.value("experiment").toString());
  if (settings.contains("preset")) launch->selectPreset(settings.value("preset").toString());
  launch->restoreFormsAsLeft(nlohmann::json::parse(settings.value("forms").toString().toStdString(),
                                                   nullptr, /*allow_exceptions=*/false));
  if (settings.contains("device")) launch->selectDevice(settings.value("device").toString());
  // "parallel" (0 = auto); the older "parallelRuns" key held a fixed 4 that outran 2 cores.
  launch->setParallelRuns(settings.value("parallel", 0).toInt());
  launch->setBatchStudies(settings.value("batchStudies", true).toBool());
  parts.display->smoothing()->setValue(settings.value("smoothing", 0).toInt());
  parts.display->layoutChoice()->setCurrentIndex(
      settings.value("dashboardLayout").toString() == "tabs" ? 1 : 0);
  parts.display->setXAxis(
      parseXAxis(settings.value("xAxis").toString().toStdString()).value_or(XAxis::Step));
  parts.runsDock->setGroupBy(GroupBy::parse(settings.value("groupBy").toString().toStdString()));
  // A rolled-up dock opens at the size it had when last open (kept beside it: the window's
  // state holds its bar's size).
  const QStringList collapsed = settings.value("collapsedDocks").toStringList();
  for (QDockWidget* dock : {parts.configureDock, static_cast<QDockWidget*>(parts.runsDock)})
    if (auto* bar = titleBarOf(dock); bar && collapsed.contains(dock->objectName())) {
      bar->setCollapsed(true);
      const int extent = settings.value("dockExtent/" + dock->objectName(), 0).toInt();
      if (extent > 0) bar->setExpandedExtent(extent);
    }
  parts.history->restoreSettings(settings);
  QScreen* screen = window.screen() ? window.screen() : QGuiApplication::primaryScreen();
  const QRect available = screen->availableGeometry();
  // A window kept from a larger screen does not fit this one: it opens as a first window does.
  // Shrunk by restoreGeometry to 1113x636 on a 1280x720 screen, it left the study's figure
  // 120 px tall beside a full screen's worth of room.
  // (Larger than the window must be: a screen smaller than its minimum size keeps it there.)
  const QSize kept = settings.value("windowSize").toSize();
  const QSize fits = available.size().expandedTo(window.minimumSizeHint());
  const bool keptFromLarger =
      kept.isValid() && (kept.width() > fits.width() || kept.height() > fits.height());
  if (!settings.contains("geometry") || keptFromLarger) {
    // The first window fits the screen it opens on, with room around it.
    window.resize(std::min(1500, available.width() * 9 / 10),
                  std::min(950, available.height() * 9 / 10));
    // On a laptop's screen (1280x720, 1366x768) a tenth less left the study's table one row
    // and its figure one row of panels: the first window takes the whole screen there.
    // (Sized to it as well: without a window manager nothing maximizes it.)
    if (available.width() < kRoomyScreen.width() || available.height() < kRoomyScreen.height()) {
      window.resize(available.size());
      window.setWindowState(window.windowState() | Qt::WindowMaximized);
    }
    // The Runs dock starts at its few rows: the plots get the height. Asked once the window is
    // shown: asked before, the first layout gave the dock its minimum, one row and a half at
    // 1280x720, and the plots the rest.
    QTimer::singleShot(0, &window, [&window, dock = parts.runsDock] {
      window.resizeDocks({dock}, {dock->sizeHint().height()}, Qt::Vertical);
    });
  }
}

void saveWindowSettings(const WindowParts& parts) {
  QSettings settings("FourierLab", "FourierLab");
  const QMainWindow& window = *parts.window;
  settings.setValue("geometry", window.saveGeometry());
  settings.setValue("windowSize", window.normalGeometry().size());
  settings.setValue("windowState", window.saveState());
  // Which docks are rolled up, and the size each had when open.
  QStringList collapsed;
  for (QDockWidget* dock : {parts.configureDock, static_cast<QDockWidget*>(parts.runsDock)})
    if (auto* bar = titleBarOf(dock); bar && bar->collapsed()) {
      collapsed << dock->objectName();
      settings.setValue("dockExtent/" + dock->objectName(), bar->expandedExtent());
    }
  settings.setValue("collapsedDocks", collapsed);
  const LaunchPanel* launch = parts.launch;
  if (auto e = launch->experiment())
    settings.setValue("experiment", QString::fromStdString(e->name()));
  settings.setValue("preset", launch->presetName());
  settings.setValue("forms", QString::fromStdString(launch->formsAsLeft().dump()));
  settings.setValue("device", launch->device());
  settings.setValue("parallel", launch->parallelRuns());
  settings.setValue("batchStudies", launch->batchStudies());
  settings.setValue("smoothing", parts.display->smoothing()->value());
  settings.setValue("dashboardLayout",
                    parts.display->layoutChoice()->currentIndex() == 1 ? "tabs" : "grid");
  // The reader's choice, also while a run that cannot give it shows its curves over steps.
  settings.setValue("xAxis", QString::fromStdString(xAxisName(parts.display->xAxis())));
  settings.setValue("groupBy", QString::fromStdString(parts.runsDock->groupBy().name()));
  parts.history->saveSettings(settings);
}

}  // namespace fl::gui
