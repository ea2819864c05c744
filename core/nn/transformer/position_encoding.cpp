#include "core/nn/transformer/position_encoding.h"

#include <limits>

#include <torch/torch.h>

#include "core/nn/transformer/alibi.h"
#include "core/nn/transformer/rotary.h"

namespace fl::nn {

std::vector<std::string> positionKindNames() {
  return {"none", "learned", "rope", "alibi", "fope"};
}

std::optional<PositionKind> parsePositionKind(const std::string& name) {
  if (name == "none") return PositionKind::None;
  if (name == "learned") return PositionKind::Learned;
  if (name == "rope") return PositionKind::Rope;
  if (name == "alibi") return PositionKind::Alibi;
  if (name == "fope") return PositionKind::Fope;
  return std::nullopt;
}

bool isRotary(PositionKind kind) {
  return kind == PositionKind::Rope || kind == PositionKind::Fope;
}

std::string toString(PositionKind kind) {
  switch (kind) {
    case PositionKind::None:
      return "none";
    case PositionKind::Learned:
      return "learned";
    case PositionKind::Rope:
      return "rope";
    case PositionKind::Alibi:
      return "alibi";
    case PositionKind::Fope:
      return "fope";
  }
  return "?";
}

PositionEncodingImpl::PositionEncodingImpl(PositionOptions options) : m_options(options) {
  TORCH_CHECK(options.heads > 0 && options.dModel % options.heads == 0, "d_model ", options.dModel,
              " is not divisible by ", options.heads, " heads");
  switch (options.kind) {
    case PositionKind::None:
      break;
    case PositionKind::Learned:
      m_table = register_module("table", torch::nn::Embedding(options.maxLength, options.dModel));
      torch::nn::init::normal_(m_table->weight, 0.0, 0.02);
      break;
    case PositionKind::Alibi:
      m_slopes = nn::alibiSlopes(options.heads);
      break;
    case PositionKind::Rope:
    case PositionKind::Fope: {
      m_baseFrequencies = ropeFrequencies(options.headDim(), options.theta);
      m_frequencies = options.clipFloor
                          ? clipFloorFrequencies(m_baseFrequencies, options.trainLength)
                          : m_baseFrequencies;
      if (options.kind == PositionKind::Fope) {
        TORCH_CHECK(options.layers >= 1, "FoPE needs at least one layer, got ", options.layers);
        FourierPositionOptions f;
        f.heads = options.heads;
        f.headDim = options.headDim();
        for (double w : m_frequencies)
          if (w > 0) f.keptFrequencies.push_back(w);  // clipped ones leave the series
        const auto kept = static_cast<int64_t>(f.keptFrequencies.size());
        f.seriesPairs = options.fopeAllPairs ? kept : officialSeriesPairs(kept, f.headDim);
        f.gain = options.fopeGain;
        f.learnable = options.fopeLearnable;
        // One set per layer, as the official code builds one in every block: the same rule,
        // each its own draw from the global generator, in layer order (layer 0 first).
        auto list = register_module("fourier", torch::nn::ModuleList());
        for (int64_t l = 0; l < options.layers; ++l) {
          m_fourier.push_back(FourierPosition(f));
          list->push_back(m_fourier.back());
        }
      }
      break;
    }
  }
}

bool PositionEncodingImpl::isRotary() const { return fl::nn::isRotary(m_options.kind); }

torch::Tensor PositionEncodingImpl::absolute(int64_t length) const {
  if (m_options.kind != PositionKind::Learned) return {};
  TORCH_CHECK(length <= m_options.maxLength, "learned positions cover ", m_options.maxLength,
              " tokens; asked for ", length);
  return m_table->weight.narrow(0, 0, length);
}

FourierPosition PositionEncodingImpl::fourier(int64_t layer) const {
  if (m_fourier.empty()) return nullptr;
  TORCH_CHECK(layer >= 0 && layer < static_cast<int64_t>(m_fourier.size()), "FoPE layer ", layer,
              " of ", m_fourier.size());
  return m_fourier[static_cast<size_t>(layer)];
}

std::pair<torch::Tensor, torch::Tensor> PositionEncodingImpl::rotaryFactors(
    int64_t length, const torch::TensorOptions& options, int64_t layer) {
  if (!m_fourier.empty()) {
    // The basis is the same for every layer and constant; each layer's coefficients (learning,
    // or just loaded from a checkpoint) are applied at every call: a (T, K) x (K, M) product
    // per head, small beside the attention.
    const auto fourier = this->fourier(layer);
    const auto& coefficients = fourier->cosCoefficients();
    if (!(m_cachedCos.defined() && m_cachedCos.size(0) == length &&
          m_cachedCos.device() == coefficients.device() &&
          m_cachedCos.dtype() == coefficients.dtype())) {
      std::tie(m_cachedCos, m_cachedSin) = fourier->basis(length);
      ++m_cacheGeneration;
    }
    auto [cos, sin] = fourier->factors(m_cachedCos, m_cachedSin);
    return {cos.to(options), sin.to(options)};
  }
  if (m_cachedCos.defined() && m_cachedCos.size(-2) == length &&
      m_cachedCos.device() == options.device() && m_cachedCos.dtype() == options.dtype())
    return {m_cachedCos, m_cachedSin};
  auto angles = rotaryAngles(m_frequencies, length, 0);  // double: cos and sin before rounding
  m_cachedCos = torch::cos(angles).to(options);
  m_cachedSin = torch::sin(angles).to(options);
  ++m_cacheGeneration;
  return {m_cachedCos, m_cachedSin};
}

std::vector<double> PositionEncodingImpl::pairFrequencies() const {
  if (!isRotary()) return {};
  if (m_fourier.empty()) return m_frequencies;
  const auto& o = m_fourier.front()->options();  // every layer's are the same
  const int64_t kept = static_cast<int64_t>(o.keptFrequencies.size());
  // The step identity's rule (fourier_position.h): pair j starts on frequency j * ceil(K / M).
  const int64_t step = (kept + o.seriesPairs - 1) / o.seriesPairs;
  std::vector<double> out(static_cast<size_t>(o.headDim / 2), 0.0);
  for (int64_t j = 0; j < o.seriesPairs && j * step < kept; ++j)
    out[static_cast<size_t>(j)] = o.keptFrequencies[static_cast<size_t>(j * step)];
  return out;
}

std::pair<torch::Tensor, torch::Tensor> PositionEncodingImpl::rotate(const torch::Tensor& q,
                                                                     const torch::Tensor& k,
                                                                     int64_t layer) {
  if (!isRotary()) return {q, k};
  auto [cos, sin] = rotaryFactors(q.size(-2), q.options(), layer);
  return {rotatePairs(q, cos, sin), rotatePairs(k, cos, sin)};
}

torch::Tensor PositionEncodingImpl::scoreBias(int64_t length, const torch::TensorOptions& options) {
  if (m_options.kind != PositionKind::Alibi) return {};
  return alibiBias(m_slopes, length, options);
}

const torch::Tensor& PositionEncodingImpl::attentionMask(int64_t length,
                                                         const torch::TensorOptions& options) {
  if (m_cachedMask.defined() && m_cachedMask.size(-1) == length &&
      m_cachedMask.device() == options.device() && m_cachedMask.dtype() == options.dtype())
    return m_cachedMask;
  ++m_cacheGeneration;             // before the old one goes: a graph reading it records again
  m_cachedMask = torch::Tensor();  // free the old one before building the new
  auto future = torch::ones({length, length}, options.dtype(torch::kBool)).triu(1);
  auto mask = torch::zeros({length, length}, options)
                  .masked_fill_(future, -std::numeric_limits<float>::infinity());
  auto bias = scoreBias(length, options);
  m_cachedMask = bias.defined() ? bias.add_(mask) : mask;
  return m_cachedMask;
}

}  // namespace fl::nn

namespace fl::nn {
void PositionEncodingImpl::invalidateCache() {
  m_cachedCos = m_cachedSin = m_cachedMask = torch::Tensor();
  ++m_cacheGeneration;
}
}  // namespace fl::nn
