#include "core/study/f_distribution.h"

#include <algorithm>
#include <cmath>

namespace fl::study {

namespace {

// The continued fraction of I_x(a, b) (its even and odd terms in one step), by the modified
// Lentz method; it converges for x < (a + 1) / (a + b + 2).
double betaContinuedFraction(double a, double b, double x) {
  constexpr int kMaxTerms = 500;
  constexpr double kTolerance = 1e-15;
  constexpr double kTiny = 1e-300;  // keeps a vanishing denominator from dividing by zero
  auto guarded = [](double v) { return std::abs(v) < kTiny ? kTiny : v; };
  double c = 1;
  double d = 1 / guarded(1 - (a + b) * x / (a + 1));
  double h = d;
  for (int m = 1; m <= kMaxTerms; ++m) {
    const double m2 = 2.0 * m;
    double term = m * (b - m) * x / ((a - 1 + m2) * (a + m2));
    d = 1 / guarded(1 + term * d);
    c = guarded(1 + term / c);
    h *= d * c;
    term = -(a + m) * (a + b + m) * x / ((a + m2) * (a + 1 + m2));
    d = 1 / guarded(1 + term * d);
    c = guarded(1 + term / c);
    const double step = d * c;
    h *= step;
    if (std::abs(step - 1) < kTolerance) break;
  }
  return h;
}

}  // namespace

double regularizedIncompleteBeta(double a, double b, double x) {
  if (x <= 0) return 0;
  if (x >= 1) return 1;
  const double logFront =
      std::lgamma(a + b) - std::lgamma(a) - std::lgamma(b) + a * std::log(x) + b * std::log1p(-x);
  // On the side where the fraction converges; the other side by I_x(a, b) = 1 - I_{1-x}(b, a).
  if (x < (a + 1) / (a + b + 2)) return std::exp(logFront) * betaContinuedFraction(a, b, x) / a;
  return 1 - std::exp(logFront) * betaContinuedFraction(b, a, 1 - x) / b;
}

double fLowerTail(double x, double d1, double d2) {
  if (x <= 0) return 0;
  if (std::isinf(x)) return 1;
  return regularizedIncompleteBeta(d1 / 2, d2 / 2, d1 * x / (d1 * x + d2));
}

double fUpperTail(double x, double d1, double d2) {
  if (x <= 0) return 1;
  if (std::isinf(x)) return 0;
  // 1 / X follows F(d2, d1): P(X > x) = P(1 / X < 1 / x).
  return regularizedIncompleteBeta(d2 / 2, d1 / 2, d2 / (d2 + d1 * x));
}

double spreadRatioP(double spreadA, int nA, double spreadB, int nB) {
  if (spreadA == 0 && spreadB == 0) return 1;
  if (spreadA == 0 || spreadB == 0) return 0;
  const double ratio = (spreadA * spreadA) / (spreadB * spreadB);
  const double d1 = nA - 1, d2 = nB - 1;
  const double tail = std::min(fLowerTail(ratio, d1, d2), fUpperTail(ratio, d1, d2));
  return std::min(1.0, 2 * tail);
}

}  // namespace fl::study
