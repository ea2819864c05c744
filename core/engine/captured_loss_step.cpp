#include "core/engine/captured_loss_step.h"

#include <torch/torch.h>

#include "core/engine/captured_step.h"

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

torch::Tensor CapturedLossStep::run(const torch::Tensor& inputs, const torch::Tensor& targets) {
  const bool reshaped = !m_inputs.defined() || m_inputs.sizes() != inputs.sizes() ||
                        m_targets.sizes() != targets.sizes() ||
                        m_inputs.scalar_type() != inputs.scalar_type() ||
                        m_targets.scalar_type() != targets.scalar_type();
  const bool moved = m_stale || m_generation() != m_recordedGeneration;
  const bool refused = m_captured && m_captured->refused();
  const bool recordNow = !m_captured || (!refused && (reshaped || moved));
  if (recordNow) {
    // The old graph (and the stream it made the thread's) goes before the new one is made.
    m_captured.reset();
    m_captured = std::make_unique<CapturedStep>(m_device);
  }
  if (reshaped) {
    m_inputs = torch::empty(inputs.sizes(), inputs.options().device(m_device));
    m_targets = torch::empty(targets.sizes(), targets.options().device(m_device));
  }
  // On the thread's current stream (the graph's own, see captured_step.h), so ordered before
  // the step; pinned, so the copy does not wait for the device (the caching host allocator
  // keeps the pinned block until the copy has read it).
  const bool pin = m_device.is_cuda();
  m_inputs.copy_(pin ? inputs.pin_memory() : inputs, /*non_blocking=*/pin);
  m_targets.copy_(pin ? targets.pin_memory() : targets, /*non_blocking=*/pin);
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
  auto loss = m_lossOf(m_inputs, m_targets);
  loss.backward();
  m_loss = loss.detach();
}

bool CapturedLossStep::isGraph() const { return m_captured && m_captured->isGraph(); }

std::string CapturedLossStep::reason() const {
  return m_captured ? m_captured->reason() : "no step taken yet";
}

}  // namespace fl
