#include "widgets/snapshot_data.h"

#include <algorithm>

namespace fl::widgets {

int64_t rowCount(const Snapshot& s) {
  if (s.shape.empty()) return 0;
  return s.numel() / std::max<int64_t>(s.shape.back(), 1);
}

bool rowOf(const Snapshot& s, int64_t row, QVector<double>& x, QVector<double>& y) {
  if (s.shape.empty() || row < 0 || row >= rowCount(s)) return false;
  const int64_t width = s.shape.back();
  if (s.data.size() < static_cast<size_t>((row + 1) * width)) return false;  // a malformed snapshot
  const std::vector<float>* ticks = s.axes.empty() ? nullptr : &s.axes.back().ticks;
  const bool hasTicks = ticks && ticks->size() == static_cast<size_t>(width);
  x.resize(static_cast<int>(width));
  y.resize(static_cast<int>(width));
  for (int64_t i = 0; i < width; ++i) {
    x[i] = hasTicks ? (*ticks)[static_cast<size_t>(i)] : static_cast<double>(i);
    y[i] = s.data[static_cast<size_t>(row * width + i)];
  }
  return true;
}

QStringList metaStrings(const Snapshot& s, const char* key) {
  QStringList out;
  if (!s.meta.is_object() || !s.meta.contains(key) || !s.meta[key].is_array()) return out;
  for (const auto& v : s.meta[key]) {
    if (!v.is_string()) return {};
    out << QString::fromStdString(v.get<std::string>());
  }
  return out;
}

QString axisTitle(const SnapshotAxis& axis) {
  const QString label = QString::fromStdString(axis.label);
  if (axis.unit.empty()) return label;
  return QString("%1 (%2)").arg(label, QString::fromStdString(axis.unit));
}

}  // namespace fl::widgets
