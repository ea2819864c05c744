// Writes a study's paper-style figure to an SVG, PNG or PDF file, without a screen. Built with
// Qt (widgets/study_figure_plot draws it); the Qt-free build (FOURIERLAB_CORE_ONLY) says so.
#pragma once

#include <string>

#include "core/study/study_figure.h"

namespace fl::cli {

// Returns "" on success, else what went wrong (naming the file).
std::string writeStudyFigure(const study::StudyFigure& figure, const std::string& path, int width,
                             int height);

}  // namespace fl::cli
