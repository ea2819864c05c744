#include "core/nn/distribution_head.h"

#include <torch/torch.h>

namespace fl::nn {

namespace {

// (..., in) -> (rows, in), and the sizes to give the output back its leading dimensions.
std::pair<torch::Tensor, std::vector<int64_t>> asRows(const torch::Tensor& h) {
  TORCH_CHECK(h.dim() >= 1,
              "a distribution head needs inputs of shape (..., in_features), got a scalar");
  std::vector<int64_t> leading(h.sizes().begin(), h.sizes().end() - 1);
  return {h.reshape({-1, h.size(-1)}), leading};
}

torch::Tensor withLeading(const torch::Tensor& rows, std::vector<int64_t> leading) {
  leading.push_back(rows.size(-1));
  return rows.reshape(leading);
}

}  // namespace

HeadOutput DistributionHeadImpl::forward(const torch::Tensor& h) {
  if (h.dim() == 2) return forwardRows(h);
  auto [rows, leading] = asRows(h);
  HeadOutput out = forwardRows(rows);
  out.logits = withLeading(out.logits, std::move(leading));
  return out;
}

torch::Tensor DistributionHeadImpl::density(const torch::Tensor& h, const torch::Tensor& z) {
  if (h.dim() == 2) return densityRows(h, z);
  auto [rows, leading] = asRows(h);
  return withLeading(densityRows(rows, z), std::move(leading));
}

torch::Tensor binCenters(int64_t bins, const torch::TensorOptions& options) {
  // -1 + (2i + 1) / m, computed in double then cast, so every dtype gets the same centres.
  auto i = torch::arange(bins, torch::TensorOptions().dtype(torch::kDouble));
  return (-1.0 + (2.0 * i + 1.0) / static_cast<double>(bins)).to(options);
}

}  // namespace fl::nn
