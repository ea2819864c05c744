// QkFilter: an optional transform of queries and keys along the time axis, applied between the
// Q/K projections and the attention scores (FourierQK's spectral filters plug in here).
// Takes and returns (B, H, T, D); the same filter is applied to q and to k.
#pragma once

#include <torch/nn/module.h>
#include <torch/types.h>

namespace fl::nn {

class QkFilterImpl : public torch::nn::Module {
 public:
  virtual torch::Tensor forward(const torch::Tensor& x) = 0;
  // Whether output position t depends only on inputs at positions <= t, as the variant claims.
  // The lab measures it anyway (experiments/fourier_qk's causality probe).
  virtual bool claimsCausal() const = 0;
};

}  // namespace fl::nn
