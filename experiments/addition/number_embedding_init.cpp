#include "experiments/addition/number_embedding_init.h"

#include <cmath>
#include <stdexcept>

#include <torch/torch.h>

#include "experiments/common/number_list.h"

namespace fl::addition {

std::optional<std::string> checkPeriodList(const std::string& text) {
  return transformer_setup::checkNumberList(
      text,
      [](double v) -> std::optional<std::string> {
        // Up to 1e6 numbers per cycle, as cutoff_period: longer is a constant feature.
        if (!(v >= 2.0 && v <= 1e6)) return "is not a period in [2, 1e6] (numbers per cycle)";
        return std::nullopt;
      },
      "2,2.5,5,10,100");
}

std::vector<double> parsePeriodList(const std::string& text) {
  return transformer_setup::parseNumberList(text);
}

void writeFourierFeatures(torch::Tensor embedding, int64_t numbers,
                          const std::vector<double>& periods, double amplitude) {
  const int64_t needed = 2 * static_cast<int64_t>(periods.size());
  if (needed > embedding.size(1))
    throw std::invalid_argument("fourier embedding: " + std::to_string(periods.size()) +
                                " periods need " + std::to_string(needed) +
                                " dimensions, d_model is " + std::to_string(embedding.size(1)));
  torch::NoGradGuard noGrad;
  auto n = torch::arange(numbers, torch::kDouble);
  for (size_t i = 0; i < periods.size(); ++i) {
    auto angle = 2.0 * M_PI * n / periods[i];
    embedding.narrow(0, 0, numbers)
        .select(1, 2 * static_cast<int64_t>(i))
        .copy_(amplitude * torch::cos(angle));
    embedding.narrow(0, 0, numbers)
        .select(1, 2 * static_cast<int64_t>(i) + 1)
        .copy_(amplitude * torch::sin(angle));
  }
}

}  // namespace fl::addition
