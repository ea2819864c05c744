#include "widgets/step_ticker.h"

#include <cmath>

namespace fl::widgets {

QString compactCount(double value) {
  const double magnitude = std::abs(value);
  if (magnitude < 1000) return QString::number(value, 'g', 4);
  const bool millions = magnitude >= 1e6;
  // At most three significant digits: ticks are round numbers, so nothing is lost.
  return QString::number(value / (millions ? 1e6 : 1e3), 'g', 3) + (millions ? "M" : "k");
}

QString StepTicker::getTickLabel(double tick, const QLocale&, QChar, int) { return compactCount(tick); }

}  // namespace fl::widgets
