// Gpt: a decoder-only transformer in the shape of nanoGPT's model.py, with the choices the
// Fourier experiments vary as options: norm (RMSNorm | LayerNorm), MLP (GELU | SwiGLU), tied or
// untied output head, the position encoding, and an optional Q/K filter per layer.
// The position encoding is one module shared by every block (its mask and tables are built
// once); FoPE's coefficients inside it are one set per layer, as the official code has them.
//
//   h_0 = E[tokens] (+ learned positions)
//   h_l = h_{l-1} + attn_l(norm(h_{l-1}));  h_l += mlp_l(norm(h_l))
//   logits = head(norm(h_L))
//
// A SublayerHook sees each attention and MLP output before it joins the residual stream and
// may replace it: the addition experiment's logit-lens ablations work through it.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <torch/nn/module.h>
#include <torch/nn/modules/container/any.h>
#include <torch/nn/modules/container/modulelist.h>
#include <torch/nn/modules/embedding.h>
#include <torch/nn/modules/linear.h>
#include <torch/types.h>

#include "core/nn/transformer/causal_self_attention.h"
#include "core/nn/transformer/position_encoding.h"
#include "core/nn/transformer/qk_filter.h"

namespace fl::nn {

enum class NormKind { Rms, Layer };
enum class MlpKind { Gelu, SwiGlu };
enum class Sublayer { Attention, Mlp };

std::optional<NormKind> parseNormKind(const std::string& name);  // rmsnorm | layernorm
std::optional<MlpKind> parseMlpKind(const std::string& name);    // gelu | swiglu

struct GptOptions {
  int64_t vocabSize = 65;
  int64_t dModel = 128;
  int64_t heads = 4;
  int64_t layers = 2;
  int64_t mlpRatio = 4;  // hidden = ratio * d (SwiGLU: 2/3 of that, the same parameter count)
  NormKind norm = NormKind::Rms;
  MlpKind mlp = MlpKind::Gelu;
  bool tiedHead = false;
  double dropout = 0.0;
  uint64_t dropoutSeed = 0;  // the model's own dropout generator (see seeded_dropout.h)
  // Where GPTs differ in small ways that move a loss: nanoGPT's choices by default, and the
  // FourierQK author's (dropout on the attention weights only, every matrix at 0.02, MLP
  // biases) as its paper presets set them.
  bool attentionOutputDropout = true;  // dropout on the attention's projected output too
  bool scaledResidualInit = true;      // residual projections at 0.02 / sqrt(2 layers)
  bool mlpBias = false;                // biases on the MLP's linears, zero at the start
  PositionOptions position;  // its dModel, heads and layers are overwritten with the model's
  ScoreScaling scoreScaling = ScoreScaling::Sqrt;  // every layer's (causal_self_attention.h)
  QkNorm qkNorm = QkNorm::Off;                     // every layer's (causal_self_attention.h)
  // Builds the Q/K filter of layer l, or returns null for none.
  std::function<std::shared_ptr<QkFilterImpl>(int64_t layer)> qkFilter;
  // Where forward() runs its matrix products in bf16 (mixed_precision.h): on the GPU by
  // default; Always lets the CPU tests compare bf16 with float32.
  enum class Bf16Autocast { OnCuda, Always, Never } bf16Autocast = Bf16Autocast::OnCuda;
};

using SublayerHook = std::function<torch::Tensor(int64_t layer, Sublayer which, torch::Tensor out)>;

class MlpImpl : public torch::nn::Module {
 public:
  MlpImpl(int64_t dModel, int64_t ratio, MlpKind kind, double dropout, at::Generator generator,
          bool bias = false);
  torch::Tensor forward(const torch::Tensor& x);
  torch::nn::Linear outputProjection() const { return m_down; }

 private:
  MlpKind m_kind;
  torch::nn::Linear m_up{nullptr}, m_gate{nullptr}, m_down{nullptr};
  SeededDropout m_dropout{nullptr};
};
TORCH_MODULE(Mlp);

class BlockImpl : public torch::nn::Module {
 public:
  BlockImpl(const GptOptions& options, PositionEncoding position, at::Generator generator,
            int64_t layer);
  torch::Tensor forward(torch::Tensor x, const SublayerHook& hook);

  CausalSelfAttention attention() const { return m_attention; }
  Mlp mlp() const { return m_mlp; }

 private:
  int64_t m_layer;
  torch::nn::AnyModule m_norm1, m_norm2;
  CausalSelfAttention m_attention{nullptr};
  Mlp m_mlp{nullptr};
};
TORCH_MODULE(Block);

class GptImpl : public torch::nn::Module {
 public:
  explicit GptImpl(GptOptions options);

  // tokens (B, T) int64 -> logits (B, T, vocab).
  torch::Tensor forward(const torch::Tensor& tokens, const SublayerHook& hook = nullptr);
  // The final hidden states before the head, (B, T, d).
  torch::Tensor hidden(const torch::Tensor& tokens, const SublayerHook& hook = nullptr);
  // The output head as a (vocab, d) matrix (the embedding when tied).
  torch::Tensor unembedding() const;

  const GptOptions& options() const { return m_options; }
  // Shared by every layer; position()->fourier(l) is layer l's FoPE coefficients.
  PositionEncoding position() const { return m_position; }
  torch::nn::Embedding tokenEmbedding() const { return m_tokens; }
  const std::vector<Block>& blocks() const { return m_blocks; }

  // Every layer's attention kernel (the same results; see causal_self_attention.h).
  void setAttentionKernel(AttentionKernel kernel);

  int64_t parameterCount() const;
  // The dropout generator, for checkpoints (its state continues a run bit for bit).
  at::Generator dropoutGenerator() const { return m_dropoutGenerator; }
  // Multiply-add FLOPs (2 per MAC) of one training step (forward + backward = 3 x forward) per
  // token at sequence length T: the dense layers, QK^T and AV, and the head.
  double trainingFlopsPerToken(int64_t length) const;

 private:
  GptOptions m_options;
  at::Generator m_dropoutGenerator;
  torch::nn::Embedding m_tokens{nullptr};
  SeededDropout m_embeddingDropout{nullptr};
  PositionEncoding m_position{nullptr};
  std::vector<Block> m_blocks;
  torch::nn::ModuleList m_blockList{nullptr};
  torch::nn::AnyModule m_finalNorm;
  torch::nn::Linear m_head{nullptr};
};
TORCH_MODULE(Gpt);

}  // namespace fl::nn
