#include "core/nn/transformer/causal_self_attention.h"

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>

#include <torch/torch.h>

#include "core/nn/transformer/blocked_attention.h"

namespace fl::nn {

AttentionKernel defaultAttentionKernel() {
  static const AttentionKernel kernel = [] {
    const char* env = std::getenv("FOURIERLAB_ATTENTION");
    return env && std::strcmp(env, "plain") == 0 ? AttentionKernel::Plain
                                                 : AttentionKernel::Blocked;
  }();
  return kernel;
}

CausalSelfAttentionImpl::CausalSelfAttentionImpl(int64_t dModel, int64_t heads, double dropout,
                                                 at::Generator generator, PositionEncoding position,
                                                 std::shared_ptr<QkFilterImpl> filter)
    : m_heads(heads), m_position(std::move(position)), m_filter(std::move(filter)) {
  m_qkv = register_module(
      "qkv", torch::nn::Linear(torch::nn::LinearOptions(dModel, 3 * dModel).bias(false)));
  m_out = register_module("out",
                          torch::nn::Linear(torch::nn::LinearOptions(dModel, dModel).bias(false)));
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
  const double scale = 1.0 / std::sqrt(static_cast<double>(hd));
  const bool blocked = m_kernel == AttentionKernel::Blocked && q.device().is_cpu() &&
                       q.scalar_type() == torch::kFloat;
  auto y =
      blocked ? blockedAttention(q, k, v, scale) : plainAttention(q, k, v, scale);  // (B, H, T, D)
  return m_residualDropout->forward(m_out->forward(y.transpose(1, 2).reshape({b, t, d})));
}

torch::Tensor CausalSelfAttentionImpl::plainAttention(const torch::Tensor& q,
                                                      const torch::Tensor& k,
                                                      const torch::Tensor& v, double scale) {
  auto scores = torch::matmul(q, k.transpose(-2, -1));  // (B, H, T, T)
  // In place: the T x T matrices dominate a step's memory traffic.
  scores.mul_(scale).add_(m_position->attentionMask(q.size(-2), scores.options()));
  auto weights = m_attentionDropout->forward(torch::softmax(scores, -1));
  return torch::matmul(weights, v);
}

torch::Tensor CausalSelfAttentionImpl::blockedAttention(const torch::Tensor& q,
                                                        const torch::Tensor& k,
                                                        const torch::Tensor& v, double scale) {
  AttentionDropout dropout;
  if (m_attentionDropout->active())
    dropout = {m_attentionDropout->p(), m_attentionDropout->drawSeed()};
  // The blocked kernel reads the mask only on and below the diagonal: the bias there.
  const auto bias = m_position->hasScoreBias() ? m_position->attentionMask(q.size(-2), q.options())
                                               : torch::Tensor();
  return blockedCausalAttention(q, k, v, scale, bias, dropout);
}

}  // namespace fl::nn
