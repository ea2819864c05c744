// QkFilter: an optional transform of queries and keys along the time axis, applied between the
// Q/K projections and the attention scores (FourierQK's spectral filters plug in here).
// Takes and returns (B, H, T, D); the same filter is applied to q and to k.
#pragma once

#include <utility>

#include <torch/nn/module.h>
#include <torch/types.h>

namespace fl::nn {

class QkFilterImpl : public torch::nn::Module {
 public:
  virtual torch::Tensor forward(const torch::Tensor& x) = 0;
  // q and k at once, given as one (2, B, H, T, D) tensor: {filtered q, filtered k}. By default
  // one by one; a filter that can treats both in one pass (on a GPU a step's cost is mostly its
  // number of LibTorch calls).
  virtual std::pair<torch::Tensor, torch::Tensor> forwardPair(const torch::Tensor& qk) {
    return {forward(qk[0]), forward(qk[1])};
  }
  // Whether output position t depends only on inputs at positions <= t, as the variant claims.
  // The lab measures it anyway (experiments/fourier_qk's causality probe).
  virtual bool claimsCausal() const = 0;
};

}  // namespace fl::nn
