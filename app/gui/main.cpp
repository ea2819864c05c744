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

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "app/gui/history_view.h"
#include "app/gui/launch_panel.h"
#include "app/gui/main_window.h"
#include "app/gui/run_queue.h"
#include "core/engine/device_spec.h"
#include "core/engine/interrupt_signals.h"
#include "core/engine/openmp_wait_policy.h"
#include "core/engine/write_failure_signals.h"
#include "core/store/run_store.h"
#include "core/store/store_browsing.h"
#include "core/store/store_folder.h"
#include "core/study/study_store.h"
#include "core/text/utf8.h"
#include "experiments/builtin_experiments.h"
#include "fourierlab/version.h"
#include "widgets/file_dialogs.h"

namespace fs = std::filesystem;

namespace {

constexpr int kUsageError = 2;
constexpr int kStoreError = 3;

// Mistakes on the command line are said and refused (exit 2), never silently ignored.
int usageError(const QString& what) {
  std::fprintf(stderr, "error: %s\n", qPrintable(what));
  return kUsageError;
}

// What the command line asks of the lab, read and checked before anything opens.
struct StartOptions {
  bool start = false;  // --start EXPERIMENT
  QString experiment;
  bool presetGiven = false;
  QString preset;
  bool compare = false;
  std::string device;                 // --device as the picker names it; empty without
  std::optional<QString> screenshot;  // the picture's path
  std::vector<int64_t> openIds;
  bool study = false;
  QString studyText;  // checked once the store is open
  bool history = false;
  std::string storePath;
};

void declareOptions(QCommandLineParser& parser) {
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
                                "picture of the window to PATH and quit (offscreen too, at "
                                "1920x1080).",
                                "path");
  parser.addOptions(
      {db, start, preset, open, compare, studyOption, historyOption, deviceOption, screenshot});
}

// Help and the version need no window: answered without a display, which QApplication needs.
bool asksForTextOnly(int argc, char** argv) {
  for (int i = 1; i < argc; ++i)
    for (const char* text : {"-h", "--help", "-?", "--help-all", "-v", "--version"})
      if (std::strcmp(argv[i], text) == 0) return true;
  return false;
}

// Where Qt finds no display it aborts in its own words: what is missing is said instead.
bool hasDisplay(int argc, char** argv) {
  for (int i = 1; i < argc; ++i)
    if (std::strcmp(argv[i], "-platform") == 0) return true;
  for (const char* variable : {"DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM"})
    if (!qEnvironmentVariableIsEmpty(variable)) return true;
  return false;
}

