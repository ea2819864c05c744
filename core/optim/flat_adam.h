// FlatAdam: Adam over all of a model's parameters kept in one contiguous buffer.
//
// torch::optim::Adam updates each parameter tensor separately: ~10 tensor ops per tensor, which
// for small models costs more than the arithmetic (bench/bench_fourier_head: 65 us of a 275 us
// step for 6 tensors). FlatAdam re-seats every parameter, and its gradient, as a view into one
// flat buffer, so a step is 8 ops in all whatever the number of tensors. The arithmetic is
// Adam's (Kingma & Ba, with bias correction, as torch::optim::Adam); with weightDecay > 0 it is
// AdamW (decoupled decay, as torch::optim::AdamW) on the parameters the decay mask selects.
// The tests compare it with torch::optim::Adam and torch::optim::AdamW.
//
//   FlatAdam adam(model->parameters(), FlatAdamOptions().lr(1e-3));
//   adam.zeroGrad(); loss.backward(); adam.step();
//
// Construct it after moving the model to its device and dtype (it re-seats the parameters).
// Gradients are accumulated in place into the flat buffer by autograd, so zeroGrad() must be
// called between steps, as with any optimiser.
#pragma once

#include <vector>

#include <torch/arg.h>
#include <torch/types.h>

namespace fl::optim {

struct FlatAdamOptions {
  TORCH_ARG(double, lr) = 1e-3;
  TORCH_ARG(double, beta1) = 0.9;
  TORCH_ARG(double, beta2) = 0.999;
  TORCH_ARG(double, eps) = 1e-8;
  TORCH_ARG(double, weightDecay) = 0.0;
};

class FlatAdam {
 public:
  // `decay[i]` says whether parameter i is decayed (default: all, when weightDecay > 0).
  FlatAdam(std::vector<torch::Tensor> parameters, FlatAdamOptions options,
           std::vector<bool> decay = {});

  void zeroGrad();
  void step();
  // Scales the gradients so that their global L2 norm is at most maxNorm (as
  // torch::nn::utils::clip_grad_norm_); returns the norm before clipping (a device sync).
  torch::Tensor clipGradNorm(double maxNorm);

  void setLr(double lr) { m_options.lr(lr); }
  double lr() const { return m_options.lr(); }
  int64_t stepCount() const { return m_step; }

  // Everything a checkpoint needs: the parameters themselves (they live in the flat buffer),
  // the moment buffers and the step count. loadState copies into the existing buffers, so the
  // model's parameters stay views of them (Module::load would re-seat them instead).
  struct State {
    torch::Tensor parameters;
    torch::Tensor firstMoment;
    torch::Tensor secondMoment;
    int64_t stepCount = 0;
  };
  State state() const { return {m_flatParams, m_expAvg, m_expAvgSq, m_step}; }
  void loadState(const State& state);

 private:
  FlatAdamOptions m_options;
  std::vector<torch::Tensor> m_parameters;
  torch::Tensor m_flatParams;
  torch::Tensor m_flatGrads;
  torch::Tensor m_expAvg;
  torch::Tensor m_expAvgSq;
  torch::Tensor m_decayMask;    // 1 where decayed; undefined without weight decay
  torch::Tensor m_denominator;  // scratch, kept to avoid an allocation per step
  int64_t m_step = 0;
};

}  // namespace fl::optim
