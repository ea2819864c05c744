#include "core/engine/figures_apart.h"

#include <cmath>
#include <cstdio>

namespace fl {

namespace {

std::string figure(double value, int places) {
  char text[48];
  const double a = std::abs(value);
  if (!std::isfinite(value) || (a != 0 && (a < 1e-3 || a >= 1e4)))
    std::snprintf(text, sizeof text, "%.*g", places, value);
  else
    std::snprintf(text, sizeof text, "%.*f", places, value);
  return text;
}

}  // namespace

FiguresApart figuresApart(double first, double second) {
  constexpr int kFewest = 3, kMost = 9;
  FiguresApart out;
  for (int places = kFewest; places <= kMost; ++places) {
    out = {figure(first, places), figure(second, places)};
    if (out.first != out.second || first == second) break;
  }
  return out;
}

}  // namespace fl
