#include "core/nn/transformer/causal_self_attention.h"

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <optional>

#include <torch/torch.h>

#include "core/nn/transformer/blocked_attention.h"
#include "core/nn/transformer/mixed_precision.h"

namespace fl::nn {

AttentionKernel defaultAttentionKernel() {
  static const AttentionKernel kernel = [] {
    const char* env = std::getenv("FOURIERLAB_ATTENTION");
    return env && std::strcmp(env, "plain") == 0 ? AttentionKernel::Plain
                                                 : AttentionKernel::Blocked;
  }();
  return kernel;
}

double scoreScale(ScoreScaling scaling, int64_t headDim) {
  const double d = static_cast<double>(headDim);
  return scaling == ScoreScaling::Double ? 1.0 / (d * std::sqrt(d)) : 1.0 / std::sqrt(d);
}

std::optional<QkNorm> parseQkNorm(const std::string& name) {
  if (name == "off") return QkNorm::Off;
  if (name == "rms") return QkNorm::Rms;
  if (name == "rms-per-head") return QkNorm::RmsPerHead;
  return std::nullopt;
}

std::vector<std::string> qkNormNames() { return {"off", "rms", "rms-per-head"}; }

torch::Tensor applyQkNorm(const torch::Tensor& x, QkNorm norm) {
  if (norm == QkNorm::Off) return x;
  // Rms: the mean square over heads and head dimensions, i.e. over the token's d_model values.
  // From the end: x may be (B, H, T, D) or q and k together, (2, B, H, T, D).
  const auto dims = norm == QkNorm::Rms ? std::vector<int64_t>{-3, -1} : std::vector<int64_t>{-1};
  const auto xf = x.to(torch::kFloat);
  const auto meanSquare = xf.pow(2).mean(dims, /*keepdim=*/true);  // (B, 1|H, T, 1)
  return (xf * torch::rsqrt(meanSquare + kQkNormEps)).to(x.scalar_type());
}

CausalSelfAttentionImpl::CausalSelfAttentionImpl(int64_t dModel, int64_t heads, double dropout,
                                                 double outputDropout, at::Generator generator,
                                                 PositionEncoding position,
                                                 std::shared_ptr<QkFilterImpl> filter,
                                                 int64_t layer)
    : m_heads(heads), m_position(std::move(position)), m_layer(layer), m_filter(std::move(filter)) {
  m_qkv = register_module(
      "qkv", torch::nn::Linear(torch::nn::LinearOptions(dModel, 3 * dModel).bias(false)));
  m_out = register_module("out",
                          torch::nn::Linear(torch::nn::LinearOptions(dModel, dModel).bias(false)));
  m_attentionDropout = register_module("attention_dropout", SeededDropout(dropout, generator));
  m_residualDropout = register_module("residual_dropout", SeededDropout(outputDropout, generator));
  if (m_filter) register_module("qk_filter", m_filter);
  // The position encoding is shared by every layer and registered once, by the model (with
  // every layer's FoPE coefficients: this one rotates with set m_layer).
}

torch::Tensor CausalSelfAttentionImpl::forward(const torch::Tensor& x) {
  const int64_t b = x.size(0), t = x.size(1), d = x.size(2), hd = d / m_heads;
  // (B, T, 3d) -> 3 x (B, H, T, D)
  auto qkv = m_qkv->forward(x).view({b, t, 3, m_heads, hd}).permute({2, 0, 3, 1, 4});
  // q and k stay one (2, B, H, T, D) tensor through the cast, the norm and the filter: each is
  // one call for both, where a GPU step's cost is mostly its number of calls.
  auto qk = qkv.narrow(0, 0, 2), v = qkv[2];
  torch::Tensor q, k;
  {
    // Under bf16 autocast the filter and the rotation still run in float32 on float32 inputs:
    // their FFTs, phases and sines are what FourierQK and FoPE are graded on.
    std::optional<FloatRegion> exact;
    if (autocastActive(qk.device().type())) {
      exact.emplace();
      qk = qk.to(torch::kFloat);
    }
    if (m_qkNorm != QkNorm::Off) qk = applyQkNorm(qk, m_qkNorm);
    if (m_filter) {
      std::tie(q, k) = m_filter->forwardPair(qk);
    } else {
      q = qk[0];
      k = qk[1];
    }
    std::tie(q, k) = m_position->rotate(q, k, m_layer);
    if (m_observer) m_observer(q.detach(), k.detach());
  }
  const double scale = scoreScale(m_scaling, hd);
  torch::Tensor y;  // (B, H, T, D)
  switch (kernelFor(q, v)) {
    case AttentionKernel::Blocked:
      y = blockedAttention(q, k, v, scale);
      break;
    case AttentionKernel::Fused:
      y = fusedAttention(q, k, v, scale);
      break;
    case AttentionKernel::Plain:
      y = plainAttention(q, k, v, scale);
      break;
  }
  return m_residualDropout->forward(m_out->forward(y.transpose(1, 2).reshape({b, t, d})));
}

AttentionKernel CausalSelfAttentionImpl::kernelFor(const torch::Tensor& q,
                                                   const torch::Tensor& v) const {
  const bool cpuFloat = q.device().is_cpu() && q.scalar_type() == torch::kFloat;
  // The blocked kernel takes q, k and v of one width; a filter bank widens q and k.
  const bool oneWidth = q.size(-1) == v.size(-1);
  if (m_kernel == AttentionKernel::Blocked && !(cpuFloat && oneWidth))
    return AttentionKernel::Fused;
  return m_kernel;
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

torch::Tensor CausalSelfAttentionImpl::fusedAttention(const torch::Tensor& q,
                                                      const torch::Tensor& k,
                                                      const torch::Tensor& v, double scale) {
  const double dropout = m_attentionDropout->active() ? m_attentionDropout->p() : 0.0;
  if (!m_position->hasScoreBias())
    return at::scaled_dot_product_attention(asFusedAttentionInput(q, v),
                                            asFusedAttentionInput(k, v), v,
                                            /*attn_mask=*/{}, dropout, /*is_causal=*/true, scale);
  // ALiBi's bias grows with the distance (slope x up to T); in bf16 it would be rounded to a
  // step of 2 at 500. Its attention stays float32, autocast or not.
  FloatRegion exact;
  const auto mask = m_position->attentionMask(q.size(-2), q.options().dtype(torch::kFloat));
  return at::scaled_dot_product_attention(q.to(torch::kFloat), k.to(torch::kFloat),
                                          v.to(torch::kFloat), mask, dropout,
                                          /*is_causal=*/false, scale);
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
