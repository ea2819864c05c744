#include "app/gui/about_box.h"

#include <QMessageBox>

#include "core/engine/build_info.h"
#include "fourierlab/version.h"

namespace fl::gui {

void showAboutBox(QWidget* parent, const QString& storePath, const QString& threadBudget) {
  const BuildInfo info = currentBuildInfo();
  const QString cuda = info.cudaAvailable
                           ? QString(", CUDA with %1 device(s)").arg(info.cudaDevices)
                           : QString(", CPU only");
  QMessageBox::about(
      parent, "About FourierLab",
      QString("<h3>FourierLab %1</h3><p>A desktop lab for Fourier-structured neural "
              "layers.</p><p>Qt %2<br>LibTorch %3%4<br>BLAS: %5<br>Parallel runs: "
              "%6</p><p>Run store: %7</p>")
          .arg(FOURIERLAB_VERSION, qVersion(), QString::fromStdString(info.torchVersion), cuda,
               QString::fromStdString(info.blasLibrary).toHtmlEscaped(), threadBudget,
               storePath.toHtmlEscaped()));
}

}  // namespace fl::gui
