// Causal multi-head self-attention with pluggable position encoding and Q/K filter:
//
//   q, k, v = split(W_qkv x)                       (B, H, T, D each)
//   q, k    = qknorm(q), qknorm(k)                 optional (QkNorm: unit RMS, no gain)
//   q, k    = filter(q), filter(k)                 optional (FourierQK)
//   q, k    = position.rotate(q, k, layer)         rope / fope (fope: this layer's coefficients)
//   scores  = q k^T / sqrt(D) + position.scoreBias  alibi (or / (D sqrt(D)): ScoreScaling)
//   y       = W_o softmax(causal(scores)) v
//
// On float CPU tensors the last two lines run blocked (blocked_attention.h): no layer holds
// its (B, H, T, T) scores at once. Elsewhere (the GPU, bf16) they run as PyTorch's fused
// scaled-dot-product attention (flash or memory-efficient kernels; ALiBi's bias as a float32
// mask). The plain kernel, which holds the scores, is kept for side-by-side comparisons.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <torch/nn/module.h>
#include <torch/nn/modules/dropout.h>
#include <torch/nn/modules/linear.h>
#include <torch/types.h>

#include "core/nn/transformer/position_encoding.h"
#include "core/nn/transformer/qk_filter.h"
#include "core/nn/transformer/seeded_dropout.h"

namespace fl::nn {

// How the scores q k^T are scaled. Sqrt: by 1 / sqrt(D), as every transformer. Double: by
// 1 / (D sqrt(D)), as an earlier version of the FourierQK author's code did (the scores divided by
// the head size and then by its square root); the paper's headline numbers came from it.
enum class ScoreScaling { Sqrt, Double };
double scoreScale(ScoreScaling scaling, int64_t headDim);

// QK norm: queries and keys scaled to unit RMS before anything positional touches them, with no
// learned gain, as FoPE's official (OLMo) code does with attention_layer_norm (RMSNorm,
// attention_layer_norm_with_affine false, eps 1e-6). Rms: over the layer's whole query (key)
// vector of a token, all heads together, because OLMo normalises the d_model-wide projection
// before splitting it into heads. RmsPerHead: each head's D values on their own, the common form
// elsewhere (a head's scale cannot borrow from another's).
enum class QkNorm { Off, Rms, RmsPerHead };
std::optional<QkNorm> parseQkNorm(const std::string& name);  // off | rms | rms-per-head
std::vector<std::string> qkNormNames();
inline constexpr double kQkNormEps = 1e-6;  // the official configs' layer_norm_eps
// x (B, H, T, D) -> (B, H, T, D), each token's query (or key) at unit RMS as `norm` says.
torch::Tensor applyQkNorm(const torch::Tensor& x, QkNorm norm);

// Blocked: ours on float CPU tensors, Fused elsewhere. Fused: PyTorch's
// scaled_dot_product_attention on any device. Plain: softmax(q k^T) v written out.
enum class AttentionKernel { Blocked, Fused, Plain };

// Blocked, unless the environment sets FOURIERLAB_ATTENTION=plain (for benchmarks that compare
// both in one binary).
AttentionKernel defaultAttentionKernel();

class CausalSelfAttentionImpl : public torch::nn::Module {
 public:
  // `position` is the model's, shared by every layer; `layer` picks this layer's FoPE set.
  // `dropout` on the attention weights, `outputDropout` on the projected output.
  CausalSelfAttentionImpl(int64_t dModel, int64_t heads, double dropout, double outputDropout,
                          at::Generator generator, PositionEncoding position,
                          std::shared_ptr<QkFilterImpl> filter, int64_t layer = 0);

  torch::Tensor forward(const torch::Tensor& x);  // (B, T, d) -> (B, T, d)

  torch::nn::Linear outputProjection() const { return m_out; }
  std::shared_ptr<QkFilterImpl> filter() const { return m_filter; }
  // How attention is computed (the same results): defaultAttentionKernel() until set.
  void setKernel(AttentionKernel kernel) { m_kernel = kernel; }
  AttentionKernel kernel() const { return m_kernel; }
  void setScoreScaling(ScoreScaling scaling) { m_scaling = scaling; }
  void setQkNorm(QkNorm norm) { m_qkNorm = norm; }
  QkNorm qkNorm() const { return m_qkNorm; }
  // While set, forward() hands it the position-encoded queries and keys (B, H, T, D each,
  // detached): what the layer's encoding made of them, for the spectrum meter. Unset: nothing.
  // They are QK-normed (and filtered) first when the layer does that.
  using QkObserver = std::function<void(const torch::Tensor& q, const torch::Tensor& k)>;
  void setQkObserver(QkObserver observer) { m_observer = std::move(observer); }

 private:
  // q, k, v: (B, H, T, D) -> (B, H, T, D)
  torch::Tensor plainAttention(const torch::Tensor& q, const torch::Tensor& k,
                               const torch::Tensor& v, double scale);
  torch::Tensor blockedAttention(const torch::Tensor& q, const torch::Tensor& k,
                                 const torch::Tensor& v, double scale);
  torch::Tensor fusedAttention(const torch::Tensor& q, const torch::Tensor& k,
                               const torch::Tensor& v, double scale);
  // The kernel that runs: the one set, with Blocked falling back to Fused off the CPU and where
  // a filter bank made q and k wider than v.
  AttentionKernel kernelFor(const torch::Tensor& q, const torch::Tensor& v) const;

  int64_t m_heads;
  torch::nn::Linear m_qkv{nullptr};
  torch::nn::Linear m_out{nullptr};
  SeededDropout m_attentionDropout{nullptr};  // on the attention weights
  SeededDropout m_residualDropout{nullptr};   // on the output, as nanoGPT
  PositionEncoding m_position;
  int64_t m_layer;
  std::shared_ptr<QkFilterImpl> m_filter;
  AttentionKernel m_kernel = defaultAttentionKernel();
  ScoreScaling m_scaling = ScoreScaling::Sqrt;
  QkNorm m_qkNorm = QkNorm::Off;
  QkObserver m_observer;
};
TORCH_MODULE(CausalSelfAttention);

}  // namespace fl::nn
