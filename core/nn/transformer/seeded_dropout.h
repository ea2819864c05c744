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

 private:
  double m_p;
  at::Generator m_generator;  // shared with the model's other dropout modules
};
TORCH_MODULE(SeededDropout);

// A CPU generator seeded with `seed`.
at::Generator makeDropoutGenerator(uint64_t seed);

}  // namespace fl::nn
