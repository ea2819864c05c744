#include "app/gui/export_stem.h"

#include <QStringList>

#include <algorithm>

namespace fl::gui {

QString exportStem(std::vector<int64_t> runIds) {
  // In ascending order, however they were picked or focused: one set of runs, one name.
  std::sort(runIds.begin(), runIds.end());
  if (runIds.size() == 1) return QString("run-%1").arg(runIds.front());
  constexpr size_t kNamed = 6;
  QStringList numbers;
  for (size_t i = 0; i < runIds.size() && i < kNamed; ++i) numbers << QString::number(runIds[i]);
  QString stem = "runs-" + numbers.join('-');
  if (runIds.size() > kNamed) stem += QString("-and-%1-more").arg(runIds.size() - kNamed);
  return stem;
}

}  // namespace fl::gui
