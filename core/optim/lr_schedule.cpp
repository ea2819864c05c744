#include "core/optim/lr_schedule.h"

#include <algorithm>
#include <cmath>

namespace fl::optim {

double WarmupCosine::at(int64_t step) const {
  if (step < warmupSteps)
    return peak * static_cast<double>(step + 1) / static_cast<double>(warmupSteps);
  const int64_t decaySteps = std::max<int64_t>(1, totalSteps - warmupSteps);
  const double progress = std::clamp(
      static_cast<double>(step - warmupSteps) / static_cast<double>(decaySteps), 0.0, 1.0);
  return floor + (peak - floor) * 0.5 * (1.0 + std::cos(M_PI * progress));
}

}  // namespace fl::optim
