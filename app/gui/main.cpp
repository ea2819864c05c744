// fourierlab: the desktop lab. The composition root: builds the registry and the run store,
// then the window, and connects them.
//   fourierlab [--db PATH] [--start EXPERIMENT [--preset NAME] [--compare]] [--open RUN_ID]
#include <QApplication>
#include <QCommandLineParser>
#include <QMessageBox>
#include <QTimer>

#include <cstdio>

#include "app/gui/launch_panel.h"
#include "app/gui/main_window.h"
#include "core/store/run_store.h"
#include "experiments/builtin_experiments.h"
#include "fourierlab/version.h"

int main(int argc, char** argv) {
  QApplication app(argc, argv);
  QApplication::setApplicationName("FourierLab");
  QApplication::setApplicationVersion(FOURIERLAB_VERSION);

  QCommandLineParser parser;
  parser.setApplicationDescription("FourierLab: a desktop lab for Fourier-structured neural layers");
  parser.addHelpOption();
  parser.addVersionOption();
  QCommandLineOption db("db", "Run store file (default: $XDG_DATA_HOME/fourierlab/runs.db).", "path");
  QCommandLineOption start("start", "Launch a run of EXPERIMENT at start-up.", "experiment");
  QCommandLineOption preset("preset", "With --start: the preset to use.", "name");
  QCommandLineOption open("open", "Open a stored run, or several to compare them overlaid "
                                  "(comma-separated, e.g. 3,4,5,6).", "run-ids");
  QCommandLineOption compare("compare", "With --start: launch the experiment's comparison "
                                        "(e.g. linear vs Fourier heads) side by side.");
  parser.addOptions({db, start, preset, open, compare});
  parser.process(app);

  fl::ExperimentRegistry registry;
  fl::registerBuiltinExperiments(registry);

  const std::string path = parser.isSet(db) ? parser.value(db).toStdString()
                                            : fl::store::RunStore::defaultPath();
  std::unique_ptr<fl::store::RunStore> store;
  try {
    store = std::make_unique<fl::store::RunStore>(path);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "store error: %s\n", e.what());
    QMessageBox::critical(nullptr, "FourierLab", QString("Cannot open the run store:\n%1").arg(e.what()));
    return 3;
  }

  fl::gui::MainWindow window(registry, std::move(store));
  window.show();
  if (parser.isSet(start)) {
    window.launchPanel()->selectExperiment(parser.value(start));
    if (parser.isSet(preset) && !window.launchPanel()->selectPreset(parser.value(preset))) {
      std::fprintf(stderr, "error: unknown preset '%s'\n", qPrintable(parser.value(preset)));
      return 2;
    }
    const bool comparison = parser.isSet(compare);
    QTimer::singleShot(0, &window, [&window, comparison] {
      if (comparison) window.launchComparison();
      else window.launch();
    });
  } else if (parser.isSet(open)) {
    std::vector<int64_t> ids;
    for (const auto& part : parser.value(open).split(',', Qt::SkipEmptyParts)) {
      bool ok = false;
      const qlonglong id = part.trimmed().toLongLong(&ok);
      if (!ok || id <= 0) {
        std::fprintf(stderr, "error: --open: '%s' is not a run id\n", qPrintable(part));
        return 2;
      }
      ids.push_back(id);
    }
    if (ids.size() == 1) window.openStoredRun(ids.front());
    else window.compareRuns(ids);
  }
  return app.exec();
}
