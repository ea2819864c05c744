// Number-embedding initialisation: `random` (the model's N(0, 0.02)), or `fourier`: the first
// 2P dimensions of number n's row set to A cos(2 pi n / T_i), A sin(2 pi n / T_i) for the
// periods T_1 .. T_P (default 2, 2.5, 5, 10, 100: the periods pre-trained LLMs show), the other
// dimensions left random.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <torch/types.h>

namespace fl::addition {

std::optional<std::string> checkPeriodList(const std::string& text);  // "2,2.5,5,10,100"
std::vector<double> parsePeriodList(const std::string& text);

// Writes the Fourier features into rows 0 .. numbers-1 of `embedding` (V, d), in place.
void writeFourierFeatures(torch::Tensor embedding, int64_t numbers,
                          const std::vector<double>& periods, double amplitude);

}  // namespace fl::addition
