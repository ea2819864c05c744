#include "widgets/curve_decimation.h"

#include <algorithm>
#include <cmath>

namespace fl::widgets {

Curve decimateMinMax(const std::vector<double>& x, const std::vector<double>& y, double xMin,
                     double xMax, int columns) {
  const size_t n = std::min(x.size(), y.size());
  const auto first =
      static_cast<size_t>(std::lower_bound(x.begin(), x.begin() + n, xMin) - x.begin());
  const auto last =
      static_cast<size_t>(std::upper_bound(x.begin(), x.begin() + n, xMax) - x.begin());
  const size_t begin = first > 0 ? first - 1 : 0;  // one point beyond each edge
  const size_t end = last < n ? last + 1 : n;
  Curve out;
  if (columns <= 0 || end - begin <= static_cast<size_t>(4 * std::max(columns, 1)) ||
      xMax <= xMin) {
    out.x.assign(x.begin() + begin, x.begin() + end);
    out.y.assign(y.begin() + begin, y.begin() + end);
    return out;
  }
  out.x.reserve(4 * columns + 2);
  out.y.reserve(4 * columns + 2);
  auto push = [&](size_t i) {
    if (!out.x.empty() && out.x.back() == x[i] && out.y.back() == y[i]) return;
    out.x.push_back(x[i]);
    out.y.push_back(y[i]);
  };
  if (begin < first) push(begin);
  const double width = (xMax - xMin) / columns;
  size_t i = first;
  while (i < last) {
    const auto column = static_cast<long>(std::floor((x[i] - xMin) / width));
    const size_t start = i;
    size_t lo = i, hi = i;
    while (i < last && static_cast<long>(std::floor((x[i] - xMin) / width)) == column) {
      if (y[i] < y[lo] || std::isnan(y[lo])) lo = i;
      if (y[i] > y[hi] || std::isnan(y[hi])) hi = i;
      ++i;
    }
    // In x order, so the drawn line passes through both extremes of the column.
    size_t picks[4] = {start, std::min(lo, hi), std::max(lo, hi), i - 1};
    for (size_t p : picks) push(p);
  }
  if (end > last) push(end - 1);
  return out;
}

void extendEma(const std::vector<double>& y, double weight, EmaState& state,
               std::vector<double>& smoothed) {
  for (size_t i = smoothed.size(); i < y.size(); ++i) {
    if (std::isfinite(y[i])) {
      state.last = state.last * weight + (1 - weight) * y[i];
      ++state.count;
    }
    const double debias = weight > 0 ? 1 - std::pow(weight, state.count) : 1;
    smoothed.push_back(state.count > 0 ? state.last / debias : NAN);
  }
}

std::vector<double> smoothEma(const std::vector<double>& y, double weight) {
  std::vector<double> out;
  out.reserve(y.size());
  EmaState state;
  extendEma(y, weight, state, out);
  return out;
}

}  // namespace fl::widgets
