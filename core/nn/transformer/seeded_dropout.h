// Dropout that draws from the model's own generator instead of LibTorch's global one: parallel
// runs in one process (the GUI) share the global generator, so their dropout masks, and with
// them their metrics, would depend on scheduling. With its own generator, seeded by the run and
// saved in checkpoints, a run with dropout is reproducible and resumable bit for bit on CPU.
// On CUDA the masks come from the device's default generator (reproducible for a run alone).
#pragma once

#include <ATen/core/Generator.h>
#include <torch/nn/module.h>
#include <torch/types.h>

namespace fl::nn {

class SeededDropoutImpl : public torch::nn::Module {
 public:
  SeededDropoutImpl(double p, at::Generator generator);
  torch::Tensor forward(const torch::Tensor& x);

  double p() const { return m_p; }
  // Whether forward drops anything now (training and p > 0).
  bool active() const { return is_training() && m_p > 0; }
  // A 64-bit seed from the model's generator, for kernels that draw their own masks from it
  // (blocked attention): the generator advances by one draw, so checkpoints still continue
  // a run bit for bit.
  uint64_t drawSeed();

 private:
  double m_p;
  at::Generator m_generator;  // shared with the model's other dropout modules
};
TORCH_MODULE(SeededDropout);

// A CPU generator seeded with `seed`.
at::Generator makeDropoutGenerator(uint64_t seed);

}  // namespace fl::nn
