#include "core/analysis/number_spectrum.h"

#include <algorithm>

#include <torch/torch.h>

namespace fl::analysis {

torch::Tensor numberAxisMagnitudes(const torch::Tensor& rows) {
  auto spectrum = torch::fft::rfft(rows.to(torch::kFloat), c10::nullopt, /*dim=*/0);  // (M/2+1, d)
  return spectrum.abs().pow(2).sum(-1).sqrt();
}

std::vector<PeriodPeak> topPeriods(const torch::Tensor& magnitudes, int64_t numbers,
                                   int64_t count) {
  auto m = magnitudes.to(torch::kCPU).to(torch::kDouble).contiguous();
  std::vector<PeriodPeak> peaks;
  for (int64_t k = 1; k < m.numel(); ++k)
    peaks.push_back(
        {k, static_cast<double>(numbers) / static_cast<double>(k), m[k].item<double>()});
  std::stable_sort(peaks.begin(), peaks.end(), [](const PeriodPeak& a, const PeriodPeak& b) {
    return a.magnitude > b.magnitude;
  });
  if (static_cast<int64_t>(peaks.size()) > count) peaks.resize(static_cast<size_t>(count));
  return peaks;
}

FrequencyBands splitByPeriod(const torch::Tensor& z, double cutoffPeriod) {
  const int64_t numbers = z.size(-1);
  auto spectrum = torch::fft::rfft(z, numbers, /*dim=*/-1);
  auto highMask = highFrequencyMask(numbers, cutoffPeriod, z.options()).to(z.dtype());
  auto high = torch::fft::irfft(spectrum * highMask, numbers, -1);
  return {z - high, high};
}

torch::Tensor highFrequencyMask(int64_t numbers, double cutoffPeriod,
                                const torch::TensorOptions& options) {
  // k is high when M / k <= cutoff, i.e. k >= M / cutoff.
  auto k = torch::arange(numbers / 2 + 1, options.dtype(torch::kFloat));
  return k >= static_cast<double>(numbers) / cutoffPeriod;
}

}  // namespace fl::analysis
