#include "experiments/fourier_head/batched_adam.h"

#include <cmath>

#include "core/engine/vector_clones.h"

namespace fl::fourier_head::batched {

FL_VECTOR_CLONES void adamStepRow(float* __restrict parameters, const float* __restrict gradients,
                                  float* __restrict firstMoment, float* __restrict secondMoment,
                                  int64_t count, double lr, int64_t step,
                                  const AdamConstants& constants) {
  // FlatAdam computes its scalars in double and LibTorch applies them to float tensors as
  // floats; so do these.
  const double biasCorrection1 = 1.0 - std::pow(constants.beta1, static_cast<double>(step));
  const double biasCorrection2 = 1.0 - std::pow(constants.beta2, static_cast<double>(step));
  const float beta1 = static_cast<float>(constants.beta1);
  const float oneMinusBeta1 = static_cast<float>(1.0 - constants.beta1);
  const float beta2 = static_cast<float>(constants.beta2);
  const float oneMinusBeta2 = static_cast<float>(1.0 - constants.beta2);
  const float sqrtBiasCorrection2 = static_cast<float>(std::sqrt(biasCorrection2));
  const float eps = static_cast<float>(constants.eps);
  const float stepSize = static_cast<float>(-lr / biasCorrection1);
  for (int64_t i = 0; i < count; ++i) {
    const float g = gradients[i];
    const float m = firstMoment[i] * beta1 + oneMinusBeta1 * g;
    const float v = secondMoment[i] * beta2 + oneMinusBeta2 * g * g;
    const float denominator = std::sqrt(v) / sqrtBiasCorrection2 + eps;
    firstMoment[i] = m;
    secondMoment[i] = v;
    parameters[i] = parameters[i] + stepSize * m / denominator;
  }
}

}  // namespace fl::fourier_head::batched
