// The kinds of mistakes an addition model makes (Zhou et al. 2024, Section 3.2 and 4): the
// distribution of prediction - answer over its wrong answers. With the MLPs' low frequencies
// removed the paper's model is off by multiples of 10 (it keeps the units digit, loses the
// magnitude); with attention's high frequencies removed it is off by less than 6 (it keeps the
// magnitude, loses the units digit); a model trained from scratch is off by 1 or 2.
#pragma once

#include <cstdint>
#include <vector>

#include <torch/types.h>

namespace fl::addition {

struct ErrorTypes {
  int64_t problems = 0;
  int64_t wrong = 0;
  int64_t notANumber = 0;  // wrong answers that are not a number token ('+' or '=')
  // Wrong answers per error e = prediction - answer in -window-1 .. window+1 (index
  // e + window + 1); the two outer bins hold every error beyond +-window, and e = 0 holds none.
  int64_t window = 0;
  std::vector<int64_t> counts;
  // Shares of the wrong answers (0 when there are none): a nonzero multiple of 10, |e| < 6 and
  // |e| <= 2. A prediction that is not a number counts in the denominator only.
  double shareMultipleOf10 = 0;
  double shareSmall = 0;
  double shareWithin2 = 0;

  int64_t errorAt(size_t bin) const { return static_cast<int64_t>(bin) - window - 1; }
};

// predictions, answers: (P) integer tokens; tokens >= numbers are not numbers.
ErrorTypes countErrorTypes(const torch::Tensor& predictions, const torch::Tensor& answers,
                           int64_t numbers, int64_t window = 30);

}  // namespace fl::addition
