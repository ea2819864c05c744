#include "core/nn/linear_head.h"

#include <torch/torch.h>

namespace fl::nn {

LinearHeadImpl::LinearHeadImpl(int64_t inFeatures, int64_t bins) : m_bins(bins) {
  m_linear = register_module("linear", torch::nn::Linear(inFeatures, bins));
}

HeadOutput LinearHeadImpl::forwardRows(const torch::Tensor& h) { return {m_linear(h), {}}; }

torch::Tensor LinearHeadImpl::densityRows(const torch::Tensor& h, const torch::Tensor& z) {
  auto q = torch::softmax(m_linear(h), /*dim=*/1);  // (B, m)
  auto bin = ((z.to(torch::kDouble) + 1.0) * 0.5 * static_cast<double>(m_bins))
                 .floor()
                 .clamp(0, m_bins - 1)
                 .to(torch::kLong)
                 .to(h.device());                                               // (Z)
  return q.index_select(/*dim=*/1, bin) * (0.5 * static_cast<double>(m_bins));  // (B, Z)
}

}  // namespace fl::nn
