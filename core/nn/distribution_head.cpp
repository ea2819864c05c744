#include "core/nn/distribution_head.h"

#include <torch/torch.h>

namespace fl::nn {

torch::Tensor binCenters(int64_t bins, const torch::TensorOptions& options) {
  // -1 + (2i + 1) / m, computed in double then cast, so every dtype gets the same centres.
  auto i = torch::arange(bins, torch::TensorOptions().dtype(torch::kDouble));
  return (-1.0 + (2.0 * i + 1.0) / static_cast<double>(bins)).to(options);
}

}  // namespace fl::nn
