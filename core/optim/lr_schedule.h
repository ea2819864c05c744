// Learning-rate schedule of GPT training: linear warm-up, then cosine decay to a floor.
#pragma once

#include <cstdint>

namespace fl::optim {

struct WarmupCosine {
  double peak = 1e-3;
  double floor = 1e-4;  // reached at totalSteps
  int64_t warmupSteps = 0;
  int64_t totalSteps = 1;

  // The rate for step `step` (0-based): (step + 1) / warmup * peak during warm-up, then
  // floor + (peak - floor) * (1 + cos(pi * progress)) / 2.
  double at(int64_t step) const;
};

}  // namespace fl::optim
