#include "core/metrics/binomial_interval.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

namespace fl::metrics {

ProportionInterval wilsonInterval(int64_t successes, int64_t trials, double z) {
  if (trials < 0 || successes < 0 || successes > trials)
    throw std::invalid_argument("a proportion needs 0 <= successes <= trials, got " +
                                std::to_string(successes) + " of " + std::to_string(trials));
  if (!(z > 0)) throw std::invalid_argument("the interval's z must be positive");
  if (trials == 0) return {std::numeric_limits<double>::quiet_NaN(), 0.0, 1.0};
  const double n = static_cast<double>(trials);
  const double p = static_cast<double>(successes) / n;
  const double z2 = z * z;
  const double denominator = 1 + z2 / n;
  const double centre = (p + z2 / (2 * n)) / denominator;
  const double half = z / denominator * std::sqrt(p * (1 - p) / n + z2 / (4 * n * n));
  // In exact arithmetic low <= p <= high, and at 0/n and n/n an end is exactly 0 or 1 (the
  // rounding gives 0.9999999999999999); keep both true.
  return {p, std::clamp(std::min(centre - half, p), 0.0, 1.0),
          std::clamp(std::max(centre + half, p), 0.0, 1.0)};
}

}  // namespace fl::metrics
