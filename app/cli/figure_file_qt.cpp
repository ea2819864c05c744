// Figures through the GUI's own widget, rendered offscreen: no display is needed (a CI
// machine, a cluster's login node over ssh).
#include <QApplication>

#include <memory>

#include "app/cli/figure_file.h"
#include "widgets/study_figure_plot.h"

namespace fl::cli {

std::string writeStudyFigure(const study::StudyFigure& figure, const std::string& path, int width,
                             int height) {
  std::unique_ptr<QApplication> app;
  if (!QApplication::instance()) {
    qputenv("QT_QPA_PLATFORM", "offscreen");
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
