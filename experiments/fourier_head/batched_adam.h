// Adam on one member's row of a batched group's flat parameters: FlatAdam's arithmetic
// (Kingma & Ba with bias correction, no weight decay, the same float operations in the same
// order), as one loop over raw floats. Adam is element-wise, so K rows stepped with their own
// learning rate and step count are exactly K separate Adams. The loop vectorises (this file is
// compiled with -fno-math-errno: sqrt needs no errno check) at the CPU's widest vectors
// (core/engine/vector_clones.h), which for a few thousand parameters beats FlatAdam's eight
// tensor ops.
// Torch-free.
#pragma once

#include <cstdint>

namespace fl::fourier_head::batched {

struct AdamConstants {  // FlatAdamOptions' defaults
  double beta1 = 0.9;
  double beta2 = 0.999;
  double eps = 1e-8;
};

// Step number `step` (1 for the first) of `count` parameters with learning rate `lr`.
void adamStepRow(float* parameters, const float* gradients, float* firstMoment, float* secondMoment,
                 int64_t count, double lr, int64_t step, const AdamConstants& constants = {});

}  // namespace fl::fourier_head::batched
