#include "core/engine/captured_loss_step.h"

#include <torch/torch.h>

#include "core/engine/captured_step.h"
#include "core/engine/device.h"

namespace fl {

CapturedLossStep::CapturedLossStep(c10::Device device, LossOf lossOf,
                                   std::function<void()> zeroGrad,
                                   std::function<uint64_t()> generation)
    : m_device(device),
      m_lossOf(std::move(lossOf)),
      m_zeroGrad(std::move(zeroGrad)),
      m_generation(std::move(generation)) {}

// The graph and its stream go first: queued steps finish before the buffers they use are freed.
CapturedLossStep::~CapturedLossStep() { m_captured.reset(); }

bool CapturedLossStep::shapeChanged(const std::vector<torch::Tensor>& batch) const {
  if (batch.size() != m_batch.size()) return true;
  for (size_t i = 0; i < batch.size(); ++i)
    if (batch[i].sizes() != m_batch[i].sizes() ||
        batch[i].scalar_type() != m_batch[i].scalar_type())
      return true;
  return false;
}

torch::Tensor CapturedLossStep::run(const std::vector<torch::Tensor>& batch) {
  const bool reshaped = shapeChanged(batch);
  const bool moved = m_stale || m_generation() != m_recordedGeneration;
  if (!m_captured) m_captured = std::make_unique<CapturedStep>(m_device);
  const bool recordNow = m_recordings == 0 || (!m_captured->refused() && (reshaped || moved));
  if (reshaped) {
    m_batch.clear();
    for (const auto& t : batch)
      m_batch.push_back(torch::empty(t.sizes(), t.options().device(m_device)));
  }
  // On the thread's current stream (the graph's own, see captured_step.h): ordered before the
  // step.
  for (size_t i = 0; i < batch.size(); ++i) copyWithoutWaiting(m_batch[i], batch[i]);
  if (recordNow) {
    ++m_recordings;
    m_captured->record([this] { forwardBackward(); });
  }
  m_captured->run();
  if (recordNow) {
    // Read after the first step: an eager one (the CPU) builds the model's tables only now.
    m_recordedGeneration = m_generation();
    m_stale = false;
  }
  // A replay writes the same memory each step: the caller's loss is a copy of it.
  return m_captured->isGraph() ? m_loss.clone() : m_loss;
}

void CapturedLossStep::forwardBackward() {
  m_zeroGrad();
  auto loss = m_lossOf(m_batch);
  loss.backward();
  m_loss = loss.detach();
}

bool CapturedLossStep::isGraph() const { return m_captured && m_captured->isGraph(); }

std::string CapturedLossStep::description() const {
  if (m_device.is_cpu() || !m_captured) return {};
  if (m_captured->isGraph()) return "each step replayed as one CUDA graph";
  return "eager steps (" + m_captured->reason() + ")";
}

std::string CapturedLossStep::reason() const {
  return m_captured ? m_captured->reason() : "no step taken yet";
}

}  // namespace fl
