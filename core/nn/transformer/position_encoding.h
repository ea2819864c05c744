// PositionEncoding: where a transformer learns order, as one module with three hooks, so the
// attention code stays the same for every encoding:
//   absolute(T)     added to the token embeddings      (learned)
//   rotate(q, k)    applied to queries and keys          (rope, fope)
//   scoreBias(T)    added to the attention scores        (alibi)
// Each hook is the identity / undefined for the encodings that do not use it (none uses none).
//
// A model builds one and hands it to every layer: the tables (the causal mask, ALiBi's bias,
// RoPE's factors, the learned table) are built once and shared. FoPE's coefficients are not:
// as the official code builds its Fourier embedding inside every block, the encoding holds one
// independent set per layer (`layers`), drawn in layer order, and rotate() takes the layer.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <torch/nn/module.h>
#include <torch/nn/modules/embedding.h>
#include <torch/types.h>

#include "core/nn/transformer/fourier_position.h"

namespace fl::nn {

enum class PositionKind { None, Learned, Rope, Alibi, Fope };

std::vector<std::string> positionKindNames();  // none, learned, rope, alibi, fope
std::optional<PositionKind> parsePositionKind(const std::string& name);
std::string toString(PositionKind kind);
// RoPE and FoPE: they rotate query and key pairs, each pair at its own frequency.
bool isRotary(PositionKind kind);

struct PositionOptions {
  PositionKind kind = PositionKind::Rope;
  int64_t dModel = 128;
  int64_t heads = 4;
  int64_t trainLength = 64;  // for floor clipping
  int64_t maxLength = 64;    // learned: rows of the table (positions beyond are an error)
  double theta = 10000;      // rope / fope base
  bool clipFloor = false;    // rope / fope: frequencies below 2 pi / trainLength -> 0
  double fopeGain = 0.3;
  bool fopeLearnable = false;
  bool fopeAllPairs = false;  // every kept frequency gets a pair (default: official min(K, D/4))
  int64_t layers = 1;         // fope: coefficient sets, one per layer (a Gpt sets its layer count)

  int64_t headDim() const { return dModel / heads; }
};

class PositionEncodingImpl : public torch::nn::Module {
 public:
  explicit PositionEncodingImpl(PositionOptions options);

  // (T, dModel) to add to the token embeddings, or undefined.
  torch::Tensor absolute(int64_t length) const;
  // q, k: (B, H, T, D). Rotated copies, or q and k themselves. FoPE rotates with `layer`'s
  // coefficients; the other encodings are the same for every layer.
  std::pair<torch::Tensor, torch::Tensor> rotate(const torch::Tensor& q, const torch::Tensor& k,
                                                 int64_t layer = 0);
  // (H, T, T) to add to the scores, or undefined.
  torch::Tensor scoreBias(int64_t length, const torch::TensorOptions& options);
  bool hasScoreBias() const { return m_options.kind == PositionKind::Alibi; }
  // The causal mask plus scoreBias as one additive tensor, (T, T) or (H, T, T): built once per
  // length and device and shared by every layer (the T x T tables dominate memory at long
  // evaluation lengths).
  const torch::Tensor& attentionMask(int64_t length, const torch::TensorOptions& options);

  // Drops the cached tables (the mask, RoPE's factors, FoPE's cos / sin basis). None of them
  // depends on FoPE's coefficients, which are read at every call.
  void invalidateCache();
  // Counts the times a cached table was built or dropped: a step recorded as a CUDA graph reads
  // the tables' memory, so a change of this number means it must be recorded again.
  uint64_t cacheGeneration() const { return m_cacheGeneration; }

  const PositionOptions& options() const { return m_options; }
  bool isRotary() const;
  // RoPE's frequencies before and after floor clipping (empty unless rotary).
  const std::vector<double>& baseFrequencies() const { return m_baseFrequencies; }
  const std::vector<double>& frequencies() const { return m_frequencies; }
  // The frequency each rotated pair j is given (rad/token), what the spectrum meter measures
  // it against: RoPE's after clipping; FoPE's series pairs the frequency their step identity
  // starts them on, its padded pairs 0 (a position-independent map). Empty unless rotary.
  // The same for every layer: each layer's FoPE set starts from the same step identity.
  std::vector<double> pairFrequencies() const;
  // Layer `layer`'s FoPE coefficients: null unless fope.
  FourierPosition fourier(int64_t layer = 0) const;
  // Every layer's, in layer order (empty unless fope).
  const std::vector<FourierPosition>& fourierLayers() const { return m_fourier; }

 private:
  std::pair<torch::Tensor, torch::Tensor> rotaryFactors(int64_t length,
                                                        const torch::TensorOptions& options,
                                                        int64_t layer);

  PositionOptions m_options;
  std::vector<double> m_baseFrequencies;
  std::vector<double> m_frequencies;
  std::vector<double> m_slopes;
  torch::nn::Embedding m_table{nullptr};
  std::vector<FourierPosition> m_fourier;  // fope: one per layer, registered as fourier.<l>
  // Constant tables kept between steps (the same length every training step): RoPE's factors
  // (T, D/2), or FoPE's basis cos / sin(w_f t) (T, K) that every layer's coefficients combine.
  torch::Tensor m_cachedCos, m_cachedSin, m_cachedMask;
  uint64_t m_cacheGeneration = 0;
};
TORCH_MODULE(PositionEncoding);

}  // namespace fl::nn
