#include "experiments/addition/logit_lens_spectra.h"

#include <stdexcept>

#include <torch/torch.h>

#include "core/analysis/number_spectrum.h"

namespace fl::addition {

LensSpectraRecorder::LensSpectraRecorder(torch::Tensor unembedding, int64_t layers,
                                         double cutoffPeriod)
    : m_unembedding(unembedding.detach().to(torch::kFloat)), m_cutoffPeriod(cutoffPeriod) {
  const int64_t bins = m_unembedding.size(0) / 2 + 1;
  const auto options = torch::TensorOptions().dtype(torch::kDouble).device(unembedding.device());
  for (auto& module : m_modules) {
    // One tensor per layer: assign() would copy one handle, and += would then add every
    // layer's spectrum into the same storage.
    for (int64_t l = 0; l < layers; ++l)
      module.magnitudeSums.push_back(torch::zeros({bins}, options));
    module.summedMagnitudeSum = torch::zeros({bins}, options);
    module.summedEnergySum = torch::zeros({bins}, options);
  }
}

nn::SublayerHook LensSpectraRecorder::hook() {
  return [this](int64_t layer, nn::Sublayer which, torch::Tensor out) {
    record(m_modules[which == nn::Sublayer::Attention ? 0 : 1], layer, out);
    return out;
  };
}

void LensSpectraRecorder::record(Accumulator& module, int64_t layer, const torch::Tensor& out) {
  if (layer < 0 || layer >= static_cast<int64_t>(module.magnitudeSums.size()))
    throw std::logic_error("logit lens: a layer beyond the model's");
  // o at the answer position (B, d), in float whatever the autocast computed it in.
  auto o = out.detach().select(1, out.size(1) - 1).to(torch::kFloat);
  auto logits = torch::matmul(o, m_unembedding.t()).to(torch::kDouble);  // (B, M)
  auto spectrum = torch::fft::rfft(logits, c10::nullopt, /*dim=*/-1);    // (B, M/2 + 1)
  module.magnitudeSums[static_cast<size_t>(layer)] += spectrum.abs().sum(0);
  module.batchSpectrum =
      module.batchSpectrum.defined() ? module.batchSpectrum + spectrum : spectrum;
  m_batchProblems = o.size(0);
}

void LensSpectraRecorder::finishBatch() {
  for (auto& module : m_modules) {
    if (!module.batchSpectrum.defined()) continue;
    auto magnitude = module.batchSpectrum.abs();
    module.summedMagnitudeSum += magnitude.sum(0);
    module.summedEnergySum += magnitude.pow(2).sum(0);
    module.batchSpectrum = torch::Tensor();
  }
  m_problems += m_batchProblems;
  m_batchProblems = 0;
}

ModuleSpectra LensSpectraRecorder::resultOf(const Accumulator& module) const {
  const double problems = static_cast<double>(std::max<int64_t>(m_problems, 1));
  const int64_t bins = module.summedMagnitudeSum.size(0);
  ModuleSpectra s;
  // k = 0 dropped (see the header).
  s.perLayer = torch::stack(module.magnitudeSums).narrow(1, 1, bins - 1).div(problems).cpu();
  s.summed = module.summedMagnitudeSum.narrow(0, 1, bins - 1).div(problems).cpu();
  // The ablations' split of the band (k = 0 is never high, so it drops out of the numerator).
  const auto& energy = module.summedEnergySum;
  const auto high =
      analysis::highFrequencyMask(m_unembedding.size(0), m_cutoffPeriod, energy.options());
  const double total = energy.narrow(0, 1, bins - 1).sum().item<double>();
  s.highShare = total > 0 ? (energy * high).sum().item<double>() / total : 0;
  return s;
}

LensSpectra LensSpectraRecorder::result() const {
  LensSpectra r;
  r.attention = resultOf(m_modules[0]);
  r.mlp = resultOf(m_modules[1]);
  r.numbers = m_unembedding.size(0);
  for (int64_t k = 1; k <= r.numbers / 2; ++k) r.frequencies.push_back(k);
  return r;
}

}  // namespace fl::addition
