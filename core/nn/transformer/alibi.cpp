#include "core/nn/transformer/alibi.h"

#include <cmath>

#include <torch/torch.h>

namespace fl::nn {

namespace {
std::vector<double> powerOfTwoSlopes(int64_t n) {
  std::vector<double> slopes;
  const double start = std::pow(2.0, -8.0 / static_cast<double>(n));
  for (int64_t h = 1; h <= n; ++h) slopes.push_back(std::pow(start, static_cast<double>(h)));
  return slopes;
}
}  // namespace

std::vector<double> alibiSlopes(int64_t heads) {
  TORCH_CHECK(heads > 0, "ALiBi needs at least one head");
  int64_t lower = 1;
  while (lower * 2 <= heads) lower *= 2;
  auto slopes = powerOfTwoSlopes(lower);
  if (lower == heads) return slopes;
  const auto next = powerOfTwoSlopes(2 * lower);
  for (int64_t i = 0; static_cast<int64_t>(slopes.size()) < heads; i += 2)
    slopes.push_back(next[static_cast<size_t>(i)]);
  return slopes;
}

torch::Tensor alibiBias(const std::vector<double>& slopes, int64_t length,
                        const torch::TensorOptions& options) {
  // Built where it is used, in its dtype: distances are exact in float up to 2^24 tokens, and a
  // double (H, T, T) on the host would be the largest temporary of a long evaluation.
  auto i = torch::arange(length, options).unsqueeze(1);
  auto j = torch::arange(length, options).unsqueeze(0);
  auto distance = (i - j).abs();                                                // (T, T)
  auto m = torch::tensor(slopes, torch::kDouble).to(options).view({-1, 1, 1});  // (H, 1, 1)
  return -m * distance.unsqueeze(0);
}

}  // namespace fl::nn
