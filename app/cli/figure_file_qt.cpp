// Figures through the GUI's own widget, rendered offscreen: no display is needed (a CI
// machine, a cluster's login node over ssh).
#include <QApplication>
#include <QDir>
#include <QFile>

#include <memory>

#include "app/cli/figure_file.h"
#include "widgets/study_figure_plot.h"

namespace fl::cli {

std::string writeStudyFigure(const study::StudyFigure& figure, const std::string& path, int width,
                             int height) {
  std::unique_ptr<QApplication> app;
  if (!QApplication::instance()) {
    qputenv("QT_QPA_PLATFORM", "offscreen");
    // Over ssh or in a batch job XDG_RUNTIME_DIR is often unset, and Qt then prints a warning
    // on every plot; a private folder of our own (what Qt would fall back to) keeps it quiet.
    if (qEnvironmentVariableIsEmpty("XDG_RUNTIME_DIR")) {
      const QString dir = QDir::tempPath() + "/fourierlab-runtime-" + qgetenv("USER");
      if (QDir().mkpath(dir) &&
          QFile::setPermissions(dir, QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner))
        qputenv("XDG_RUNTIME_DIR", dir.toLocal8Bit());
    }
    static int argc = 1;
    static char name[] = "fourierlab-cli";
    static char* argv[] = {name, nullptr};
    app = std::make_unique<QApplication>(argc, argv);
  }
  widgets::StudyFigurePlot plot;
  plot.resize(width, height);
  plot.setFigure(figure);
  return plot.save(QString::fromStdString(path), width, height).toStdString();
}

}  // namespace fl::cli
