#include "widgets/step_ticker.h"

#include <cmath>

namespace fl::widgets {

QString compactCount(double value) {
  const double magnitude = std::abs(value);
  if (magnitude < 1000) return QString::number(value, 'g', 4);
  const bool millions = magnitude >= 1e6;
  const double unit = millions ? 1e6 : 1e3;
  // Three significant digits say a round tick exactly (20k, 1.5M); a zoomed-in tick they would
  // round (10025 -> "10k", like its neighbour) is written out whole instead.
  const QString compact = QString::number(value / unit, 'g', 3);
  const bool exact = std::abs(compact.toDouble() * unit - value) <= 1e-9 * magnitude;
  return exact ? compact + (millions ? "M" : "k") : QString::number(value, 'f', 0);
}

double IntegerTicker::getTickStep(const QCPRange& range) {
  const double step = QCPAxisTicker::getTickStep(range);
  // 2.5 would put ticks between whole numbers: 2 keeps them on them.
  return step < 1 ? 1.0 : std::floor(step);
}

int IntegerTicker::getSubTickCount(double tickStep) {
  // Sub-ticks only where they land on whole numbers.
  const int whole = static_cast<int>(std::lround(tickStep));
  if (whole <= 1) return 0;
  return whole <= 5 ? whole - 1 : QCPAxisTicker::getSubTickCount(tickStep);
}

QVector<QString> compactCounts(const QVector<double>& ticks) {
  QVector<QString> labels;
  bool whole = false;
  for (const double tick : ticks) {
    labels << compactCount(tick);
    // At a thousand or more a label without its k or M was one compactCount wrote out whole.
    whole = whole || (std::abs(tick) >= 1000 && labels.back().back().isDigit());
  }
  if (whole)
    for (int i = 0; i < ticks.size(); ++i) labels[i] = QString::number(ticks[i], 'f', 0);
  return labels;
}

QString StepTicker::getTickLabel(double tick, const QLocale&, QChar, int) {
  return compactCount(tick);
}

QVector<QString> StepTicker::createLabelVector(const QVector<double>& ticks, const QLocale&, QChar,
                                               int) {
  return compactCounts(ticks);
}

bool allWholeNumbers(const QVector<double>& values) {
  bool any = false;
  for (double v : values) {
    if (!std::isfinite(v)) continue;
    if (v != std::round(v)) return false;
    any = true;
  }
  return any;
}

}  // namespace fl::widgets
