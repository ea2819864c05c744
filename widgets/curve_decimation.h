// Per-pixel-column min/max decimation of a curve for display: at most four points per column
// (the first, the min, the max, the last, in x order), so a spike one sample wide still shows
// and the line between columns stays continuous. Never random subsampling. Plain C++.
#pragma once

#include <cstddef>
#include <vector>

namespace fl::widgets {

struct Curve {
  std::vector<double> x;
  std::vector<double> y;
};

// x must be ascending. Points in [xMin, xMax] are bucketed into `columns` equal columns; the
// nearest point outside on each side is kept so the line runs to the plot's edges. Curves
// with no more than 4 points per column are returned whole.
Curve decimateMinMax(const std::vector<double>& x, const std::vector<double>& y, double xMin,
                     double xMax, int columns);

// TensorBoard-style exponential moving average with bias correction; weight in [0, 1),
// 0 = no smoothing. NaNs are skipped (their position repeats the running value).
std::vector<double> smoothEma(const std::vector<double>& y, double weight);

// The same EMA, continued: extends `smoothed` (the EMA of y's first smoothed.size() values,
// with `state` carried between calls) to cover all of y. A live curve pays only for new points.
struct EmaState {
  double last = 0;
  double count = 0;
};
void extendEma(const std::vector<double>& y, double weight, EmaState& state,
               std::vector<double>& smoothed);

}  // namespace fl::widgets
