#include "core/nn/transformer/gpt.h"

#include <cmath>
#include <mutex>

#include <ATen/CPUGeneratorImpl.h>
#include <torch/torch.h>

#include "core/nn/transformer/fused_elementwise.h"
#include "core/nn/transformer/mixed_precision.h"
#include "core/nn/transformer/rms_norm.h"

namespace fl::nn {

std::optional<NormKind> parseNormKind(const std::string& name) {
  if (name == "rmsnorm") return NormKind::Rms;
  if (name == "layernorm") return NormKind::Layer;
  return std::nullopt;
}

std::optional<MlpKind> parseMlpKind(const std::string& name) {
  if (name == "gelu") return MlpKind::Gelu;
  if (name == "swiglu") return MlpKind::SwiGlu;
  return std::nullopt;
}

namespace {

torch::nn::AnyModule makeNorm(NormKind kind, int64_t d) {
  if (kind == NormKind::Rms) return torch::nn::AnyModule(RmsNorm(d));
  return torch::nn::AnyModule(torch::nn::LayerNorm(torch::nn::LayerNormOptions({d})));
}

torch::nn::Linear linear(int64_t in, int64_t out, bool bias = false) {
  if (!bias) return torch::nn::Linear(torch::nn::LinearOptions(in, out).bias(false));
  // A bias's default initialisation draws from the global generator and would shift every draw
  // after it: a model with MLP biases would start from other weights than the same seed's model
  // without, and an on/off comparison would compare starts too. The layer is built on a copy of
  // the generator's state, and the generator then advanced as a layer without bias advances it
  // (the model's initialisation draws every weight again and zeroes the biases).
  auto generator = at::detail::getDefaultCPUGenerator();
  at::Tensor state;
  {
    std::lock_guard<std::mutex> lock(generator.mutex());
    state = generator.get_state();
  }
  torch::nn::Linear layer(torch::nn::LinearOptions(in, out).bias(true));
  {
    std::lock_guard<std::mutex> lock(generator.mutex());
    generator.set_state(state);
  }
  torch::nn::Linear(torch::nn::LinearOptions(in, out).bias(false));
  return layer;
}

int64_t mlpHidden(int64_t d, int64_t ratio, MlpKind kind) {
  // SwiGLU has three matrices: 2/3 of the hidden width keeps the parameter count.
  if (kind == MlpKind::SwiGlu) return std::max<int64_t>(1, 2 * ratio * d / 3);
  return ratio * d;
}

}  // namespace

MlpImpl::MlpImpl(int64_t d, int64_t ratio, MlpKind kind, double dropout, at::Generator generator,
                 bool bias)
    : m_kind(kind) {
  const int64_t hidden = mlpHidden(d, ratio, kind);
  m_up = register_module("up", linear(d, hidden, bias));
  if (kind == MlpKind::SwiGlu) m_gate = register_module("gate", linear(d, hidden, bias));
  m_down = register_module("down", linear(hidden, d, bias));
  m_dropout = register_module("dropout", SeededDropout(dropout, std::move(generator)));
}

torch::Tensor MlpImpl::forward(const torch::Tensor& x) {
  auto h = m_kind == MlpKind::SwiGlu ? torch::silu(m_gate->forward(x)) * m_up->forward(x)
                                     : fusedGelu(m_up->forward(x));
  return m_dropout->forward(m_down->forward(h));
}

BlockImpl::BlockImpl(const GptOptions& o, PositionEncoding position, at::Generator generator,
                     int64_t layer)
    : m_layer(layer) {
  m_norm1 = makeNorm(o.norm, o.dModel);
  m_norm2 = makeNorm(o.norm, o.dModel);
  register_module("norm1", m_norm1.ptr());
  register_module("norm2", m_norm2.ptr());
  m_attention = register_module(
      "attention",
      CausalSelfAttention(o.dModel, o.heads, o.dropout, o.attentionOutputDropout ? o.dropout : 0.0,
                          generator, std::move(position), o.qkFilter ? o.qkFilter(layer) : nullptr,
                          layer));
  m_attention->setScoreScaling(o.scoreScaling);
  m_attention->setQkNorm(o.qkNorm);
  m_mlp = register_module("mlp", Mlp(o.dModel, o.mlpRatio, o.mlp, o.dropout, generator, o.mlpBias));
}

torch::Tensor BlockImpl::forward(torch::Tensor x, const SublayerHook& hook) {
  auto a = m_attention->forward(m_norm1.forward(x));
  if (hook) a = hook(m_layer, Sublayer::Attention, a);
  x = x + a;
  auto m = m_mlp->forward(m_norm2.forward(x));
  if (hook) m = hook(m_layer, Sublayer::Mlp, m);
  return x + m;
}

GptImpl::GptImpl(GptOptions options) : m_options(std::move(options)) {
  auto& o = m_options;
  TORCH_CHECK(o.vocabSize > 0 && o.layers > 0 && o.heads > 0,
              "a transformer needs a vocabulary, "
              "layers and heads");
  TORCH_CHECK(o.dModel % o.heads == 0, "d_model ", o.dModel, " is not divisible by ", o.heads,
              " heads");
  o.position.dModel = o.dModel;
  o.position.heads = o.heads;
  o.position.layers = o.layers;  // FoPE: a coefficient set per layer, drawn here in layer order
  m_dropoutGenerator = makeDropoutGenerator(o.dropoutSeed);
  m_tokens = register_module("tokens", torch::nn::Embedding(o.vocabSize, o.dModel));
  m_embeddingDropout =
      register_module("embedding_dropout", SeededDropout(o.dropout, m_dropoutGenerator));
  m_position = register_module("position", PositionEncoding(o.position));
  m_blockList = register_module("blocks", torch::nn::ModuleList());
  for (int64_t l = 0; l < o.layers; ++l) {
    m_blocks.push_back(Block(o, m_position, m_dropoutGenerator, l));
    m_blockList->push_back(m_blocks.back());
  }
  m_finalNorm = makeNorm(o.norm, o.dModel);
  register_module("final_norm", m_finalNorm.ptr());
  if (!o.tiedHead) m_head = register_module("head", linear(o.dModel, o.vocabSize));

  // nanoGPT's initialisation: N(0, 0.02), biases 0, residual projections scaled by 1/sqrt(2 L)
  // (unless the options keep them at 0.02, as FourierQK's author does).
  torch::NoGradGuard noGrad;
  for (auto& module : modules(/*include_self=*/false)) {
    if (auto* l = module->as<torch::nn::Linear>()) {
      torch::nn::init::normal_(l->weight, 0.0, 0.02);
      if (l->bias.defined()) torch::nn::init::zeros_(l->bias);
    }
  }
  torch::nn::init::normal_(m_tokens->weight, 0.0, 0.02);
  if (!o.scaledResidualInit) return;
  const double residualStd = 0.02 / std::sqrt(2.0 * static_cast<double>(o.layers));
  for (auto& block : m_blocks) {
    torch::nn::init::normal_(block->attention()->outputProjection()->weight, 0.0, residualStd);
    torch::nn::init::normal_(block->mlp()->outputProjection()->weight, 0.0, residualStd);
  }
}

torch::Tensor GptImpl::hidden(const torch::Tensor& tokens, const SublayerHook& hook) {
  auto x = m_tokens->forward(tokens);
  auto positions = m_position->absolute(tokens.size(1));
  if (positions.defined()) x = x + positions;
  x = m_embeddingDropout->forward(x);
  for (auto& block : m_blocks) x = block->forward(x, hook);
  return m_finalNorm.forward(x);
}

torch::Tensor GptImpl::unembedding() const {
  return m_options.tiedHead ? m_tokens->weight : m_head->weight;
}

torch::Tensor GptImpl::forward(const torch::Tensor& tokens, const SublayerHook& hook) {
  using Bf16 = GptOptions::Bf16Autocast;
  const auto device = tokens.device().type();
  const Bf16 mode = m_options.bf16Autocast;
  MixedPrecisionScope bf16(
      device, mode == Bf16::Always || (mode == Bf16::OnCuda && device == c10::DeviceType::CUDA));
  // Float32 logits either way: the loss and every metric read them at full precision.
  return torch::matmul(hidden(tokens, hook), unembedding().t()).to(torch::kFloat);
}

void GptImpl::setAttentionKernel(AttentionKernel kernel) {
  for (auto& block : m_blocks) block->attention()->setKernel(kernel);
}

int64_t GptImpl::parameterCount() const {
  int64_t n = 0;
  for (const auto& p : parameters()) n += p.numel();
  return n;
}

double GptImpl::trainingFlopsPerToken(int64_t length) const {
  const double d = static_cast<double>(m_options.dModel);
  const double hidden =
      static_cast<double>(mlpHidden(m_options.dModel, m_options.mlpRatio, m_options.mlp));
  const double mlpMatrices = m_options.mlp == MlpKind::SwiGlu ? 3.0 : 2.0;
  const double perLayerMacs = 4.0 * d * d                               // qkv + output projection
                              + mlpMatrices * d * hidden                // MLP
                              + 2.0 * static_cast<double>(length) * d;  // QK^T and AV (full T x T)
  const double macs = static_cast<double>(m_options.layers) * perLayerMacs +
                      d * static_cast<double>(m_options.vocabSize);
  return 3.0 * 2.0 * macs;
}

}  // namespace fl::nn
