#include "app/gui/metric_order.h"

#include <algorithm>

#include "core/engine/system_metrics.h"

namespace fl::gui {

namespace {

// Text order, except that runs of digits compare as the numbers they write. (QCollator's
// numeric mode needs ICU, which Qt is not always built with: its POSIX fallback ignores it.)
bool numbersAsNumbersLess(const QString& a, const QString& b) {
  qsizetype i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    if (a[i].isDigit() && b[j].isDigit()) {
      qsizetype endA = i, endB = j;
      while (endA < a.size() && a[endA].isDigit()) ++endA;
      while (endB < b.size() && b[endB].isDigit()) ++endB;
      // Without leading zeros, a longer run is a larger number; runs of one length compare
      // digit by digit.
      qsizetype startA = i, startB = j;
      while (startA + 1 < endA && a[startA] == '0') ++startA;
      while (startB + 1 < endB && b[startB] == '0') ++startB;
      const auto digitsA = a.mid(startA, endA - startA), digitsB = b.mid(startB, endB - startB);
      if (digitsA.size() != digitsB.size()) return digitsA.size() < digitsB.size();
      if (digitsA != digitsB) return digitsA < digitsB;
      i = endA;
      j = endB;
      continue;
    }
    if (a[i] != b[j]) return a[i] < b[j];
    ++i;
    ++j;
  }
  return a.size() - i < b.size() - j;
}

}  // namespace

QStringList inReadingOrder(const QStringList& metricKeys) {
  // Held out, other evaluations, training, the process.
  auto partOf = [](const QString& key) {
    if (isSystemMetric(key.toStdString())) return 3;
    if (key.startsWith("test/") || key.startsWith("val/")) return 0;
    return key.startsWith("train/") ? 2 : 1;
  };
  QStringList keys;
  for (const auto& key : metricKeys)
    if (!keys.contains(key)) keys << key;
  std::sort(keys.begin(), keys.end(), [&](const QString& a, const QString& b) {
    const int partA = partOf(a), partB = partOf(b);
    return partA != partB ? partA < partB : numbersAsNumbersLess(a, b);
  });
  return keys;
}

}  // namespace fl::gui
