#include "core/nn/transformer/seeded_dropout.h"

#include <mutex>

#include <ATen/CPUGeneratorImpl.h>
#include <torch/torch.h>

#include "core/nn/transformer/fused_elementwise.h"

namespace fl::nn {

SeededDropoutImpl::SeededDropoutImpl(double p, at::Generator generator)
    : m_p(p), m_generator(std::move(generator)) {}

torch::Tensor SeededDropoutImpl::forward(const torch::Tensor& x) {
  if (!is_training() || m_p <= 0) return x;
  if (!x.device().is_cpu()) return torch::dropout(x, m_p, /*train=*/true);
  if (x.scalar_type() == torch::kFloat && fusedOpsEnabled())
    return hashedDropout(x, m_p, drawSeed());
  auto keep = torch::empty_like(x).bernoulli_(1.0 - m_p, m_generator);
  return x * keep / (1.0 - m_p);
}

uint64_t SeededDropoutImpl::drawSeed() {
  auto* generator = m_generator.get<at::CPUGeneratorImpl>();
  std::lock_guard<std::mutex> lock(generator->mutex_);
  return generator->random64();
}

at::Generator makeDropoutGenerator(uint64_t seed) {
  return at::make_generator<at::CPUGeneratorImpl>(seed);
}

}  // namespace fl::nn