// Reads the parsed options into `o`; a mistake is said and its exit code returned.
std::optional<int> readOptions(const QCommandLineParser& parser, StartOptions& o) {
  o.start = parser.isSet("start");
  if (parser.isSet("preset") && !o.start) return usageError("--preset needs --start EXPERIMENT");
  if (parser.isSet("compare") && !o.start) return usageError("--compare needs --start EXPERIMENT");
  if (o.start && parser.isSet("open")) return usageError("--start and --open cannot be combined");
  if (parser.isSet("device") && !o.start) return usageError("--device needs --start EXPERIMENT");
  if (parser.isSet("screenshot") && !o.start)
    return usageError("--screenshot needs --start EXPERIMENT");
  // The CLI's check: a device this machine lacks is refused naming those it has.
  if (parser.isSet("device")) {
    std::string problem;
    const auto value = fl::pickerValueFor(parser.value("device").toStdString(), &problem);
    if (!value) return usageError("--device: " + QString::fromStdString(problem));
    o.device = *value;
  }
  if (parser.isSet("open")) {
    for (const auto& part : parser.value("open").split(',', Qt::SkipEmptyParts)) {
      bool ok = false;
      const qlonglong id = part.trimmed().toLongLong(&ok);
      if (!ok || id <= 0) return usageError(QString("--open: '%1' is not a run id").arg(part));
      // As `runs compare` refuses it: a run given twice is a slip, not a wish to see it twice.
      if (std::find(o.openIds.begin(), o.openIds.end(), id) != o.openIds.end())
        return usageError(QString("--open: run %1 is given twice").arg(id));
      o.openIds.push_back(id);
    }
    if (o.openIds.empty()) return usageError("--open needs run ids, e.g. --open 3 or --open 3,4,5");
  }
  o.experiment = parser.value("start");
  o.presetGiven = parser.isSet("preset");
  o.preset = parser.value("preset");
  o.compare = parser.isSet("compare");
  if (parser.isSet("screenshot")) o.screenshot = parser.value("screenshot");
  o.study = parser.isSet("study");
  o.studyText = parser.value("study");
  o.history = parser.isSet("history");
  // As the CLI refuses it: an empty --db (a variable left unset) is not the default store.
  if (parser.isSet("db") && fl::text::isBlank(parser.value("db").toStdString()))
    return usageError(QString("--db: is %1; give a store file, or leave --db out for the default "
                              "store")
                          .arg(parser.value("db").isEmpty() ? "empty" : "blank"));
  o.storePath =
      parser.isSet("db") ? parser.value("db").toStdString() : fl::store::RunStore::defaultPath();
  // Opening runs reads the store, which must exist (said by openStore); otherwise it may be new.
  if (const std::string missing = parser.isSet("db") && o.openIds.empty()
                                      ? fl::store::missingStoreFolder(o.storePath)
                                      : std::string();
      !missing.empty())
    return usageError("--db " + parser.value("db") + ": " + QString::fromStdString(missing));
  return std::nullopt;
}

// Opens the store at `path` (which the user may change to another file); null when it cannot
// be opened, after saying why.
std::unique_ptr<fl::store::RunStore> openStore(std::string& path, bool mustExist) {
  // Opening stored runs reads: it never creates the store it was pointed at.
  if (mustExist) {
    try {
      fl::store::RunStore::requireExisting(path);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "store error: %s\n", e.what());
      return nullptr;
    }
  }
  // A store that cannot be opened is said (stderr and a dialog) and left as it is; on a screen
  // the user may pick another file or a new one instead of losing the session.
  const bool interactive = QGuiApplication::platformName() != "offscreen";
  while (true) {
    try {
      // A store this user may not write (a colleague's, a cluster's results), or one on a full
      // disk, is browsed read-only, as the CLI's reading commands read it, rather than refused.
      std::error_code ec;
      if (fs::is_regular_file(path, ec) && fs::file_size(path, ec) > 0 && !ec) {
        auto store = fl::store::openForBrowsing(path);
        if (store->isReadOnly())
          std::fprintf(stderr, "note: %s %s: opened for browsing only\n", store->path().c_str(),
                       store->readOnlyBecause().c_str());
        return store;
      }
      return std::make_unique<fl::store::RunStore>(path);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "store error: %s\n", e.what());
      if (!interactive) return nullptr;
      // "Left as it is" only of a file there is: one that could not be created was not there.
      std::error_code ec;
      const bool exists = fs::exists(path, ec);
      QMessageBox box(QMessageBox::Critical, "FourierLab",
                      QString("Cannot open the run store:\n%1%2")
                          .arg(e.what(), exists ? "\n\nThe file was left as it is."
                                                : "\n\nNothing was created."));
      auto* other = box.addButton("Use another file…", QMessageBox::AcceptRole);
      // "Cancel", not "Quit": opened from another window's Open, this window's process alone
      // ends, and the other window stays.
      box.addButton("Cancel", QMessageBox::RejectRole);
      box.exec();
      if (box.clickedButton() != other) return nullptr;
      // Opened in the folder of the store that failed, where the others usually are (it opened
      // in the home folder), a new store's name suggested.
      const fs::path folder = fs::absolute(fs::path(path)).parent_path();
      fs::path suggested = folder / "runs.db";
      for (int n = 2; fs::exists(suggested, ec); ++n)
        suggested = folder / ("runs-" + std::to_string(n) + ".db");
      const QString chosen = fl::widgets::askSaveFileName(
          nullptr, "Run store (an existing one, or a new file)",
          QString::fromStdString(suggested.string()), "Run stores (*.db);;All files (*)",
          QFileDialog::DontConfirmOverwrite);
      if (chosen.isEmpty()) return nullptr;
      path = chosen.toStdString();
    }
  }
}

