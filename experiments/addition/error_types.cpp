#include "experiments/addition/error_types.h"

#include <algorithm>
#include <cstdlib>

#include <torch/torch.h>

namespace fl::addition {

ErrorTypes countErrorTypes(const torch::Tensor& predictions, const torch::Tensor& answers,
                           int64_t numbers, int64_t window) {
  auto predicted = predictions.detach().to(torch::kCPU).to(torch::kLong).contiguous();
  auto truth = answers.detach().to(torch::kCPU).to(torch::kLong).contiguous();
  const auto* p = predicted.data_ptr<int64_t>();
  const auto* a = truth.data_ptr<int64_t>();
  ErrorTypes t;
  t.problems = predicted.numel();
  t.window = window;
  t.counts.assign(static_cast<size_t>(2 * window + 3), 0);
  int64_t multiplesOf10 = 0, small = 0, within2 = 0;
  for (int64_t i = 0; i < t.problems; ++i) {
    if (p[i] == a[i]) continue;
    ++t.wrong;
    if (p[i] >= numbers) {
      ++t.notANumber;
      continue;
    }
    const int64_t e = p[i] - a[i];
    ++t.counts[static_cast<size_t>(std::clamp(e, -window - 1, window + 1) + window + 1)];
    multiplesOf10 += e % 10 == 0;
    small += std::abs(e) < 6;
    within2 += std::abs(e) <= 2;
  }
  if (t.wrong > 0) {
    const auto share = [&](int64_t n) { return static_cast<double>(n) / t.wrong; };
    t.shareMultipleOf10 = share(multiplesOf10);
    t.shareSmall = share(small);
    t.shareWithin2 = share(within2);
  }
  return t;
}

}  // namespace fl::addition
