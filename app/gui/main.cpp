// fourierlab: the desktop lab. The composition root: builds the registry and the run store,
// then the window, and connects them.
//   fourierlab [--db PATH] [--start EXPERIMENT [--preset NAME] [--compare]] [--open RUN_ID]
//              [--study STUDY_ID] [--history]
#include <QApplication>
#include <QCommandLineParser>
#include <QFileDialog>
#include <QGuiApplication>
#include <QMessageBox>
#include <QPushButton>
#include <QTabWidget>
#include <QTimer>

#include <cstdio>

#include "app/gui/history_view.h"
#include "app/gui/launch_panel.h"
#include "app/gui/main_window.h"
#include "app/gui/run_queue.h"
#include "core/engine/device_spec.h"
#include "core/engine/interrupt_signals.h"
#include "core/engine/openmp_wait_policy.h"
#include "core/store/run_store.h"
#include "core/study/study_store.h"
#include "experiments/builtin_experiments.h"
#include "fourierlab/version.h"

int main(int argc, char** argv) {
  // A signal while the lab starts waits for its handler (InterruptSignals below).
  fl::InterruptSignals::holdUntilHandled();
  fl::ensurePassiveOpenMpWait(argv);  // it may start the program again
  QApplication app(argc, argv);
  // SIGTERM (kill, a logout's or a cluster's), SIGHUP and Ctrl-C in the terminal close the
  // window as Quit does, without asking: every run cancelled cleanly, resumable; then the
  // shell's exit code for the signal (143, 129, 130).
  fl::InterruptSignals caught;
  QApplication::setApplicationName("FourierLab");
  QApplication::setApplicationVersion(FOURIERLAB_VERSION);

  QCommandLineParser parser;
  parser.setApplicationDescription(
      "FourierLab: a desktop lab for Fourier-structured neural layers");
  parser.addHelpOption();
  parser.addVersionOption();
  QCommandLineOption db("db", "Run store file (default: $XDG_DATA_HOME/fourierlab/runs.db).",
                        "path");
  QCommandLineOption start("start", "Launch a run of EXPERIMENT at start-up.", "experiment");
  QCommandLineOption preset("preset", "With --start: the preset to use.", "name");
  QCommandLineOption open("open",
                          "Open a stored run, or several to compare them overlaid "
                          "(comma-separated, e.g. 3,4,5,6).",
                          "run-ids");
  QCommandLineOption compare("compare",
                             "With --start: launch the experiment's comparison "
                             "(e.g. linear vs Fourier heads) side by side.");
  QCommandLineOption studyOption("study",
                                 "Open a stored study's view (its progress, figure and "
                                 "table; `fourierlab-cli sweep list` lists them).",
                                 "study-id");
  QCommandLineOption historyOption("history", "Start on the History tab.");
  QCommandLineOption deviceOption(
      "device", "With --start: train on DEVICE (auto, cpu, cuda, cuda:N).", "device");
  QCommandLineOption screenshot("screenshot",
                                "With --start: when the runs it launched have ended, save a "
                                "picture of the window to PATH and quit (offscreen too).",
                                "path");
  parser.addOptions(
      {db, start, preset, open, compare, studyOption, historyOption, deviceOption, screenshot});
  parser.process(app);

  // Mistakes on the command line are said and refused (exit 2), never silently ignored.
  auto usageError = [](const QString& what) {
    std::fprintf(stderr, "error: %s\n", qPrintable(what));
    return 2;
  };
  if (parser.isSet(preset) && !parser.isSet(start))
    return usageError("--preset needs --start EXPERIMENT");
  if (parser.isSet(compare) && !parser.isSet(start))
    return usageError("--compare needs --start EXPERIMENT");
  if (parser.isSet(start) && parser.isSet(open))
    return usageError("--start and --open cannot be combined");
  if (parser.isSet(deviceOption) && !parser.isSet(start))
    return usageError("--device needs --start EXPERIMENT");
  if (parser.isSet(screenshot) && !parser.isSet(start))
    return usageError("--screenshot needs --start EXPERIMENT");
  // The CLI's check: a device this machine lacks is refused naming those it has.
  std::string pickedDevice;
  if (parser.isSet(deviceOption)) {
    std::string problem;
    const auto value = fl::pickerValueFor(parser.value(deviceOption).toStdString(), &problem);
    if (!value) return usageError("--device: " + QString::fromStdString(problem));
    pickedDevice = *value;
  }
  std::vector<int64_t> openIds;
  if (parser.isSet(open)) {
    for (const auto& part : parser.value(open).split(',', Qt::SkipEmptyParts)) {
      bool ok = false;
      const qlonglong id = part.trimmed().toLongLong(&ok);
      if (!ok || id <= 0) return usageError(QString("--open: '%1' is not a run id").arg(part));
      openIds.push_back(id);
    }
    if (openIds.empty()) return usageError("--open needs run ids, e.g. --open 3 or --open 3,4,5");
  }

  fl::ExperimentRegistry registry;
  fl::registerBuiltinExperiments(registry);

  std::string path =
      parser.isSet(db) ? parser.value(db).toStdString() : fl::store::RunStore::defaultPath();
  std::unique_ptr<fl::store::RunStore> store;
  // Opening stored runs reads: it never creates the store it was pointed at.
  if (!openIds.empty()) {
    try {
      fl::store::RunStore::requireExisting(path);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "store error: %s\n", e.what());
      return 3;
    }
  }
  // A store that cannot be opened is said (stderr and a dialog) and left as it is; on a screen
  // the user may pick another file or a new one instead of losing the session.
  const bool interactive = QGuiApplication::platformName() != "offscreen";
  while (!store) {
    try {
      store = std::make_unique<fl::store::RunStore>(path);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "store error: %s\n", e.what());
      if (!interactive) return 3;
      QMessageBox box(
          QMessageBox::Critical, "FourierLab",
          QString("Cannot open the run store:\n%1\n\nThe file was left as it is.").arg(e.what()));
      auto* other = box.addButton("Use another file…", QMessageBox::AcceptRole);
      box.addButton("Quit", QMessageBox::RejectRole);
      box.exec();
      if (box.clickedButton() != other) return 3;
      const QString chosen = QFileDialog::getSaveFileName(
          nullptr, "Run store (an existing one, or a new file)", QString(),
          "Run stores (*.db);;All files (*)", nullptr, QFileDialog::DontConfirmOverwrite);
      if (chosen.isEmpty()) return 3;
      path = chosen.toStdString();
    }
  }

  for (auto id : openIds)
    if (!store->run(id))
      return usageError(
          QString("--open: there is no run %1 in %2").arg(id).arg(QString::fromStdString(path)));

  int64_t studyId = 0;
  if (parser.isSet(studyOption)) {
    bool ok = false;
    studyId = parser.value(studyOption).toLongLong(&ok);
    if (!ok || studyId <= 0)
      return usageError(QString("--study: '%1' is not a study id").arg(parser.value(studyOption)));
    if (!fl::study::StudyStore(*store).study(studyId))
      return usageError(QString("--study: there is no study %1 in %2")
                            .arg(studyId)
                            .arg(QString::fromStdString(path)));
  }

  fl::gui::MainWindow window(registry, std::move(store));
  if (parser.isSet(start)) {
    if (!window.launchPanel()->selectExperiment(parser.value(start))) {
      QStringList names;
      for (const auto& e : registry.all()) names << QString::fromStdString(e->name());
      return usageError(QString("--start: unknown experiment '%1' (one of: %2)")
                            .arg(parser.value(start), names.join(", ")));
    }
    // Without --preset the experiment's defaults, whatever preset the last session left.
    const QString presetName = parser.isSet(preset) ? parser.value(preset) : QString("(defaults)");
    if (!window.launchPanel()->selectPreset(presetName)) {
      QStringList names;
      if (auto e = window.launchPanel()->experiment())
        for (const auto& p : e->presets()) names << QString::fromStdString(p.name);
      return usageError(QString("--preset: '%1' is not a preset of %2 (one of: %3)")
                            .arg(parser.value(preset), parser.value(start), names.join(", ")));
    }
  }
  if (!pickedDevice.empty())
    window.launchPanel()->selectDevice(QString::fromStdString(pickedDevice));
  window.show();
  QTimer signalWatch;
  QObject::connect(&signalWatch, &QTimer::timeout, &window, [&] {
    if (!caught.received()) return;
    signalWatch.stop();
    std::fprintf(stderr, "%s: cancelling the runs and closing\n",
                 fl::InterruptSignals::name(caught.received()).c_str());
    window.closeCancellingRuns();
  });
  signalWatch.start(100);
  if (parser.isSet(screenshot)) {
    // Once nothing waits, trains or closes any more: the window as the runs left it.
    const QString picture = parser.value(screenshot);
    QObject::connect(window.queue(), &fl::gui::RunQueue::runEnded, &window, [&window, picture] {
      auto* queue = window.queue();
      if (queue->waitingCount() > 0 || queue->trainingCount() > 0 || queue->closingCount() > 0)
        return;
      QTimer::singleShot(500, &window, [&window, picture] {
        const bool saved = window.grab().save(picture);
        std::fprintf(stderr, "%s %s\n", saved ? "saved" : "could not save", qPrintable(picture));
        QApplication::exit(saved ? 0 : 3);
      });
    });
  }
  if (parser.isSet(start)) {
    const bool comparison = parser.isSet(compare);
    QTimer::singleShot(0, &window, [&window, comparison] {
      if (comparison)
        window.launchComparison();
      else
        window.launch();
    });
  } else if (!openIds.empty()) {
    if (openIds.size() == 1)
      window.openStoredRun(openIds.front());
    else
      window.compareRuns(openIds);
  }
  if (studyId) window.openStudy(studyId);
  if (parser.isSet(historyOption)) {
    window.refreshHistory();
    window.tabs()->setCurrentWidget(window.history());
  }
  const int code = app.exec();
  return caught.received() ? fl::InterruptSignals::exitCode(caught.received()) : code;
}
