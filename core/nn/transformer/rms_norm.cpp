#include "core/nn/transformer/rms_norm.h"

#include <torch/torch.h>

namespace fl::nn {

RmsNormImpl::RmsNormImpl(int64_t dim, double eps)
    : m_eps(eps), m_weight(register_parameter("weight", torch::ones({dim}))) {}

torch::Tensor RmsNormImpl::forward(const torch::Tensor& x) {
  return x * torch::rsqrt(x.pow(2).mean(-1, /*keepdim=*/true) + m_eps) * m_weight;
}

}  // namespace fl::nn
