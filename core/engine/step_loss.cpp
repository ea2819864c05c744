#include "core/engine/step_loss.h"

#include <torch/types.h>

namespace fl {

StepLoss::StepLoss(const at::Tensor& loss) {
  // On the CPU the value is there already: read it, and keep no tensor alive.
  if (loss.device().is_cpu())
    m_value = loss.item<double>();
  else
    m_tensor = std::make_shared<const at::Tensor>(loss.detach().reshape({}));
}

bool StepLoss::onHost() const { return !m_tensor; }  // a CPU loss was read when it was made

double StepLoss::read() const { return m_tensor ? m_tensor->item<double>() : m_value; }

}  // namespace fl
