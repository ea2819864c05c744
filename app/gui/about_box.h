// The About box: FourierLab's version, Qt's, LibTorch's (and CUDA's), the BLAS loaded, the
// thread budget of this machine and the run store's path.
#pragma once

#include <QString>

class QWidget;

namespace fl::gui {

void showAboutBox(QWidget* parent, const QString& storePath, const QString& threadBudget);

}  // namespace fl::gui
