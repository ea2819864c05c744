// DistributionHead: a classification head over `m` ordered bins of [-1, 1] that can also say
// what continuous density it has learned, so plots can draw it on any grid, not only at the
// bins. Implementations: LinearHead (the baseline), FourierHead, GmmHead.
//
//   HeadOutput out = head->forward(h);          // h: (B, in_features)
//   loss = cross_entropy(out.logits, target);   // out.logits: (B, m)
//   if (out.penalty.defined()) loss += out.penalty;
//   torch::Tensor p = head->density(h, grid);   // (B, Z) density on [-1, 1]
#pragma once

#include <torch/nn/module.h>
#include <torch/types.h>

namespace fl::nn {

struct HeadOutput {
  torch::Tensor logits;   // (B, m), for cross-entropy
  torch::Tensor penalty;  // scalar regulariser to add to the loss; undefined when there is none
};

class DistributionHeadImpl : public torch::nn::Module {
 public:
  virtual HeadOutput forward(const torch::Tensor& h) = 0;
  // The learned density p(z) at points z (Z) on [-1, 1] for each input: (B, Z).
  virtual torch::Tensor density(const torch::Tensor& h, const torch::Tensor& z) = 0;
  virtual int64_t bins() const = 0;
};

// Centres of `bins` equal bins of [-1, 1]: -1 + (2i + 1) / bins, shape (bins).
torch::Tensor binCenters(int64_t bins, const torch::TensorOptions& options = {});

}  // namespace fl::nn
