#include "core/nn/transformer/causal_self_attention.h"

#include <cmath>
#include <limits>

#include <torch/torch.h>

namespace fl::nn {

CausalSelfAttentionImpl::CausalSelfAttentionImpl(int64_t dModel, int64_t heads, double dropout,
                                                 at::Generator generator, PositionEncoding position,
                                                 std::shared_ptr<QkFilterImpl> filter)
    : m_heads(heads), m_position(std::move(position)), m_filter(std::move(filter)) {
  m_qkv = register_module("qkv", torch::nn::Linear(torch::nn::LinearOptions(dModel, 3 * dModel).bias(false)));
  m_out = register_module("out", torch::nn::Linear(torch::nn::LinearOptions(dModel, dModel).bias(false)));
  m_attentionDropout = register_module("attention_dropout", SeededDropout(dropout, generator));
  m_residualDropout = register_module("residual_dropout", SeededDropout(dropout, generator));
  if (m_filter) register_module("qk_filter", m_filter);
  // The position encoding is shared by every layer and registered once, by the model.
}

torch::Tensor CausalSelfAttentionImpl::forward(const torch::Tensor& x) {
  const int64_t b = x.size(0), t = x.size(1), d = x.size(2), hd = d / m_heads;
  // (B, T, 3d) -> 3 x (B, H, T, D)
  auto qkv = m_qkv->forward(x).view({b, t, 3, m_heads, hd}).permute({2, 0, 3, 1, 4});
  auto q = qkv[0], k = qkv[1], v = qkv[2];
  if (m_filter) {
    q = m_filter->forward(q);
    k = m_filter->forward(k);
  }
  std::tie(q, k) = m_position->rotate(q, k);
  auto scores = torch::matmul(q, k.transpose(-2, -1));  // (B, H, T, T)
  // In place: the T x T matrices dominate a step's memory traffic.
  scores.mul_(1.0 / std::sqrt(static_cast<double>(hd))).add_(m_position->attentionMask(t, scores.options()));
  auto weights = m_attentionDropout->forward(torch::softmax(scores, -1));
  auto y = torch::matmul(weights, v);  // (B, H, T, D)
  return m_residualDropout->forward(m_out->forward(y.transpose(1, 2).reshape({b, t, d})));
}

}  // namespace fl::nn
