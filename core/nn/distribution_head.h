// DistributionHead: a classification head over `m` ordered bins of [-1, 1] that can also say
// what continuous density it has learned, so plots can draw it on any grid, not only at the
// bins. Implementations: LinearHead (the baseline), FourierHead, GmmHead.
//
//   HeadOutput out = head->forward(h);          // h: (..., in_features), e.g. (B, in) or (B, T,
//   in) loss = cross_entropy(out.logits, target);   // out.logits: (..., m) if
//   (out.penalty.defined()) loss += out.penalty; torch::Tensor p = head->density(h, grid);   //
//   (..., Z) density on [-1, 1]
//
// Like torch::nn::Linear, a head takes any number of leading dimensions, so it can replace the
// output layer of a sequence model (a transformer's (B, T, d) states) as well as of an MLP.
#pragma once

#include <torch/nn/module.h>
#include <torch/types.h>

namespace fl::nn {

struct HeadOutput {
  torch::Tensor logits;   // (..., m), for cross-entropy
  torch::Tensor penalty;  // scalar regulariser to add to the loss; undefined when there is none
};

class DistributionHeadImpl : public torch::nn::Module {
 public:
  HeadOutput forward(const torch::Tensor& h);
  // The learned density p(z) at points z (Z) on [-1, 1] for each input: (..., Z).
  torch::Tensor density(const torch::Tensor& h, const torch::Tensor& z);
  virtual int64_t bins() const = 0;

 protected:
  // The same for a batch of rows h (B, in): the leading dimensions are flattened before and
  // restored after, here, once for every head. A penalty is a mean over all rows.
  virtual HeadOutput forwardRows(const torch::Tensor& h) = 0;
  virtual torch::Tensor densityRows(const torch::Tensor& h, const torch::Tensor& z) = 0;
};

// Centres of `bins` equal bins of [-1, 1]: -1 + (2i + 1) / bins, shape (bins).
torch::Tensor binCenters(int64_t bins, const torch::TensorOptions& options = {});

}  // namespace fl::nn
