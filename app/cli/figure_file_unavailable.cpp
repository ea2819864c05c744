// The Qt-free build of fourierlab-cli (FOURIERLAB_CORE_ONLY) has no renderer for figures.
#include "app/cli/figure_file.h"

namespace fl::cli {

std::string writeStudyFigure(const study::StudyFigure&, const std::string& path, int, int) {
  return "cannot write " + path +
         ": this fourierlab-cli was built without Qt "
         "(FOURIERLAB_CORE_ONLY); `sweep table` and `sweep export` work here, plot on a build "
         "with Qt";
}

}  // namespace fl::cli