// The runs and the study the command line names must be in the store; the study's id is
// returned in `studyId` (0 without --study).
std::optional<int> checkStoredIds(fl::store::RunStore& store, const StartOptions& o,
                                  int64_t& studyId) {
  const QString path = QString::fromStdString(o.storePath);
  for (auto id : o.openIds)
    if (!store.run(id))
      return usageError(QString("--open: there is no run %1 in %2").arg(id).arg(path));
  studyId = 0;
  if (!o.study) return std::nullopt;
  bool ok = false;
  studyId = o.studyText.toLongLong(&ok);
  if (!ok || studyId <= 0)
    return usageError(QString("--study: '%1' is not a study id").arg(o.studyText));
  if (!fl::study::StudyStore(store).study(studyId))
    return usageError(QString("--study: there is no study %1 in %2").arg(studyId).arg(path));
  return std::nullopt;
}

// --start's experiment and preset (or the defaults) and --device, set in the launch panel.
std::optional<int> selectStart(fl::gui::MainWindow& window, const fl::ExperimentRegistry& registry,
                               const StartOptions& o) {
  if (o.start) {
    if (!window.launchPanel()->selectExperiment(o.experiment)) {
      QStringList names;
      for (const auto& e : registry.all()) names << QString::fromStdString(e->name());
      return usageError(QString("--start: unknown experiment '%1' (one of: %2)")
                            .arg(o.experiment, names.join(", ")));
    }
    // Without --preset the experiment's defaults, whatever preset the last session left.
    const QString presetName = o.presetGiven ? o.preset : QString("(defaults)");
    if (!window.launchPanel()->selectPreset(presetName)) {
      QStringList names;
      if (auto e = window.launchPanel()->experiment())
        for (const auto& p : e->presets()) names << QString::fromStdString(p.name);
      return usageError(QString("--preset: '%1' is not a preset of %2 (one of: %3)")
                            .arg(o.preset, o.experiment, names.join(", ")));
    }
  }
  if (!o.device.empty()) window.launchPanel()->selectDevice(QString::fromStdString(o.device));
  return std::nullopt;
}

// A caught SIGTERM, SIGHUP or SIGINT closes the window as Quit does, without asking; a second
// one gives up waiting for the store (its sender has no more time to give: a cluster's SIGKILL
// follows within seconds).
void closeOnSignal(QTimer& watch, fl::gui::MainWindow& window, const fl::InterruptSignals& caught) {
  QObject::connect(&watch, &QTimer::timeout, &window, [&, handled = 0]() mutable {
    // Each signal once, two arrived within one look (a double Ctrl-C) included.
    for (const int count = std::min(caught.count(), 2); handled < count; ++handled) {
      if (handled == 0)
        std::fprintf(stderr, "%s: cancelling the runs and closing\n",
                     fl::InterruptSignals::name(caught.received()).c_str());
      else
        std::fprintf(stderr, "a second signal: closing without waiting for the store\n");
      window.closeCancellingRuns();
    }
  });
  watch.start(100);
}

