#include "core/optim/flat_adam.h"

#include <cmath>

#include <torch/torch.h>

namespace fl::optim {

FlatAdam::FlatAdam(std::vector<torch::Tensor> parameters, FlatAdamOptions options,
                   std::vector<bool> decay)
    : m_options(options), m_parameters(std::move(parameters)) {
  TORCH_CHECK(decay.empty() || decay.size() == m_parameters.size(), "FlatAdam: the decay mask has ",
              decay.size(), " entries for ", m_parameters.size(), " parameters");
  TORCH_CHECK(!m_parameters.empty(), "FlatAdam needs at least one parameter");
  const auto tensorOptions = m_parameters.front().options();
  int64_t total = 0;
  for (const auto& p : m_parameters) {
    TORCH_CHECK(p.dtype() == tensorOptions.dtype() && p.device() == tensorOptions.device(),
                "FlatAdam needs all parameters on one device with one dtype");
    total += p.numel();
  }
  m_flatParams = torch::empty({total}, tensorOptions);
  m_flatGrads = torch::zeros({total}, tensorOptions);
  int64_t offset = 0;
  for (auto& p : m_parameters) {
    const int64_t n = p.numel();
    auto slot = m_flatParams.narrow(0, offset, n);
    slot.copy_(p.detach().reshape({-1}));
    p.set_data(slot.view(p.sizes()));  // p now lives inside the flat buffer
    // A defined gradient is accumulated into in place, so it stays a view of m_flatGrads.
    p.mutable_grad() = m_flatGrads.narrow(0, offset, n).view(p.sizes());
    offset += n;
  }
  if (m_options.weightDecay() > 0) {
    m_decayMask = torch::ones({total}, tensorOptions);
    offset = 0;
    for (size_t i = 0; i < m_parameters.size(); ++i) {
      const int64_t n = m_parameters[i].numel();
      if (!decay.empty() && !decay[i]) m_decayMask.narrow(0, offset, n).zero_();
      offset += n;
    }
  }
  m_expAvg = torch::zeros({total}, tensorOptions);
  m_expAvgSq = torch::zeros({total}, tensorOptions);
  m_denominator = torch::empty({total}, tensorOptions);
}

void FlatAdam::zeroGrad() { m_flatGrads.zero_(); }

void FlatAdam::step() {
  torch::NoGradGuard noGrad;
  ++m_step;
  const double beta1 = m_options.beta1();
  const double beta2 = m_options.beta2();
  const double biasCorrection1 = 1.0 - std::pow(beta1, static_cast<double>(m_step));
  const double biasCorrection2 = 1.0 - std::pow(beta2, static_cast<double>(m_step));

  if (m_decayMask.defined())  // decoupled: p <- p - lr * wd * p, before the Adam update
    m_flatParams.addcmul_(m_decayMask, m_flatParams, -m_options.lr() * m_options.weightDecay());
  m_expAvg.mul_(beta1).add_(m_flatGrads, 1.0 - beta1);
  m_expAvgSq.mul_(beta2).addcmul_(m_flatGrads, m_flatGrads, 1.0 - beta2);
  torch::sqrt_out(m_denominator, m_expAvgSq);
  m_denominator.div_(std::sqrt(biasCorrection2)).add_(m_options.eps());
  m_flatParams.addcdiv_(m_expAvg, m_denominator, -m_options.lr() / biasCorrection1);
}

torch::Tensor FlatAdam::clipGradNorm(double maxNorm) {
  torch::NoGradGuard noGrad;
  auto norm = m_flatGrads.norm();
  // The same scaling either way; on the GPU the factor stays on the device, so the step never
  // waits for it (clamped to 1 where the norm is within the bound).
  if (m_flatGrads.device().is_cpu()) {
    const double value = norm.item<double>();
    if (value > maxNorm) m_flatGrads.mul_(maxNorm / (value + 1e-6));
  } else {
    m_flatGrads.mul_((maxNorm / (norm + 1e-6)).clamp_max(1.0));
  }
  return norm;
}

void FlatAdam::loadState(const State& state) {
  const int64_t n = m_flatParams.numel();
  TORCH_CHECK(state.parameters.numel() == n && state.firstMoment.numel() == n &&
                  state.secondMoment.numel() == n,
              "checkpoint holds ", state.parameters.numel(), " parameters, the model has ", n,
              " (was it saved with another configuration?)");
  torch::NoGradGuard noGrad;
  m_flatParams.copy_(state.parameters.reshape({-1}));
  m_expAvg.copy_(state.firstMoment.reshape({-1}));
  m_expAvgSq.copy_(state.secondMoment.reshape({-1}));
  m_step = state.stepCount;
}

}  // namespace fl::optim
