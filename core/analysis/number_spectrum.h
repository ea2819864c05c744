// Fourier analysis along a number axis (Zhou et al., arXiv 2406.03445): rows of a matrix indexed
// by the numbers 0 .. M-1 (an embedding matrix, or logits over number tokens) transformed over
// that axis. Frequency k of M means a period of M / k numbers.
#pragma once

#include <vector>

#include <torch/types.h>

namespace fl::analysis {

// |DFT| per frequency: for E (M, d), the L2 norm over d of rfft(E, dim 0): (M/2 + 1).
torch::Tensor numberAxisMagnitudes(const torch::Tensor& rows);

struct PeriodPeak {
  int64_t bin = 0;
  double period = 0;
  double magnitude = 0;
};
// The `count` strongest non-constant frequencies (k >= 1), strongest first.
std::vector<PeriodPeak> topPeriods(const torch::Tensor& magnitudes, int64_t numbers, int64_t count);

// Splits z (..., M) over the number axis into its low- and high-frequency parts (z = low + high):
// a frequency counts as high when its period M / k is at most `cutoffPeriod` (the paper's
// split: k >= 50 of 520, periods <= 10.4).
struct FrequencyBands {
  torch::Tensor low;
  torch::Tensor high;
};
FrequencyBands splitByPeriod(const torch::Tensor& z, double cutoffPeriod);

// Which of the frequencies k = 0 .. M/2 of M numbers count as high, by the same rule (k >= M /
// cutoffPeriod): a (M/2 + 1) boolean mask.
torch::Tensor highFrequencyMask(int64_t numbers, double cutoffPeriod,
                                const torch::TensorOptions& options);

}  // namespace fl::analysis
