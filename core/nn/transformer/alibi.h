// ALiBi (Press et al.): no position embedding; each head adds -m_h * (i - j) to the score of
// query i on key j, a linear penalty on distance with a head-specific slope.
#pragma once

#include <vector>

#include <torch/types.h>

namespace fl::nn {

// The paper's slopes: for n heads a power of two, m_h = 2^(-8 h / n), h = 1 .. n; otherwise
// the slopes of the nearest lower power of two followed by every other slope of the next one
// (the reference implementation's rule).
std::vector<double> alibiSlopes(int64_t heads);

// The additive bias (heads, T, T): -m_h * (i - j) for j <= i. Entries above the diagonal are
// the distance's mirror; the causal mask removes them anyway.
torch::Tensor alibiBias(const std::vector<double>& slopes, int64_t length,
                        const torch::TensorOptions& options);

}  // namespace fl::nn
