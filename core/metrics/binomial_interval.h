// The Wilson score interval of a binomial proportion: k successes in n trials (passkey
// retrievals), the range of true rates p for which the observed rate p^ = k / n lies within z
// standard errors of p, i.e. the roots of (p^ - p)^2 = z^2 p (1 - p) / n:
//
//   centre    = (p^ + z^2 / 2n) / (1 + z^2 / n)
//   half      = z / (1 + z^2 / n) * sqrt(p^ (1 - p^) / n + z^2 / 4n^2)
//   interval  = [centre - half, centre + half]
//
// Unlike the normal approximation p^ +- z sqrt(p^ (1 - p^) / n) it stays inside [0, 1] and does
// not collapse to a point at 0/n or n/n (0 of 10 gives [0, 0.278]).
#pragma once

#include <cstdint>

namespace fl::metrics {

struct ProportionInterval {
  double estimate = 0;  // k / n
  double low = 0;
  double high = 1;
};

// z for a two-sided 95% interval: the 0.975 quantile of the standard normal.
constexpr double kZ95 = 1.959963984540054;

// k successes of n trials, 0 <= k <= n. n = 0: no information, the estimate NaN and [0, 1].
// Throws std::invalid_argument when k is outside [0, n] or z is not positive.
ProportionInterval wilsonInterval(int64_t successes, int64_t trials, double z = kZ95);

}  // namespace fl::metrics
