// The F distribution, for asking whether two samples' spreads differ: under equal variances the
// ratio s_a^2 / s_b^2 of sample variances over n_a and n_b values follows F(n_a - 1, n_b - 1).
// Its distribution function is the regularised incomplete beta function,
//
//   P(X <= x) = I_z(d1 / 2, d2 / 2),   z = d1 x / (d1 x + d2),
//
// evaluated by its continued fraction (Lentz's method), which converges quickly on the side of
// its mean that it is used on. Debian's math libraries that the lab links hold no incomplete
// beta, and this one function did not justify Boost.Math's headers in the set-up and the GPU
// carry.
#pragma once

namespace fl::study {

// I_x(a, b) for a, b > 0 and x in [0, 1].
double regularizedIncompleteBeta(double a, double b, double x);

// P(X <= x) and P(X > x) for X ~ F(d1, d2); the upper tail is computed as such, not as 1 - the
// lower one, so a tiny tail keeps its digits.
double fLowerTail(double x, double d1, double d2);
double fUpperTail(double x, double d1, double d2);

// Two-sided p of the variance-ratio test of two samples' standard deviations over nA and nB
// values (each >= 2): how likely a ratio at least this far from 1 is when the variances are
// equal. Both spreads 0 give 1; one of them 0 gives 0.
double spreadRatioP(double spreadA, int nA, double spreadB, int nB);

}  // namespace fl::study
