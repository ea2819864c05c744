#include "core/nn/transformer/rotary.h"

#include <cmath>

#include <torch/torch.h>

namespace fl::nn {

std::vector<double> ropeFrequencies(int64_t headDim, double theta) {
  TORCH_CHECK(headDim > 0 && headDim % 2 == 0, "rotary embeddings need an even head size, got ",
              headDim);
  std::vector<double> w(static_cast<size_t>(headDim / 2));
  for (size_t j = 0; j < w.size(); ++j)
    w[j] = std::pow(theta, -2.0 * static_cast<double>(j) / static_cast<double>(headDim));
  return w;
}

double floorFrequency(int64_t trainLength) { return 2.0 * M_PI / static_cast<double>(trainLength); }

std::vector<double> clipFloorFrequencies(std::vector<double> frequencies, int64_t trainLength) {
  const double floor = floorFrequency(trainLength);
  for (auto& w : frequencies)
    if (w < floor) w = 0.0;
  return frequencies;
}

torch::Tensor rotatePairs(const torch::Tensor& x, const torch::Tensor& cos,
                          const torch::Tensor& sin) {
  const int64_t half = x.size(-1) / 2;
  auto a = x.narrow(-1, 0, half);
  auto b = x.narrow(-1, half, half);
  return torch::cat({a * cos - b * sin, b * cos + a * sin}, -1);
}

torch::Tensor rotaryAngles(const std::vector<double>& frequencies, int64_t length, int64_t offset) {
  auto positions = torch::arange(offset, offset + length, torch::kDouble).unsqueeze(1);
  auto w = torch::tensor(frequencies, torch::kDouble).unsqueeze(0);
  return positions * w;
}

}  // namespace fl::nn
