// The file name, without its extension, of what the window exports of some runs: "run-4" for
// one, "runs-4-6-7" for several (the first six numbers in ascending order, then how many more).
// The plots' files ("runs-4-6-7-kl.png") and History's export ("runs-4-6-7.csv") share it, so the
// files of one comparison sort together.
#pragma once

#include <QString>

#include <cstdint>
#include <vector>

namespace fl::gui {

QString exportStem(std::vector<int64_t> runIds);

}  // namespace fl::gui