// Once nothing waits, trains or closes any more: the window as the runs left it.
void screenshotWhenRunsEnd(fl::gui::MainWindow& window, const QString& picture) {
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

// What the window shows first: the started runs, the opened ones, the study, the history.
void startOrOpen(fl::gui::MainWindow& window, const StartOptions& o, int64_t studyId) {
  if (o.start) {
    const bool comparison = o.compare;
    QTimer::singleShot(0, &window, [&window, comparison] {
      if (comparison)
        window.launchComparison();
      else
        window.launch();
    });
  } else if (!o.openIds.empty()) {
    if (o.openIds.size() == 1)
      window.openStoredRun(o.openIds.front());
    else
      window.compareRuns(o.openIds);
  } else if (!studyId && !o.history) {
    window.reopenStoppedAtClose();
  }
  if (studyId) window.openStudy(studyId);
  if (o.history) {
    window.refreshHistory();
    window.tabs()->setCurrentWidget(window.history());
  }
}

}  // namespace

int main(int argc, char** argv) {
  // A signal while the lab starts waits for its handler (InterruptSignals below).
  fl::InterruptSignals::holdUntilHandled();
  fl::letWritesFailInsteadOfKilling();
  fl::ensurePassiveOpenMpWait(argv);  // it may start the program again
  if (asksForTextOnly(argc, argv)) {
    QCoreApplication text(argc, argv);
    QCoreApplication::setApplicationName("FourierLab");
    QCoreApplication::setApplicationVersion(FOURIERLAB_VERSION);
    QCommandLineParser parser;
    declareOptions(parser);
    parser.process(text);  // prints the help or the version and exits
    return 0;
  }
  if (!hasDisplay(argc, argv))
    return usageError(
        "no display to open the window on (DISPLAY and WAYLAND_DISPLAY are unset): run it in a "
        "desktop session, under xvfb-run, or with QT_QPA_PLATFORM=offscreen (with --screenshot)");
  QApplication app(argc, argv);
  // SIGTERM (kill, a logout's or a cluster's), SIGHUP and Ctrl-C in the terminal close the
  // window as Quit does, without asking: every run cancelled cleanly, resumable; then the
  // shell's exit code for the signal (143, 129, 130).
  fl::InterruptSignals caught;
  QApplication::setApplicationName("FourierLab");
  QApplication::setApplicationVersion(FOURIERLAB_VERSION);

  QCommandLineParser parser;
  declareOptions(parser);
  // parse, not process: process ends an unknown option with exit code 1, the code of a failed
  // run; every other command-line mistake here is exit code 2.
  if (!parser.parse(QCoreApplication::arguments())) return usageError(parser.errorText());
  StartOptions options;
  if (auto code = readOptions(parser, options)) return *code;

  fl::ExperimentRegistry registry;
  fl::registerBuiltinExperiments(registry);
  // Before the window's own watch: a signal closes a dialog shown first (a store that cannot
  // be opened), which would otherwise wait for a click that a kill or a logout never gives.
  QTimer startWatch;
  QObject::connect(&startWatch, &QTimer::timeout, [&caught] {
    if (!caught.received()) return;
    if (QWidget* dialog = QApplication::activeModalWidget()) dialog->close();
  });
  startWatch.start(100);
  std::unique_ptr<fl::store::RunStore> store =
      openStore(options.storePath, !options.openIds.empty());
  if (caught.received()) return fl::InterruptSignals::exitCode(caught.received());
  if (!store) return kStoreError;
  int64_t studyId = 0;
  if (auto code = checkStoredIds(*store, options, studyId)) return *code;
  startWatch.stop();

  fl::gui::MainWindow window(registry, std::move(store));
  if (auto code = selectStart(window, registry, options)) return *code;
  // Offscreen there is no screen to fit: the picture is taken at the size the README's are
  // (the offscreen screen's 800 pixels cut off the Config diff button and the verdicts).
  if (options.screenshot && QGuiApplication::platformName() == "offscreen") {
    window.setWindowState(Qt::WindowNoState);
    window.resize(1920, 1080);
  }
  window.show();
  QTimer signalWatch;
  closeOnSignal(signalWatch, window, caught);
  if (options.screenshot) screenshotWhenRunsEnd(window, *options.screenshot);
  startOrOpen(window, options, studyId);
  const int code = app.exec();
  return caught.received() ? fl::InterruptSignals::exitCode(caught.received()) : code;
}
