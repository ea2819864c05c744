// Two numbers compared in one sentence ("|Δ| 0.0044 > 0.0042"), printed with enough places that
// unequal numbers read unequal: "|Δ| 0.004 > 0.004" put a verdict against its own figures.
#pragma once

#include <string>

namespace fl {

struct FiguresApart {
  std::string first, second;
};

// Each as "%.3f" ("%.3g" under 0.001 or from 10000 on), with a place more, up to nine, until the
// two texts differ where the numbers do.
FiguresApart figuresApart(double first, double second);

}  // namespace fl
