// Figures through the GUI's own widget, rendered offscreen: no display is needed (a CI
// machine, a cluster's login node over ssh).
#include <QApplication>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QTemporaryDir>

#include <memory>

#include "app/cli/figure_file.h"
#include "core/engine/atomic_file.h"
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
  // Drawn into a private file first, then written to `path` through AtomicFile: a full disk or a
  // missing folder leaves no half figure under the final name and is named as such, as exports.
  QTemporaryDir scratch;
  if (!scratch.isValid()) return "cannot write " + path + ": no temporary folder to draw in";
  const QString drawn =
      scratch.filePath("figure." + QFileInfo(QString::fromStdString(path)).suffix());
  const QString error = plot.save(drawn, width, height);
  if (!error.isEmpty()) return error.toStdString();
  QFile file(drawn);
  if (!file.open(QIODevice::ReadOnly))
    return "cannot write " + path + ": the drawn figure vanished";
  const QByteArray bytes = file.readAll();
  try {
    AtomicFile out(path);
    out.write(bytes.constData(), static_cast<size_t>(bytes.size()));
    out.commit();
  } catch (const std::exception& e) {
    return e.what();
  }
  return {};
}

}  // namespace fl::cli
