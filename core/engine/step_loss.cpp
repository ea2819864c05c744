#include "core/engine/step_loss.h"

#include <stdexcept>
#include <string>

#include <torch/types.h>

namespace fl {

GroupStepLosses::GroupStepLosses(const at::Tensor& losses)
    : m_tensor(std::make_shared<const at::Tensor>(losses.detach().reshape({-1}))) {}

double GroupStepLosses::read(int64_t member) const {
  if (m_host.empty()) {
    auto host = m_tensor->to(torch::kCPU, torch::kDouble).contiguous();
    m_host.assign(host.data_ptr<double>(), host.data_ptr<double>() + host.numel());
  }
  if (member < 0 || member >= static_cast<int64_t>(m_host.size()))
    throw std::out_of_range("member " + std::to_string(member) + " of a group of " +
                            std::to_string(m_host.size()) + " losses");
  return m_host[static_cast<size_t>(member)];
}

StepLoss::StepLoss(const at::Tensor& loss) {
  // On the CPU the value is there already: read it, and keep no tensor alive.
  if (loss.device().is_cpu())
    m_value = loss.item<double>();
  else
    m_tensor = std::make_shared<const at::Tensor>(loss.detach().reshape({}));
}

StepLoss::StepLoss(std::shared_ptr<const GroupStepLosses> group, int64_t member)
    : m_group(std::move(group)), m_member(member) {}

// A CPU loss was read when it was made.
bool StepLoss::onHost() const { return !m_tensor && !m_group; }

double StepLoss::read() const {
  if (m_group) return m_group->read(m_member);
  return m_tensor ? m_tensor->item<double>() : m_value;
}

}  // namespace fl
