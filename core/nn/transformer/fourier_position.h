// FoPE (Hua et al., arXiv 2412.17739): every rotated dimension pair becomes a Fourier series
// over the RoPE frequencies instead of a single one, with separate cos and sin coefficient
// matrices per head, as the official code does:
//
//   cos factor of pair j, head h, position t = sum_f C_cos[h, f, j] cos(w_f t)
//   sin factor                               = sum_f C_sin[h, f, j] sin(w_f t)
//
// f runs over the kept frequencies (clipped floor frequencies are dropped from the series).
// Pairs j >= `seriesPairs` get the official padding: both factors 1, a position-independent map.
// Initialisation: Xavier-normal (gain) plus a "step identity" so that pair j starts on
// frequency j * ceil(K / M) (the official rule); fixed (a buffer) unless learnable.
// A model holds one of these per layer (PositionEncodingImpl), as the official code builds one
// in every block: the same rule, its own draw.
#pragma once

#include <vector>

#include <torch/nn/module.h>
#include <torch/types.h>

namespace fl::nn {

struct FourierPositionOptions {
  int64_t heads = 1;
  int64_t headDim = 2;
  std::vector<double> keptFrequencies;  // the K frequencies of the series (none zero)
  int64_t seriesPairs = 1;              // M <= K: official min(K, headDim / 4), or K for "all"
  double gain = 0.3;
  bool learnable = false;
};

// The official rule for how many pairs get a series: min(K, headDim / 4), at least 1.
int64_t officialSeriesPairs(int64_t keptFrequencies, int64_t headDim);

class FourierPositionImpl : public torch::nn::Module {
 public:
  explicit FourierPositionImpl(FourierPositionOptions options);

  // cos(w_f t) and sin(w_f t) of the kept frequencies for positions 0 .. length-1, each
  // (length, K) in the coefficients' dtype and device: the same for every layer, so an owner
  // may compute them once and keep them.
  std::pair<torch::Tensor, torch::Tensor> basis(int64_t length) const;
  // The (cos, sin) factors for positions 0 .. length-1: each (heads, length, headDim / 2).
  // Computed from the coefficients at every call (they may be learning or just loaded).
  std::pair<torch::Tensor, torch::Tensor> factors(const torch::Tensor& cosBasis,
                                                  const torch::Tensor& sinBasis) const;
  std::pair<torch::Tensor, torch::Tensor> factors(int64_t length) const;  // from basis(length)

  // Sets both matrices to the step identity without noise (gain 0): with every frequency kept
  // and M = K, FoPE then equals RoPE exactly.
  void resetToIdentity();

  const torch::Tensor& cosCoefficients() const { return m_cos; }  // (heads, K, M)
  const torch::Tensor& sinCoefficients() const { return m_sin; }
  const FourierPositionOptions& options() const { return m_options; }

 private:
  torch::Tensor stepIdentity() const;  // (K, M)

  FourierPositionOptions m_options;
  torch::Tensor m_cos;
  torch::Tensor m_sin;
};
TORCH_MODULE(FourierPosition);

}  // namespace fl::nn
