// A training step's loss as a Trial hands it to the Runner: a number already on the host, a
// 0-dim tensor still on the device that computed it, or one member's entry of a batched group's
// losses still on the device. Reading a device loss waits for the device (a host
// synchronisation); the RunReporter reads pending GPU losses together, only when it reports (a
// logged mean, an evaluation, a checkpoint), so a CUDA step never waits for the GPU. A CPU loss
// is read at its step, as it costs nothing. Torch-free header: the tensor is held behind a
// pointer, so torch-free code that includes experiment.h stays light.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

namespace at {
class Tensor;
}

namespace fl {

// One step's losses of the K members of a batched group, (K) on the device: copied to the
// host once, by the first member that reads its entry, for all K. Read on the group's thread.
class GroupStepLosses {
 public:
  explicit GroupStepLosses(const at::Tensor& losses);
  double read(int64_t member) const;

 private:
  std::shared_ptr<const at::Tensor> m_tensor;
  mutable std::vector<double> m_host;  // empty until the first read
};

class StepLoss {
 public:
  StepLoss(double value) : m_value(value) {}  // NOLINT: a plain number is a loss
  // The loss tensor of the step: detached, so no graph is kept alive while it waits.
  StepLoss(const at::Tensor& loss);  // NOLINT
  StepLoss(std::shared_ptr<const GroupStepLosses> group, int64_t member);

  // True when reading costs no synchronisation: a number, or a tensor on the CPU.
  bool onHost() const;
  double read() const;
  // The tensor of a lone device loss, or null (a number, a group's entry).
  const at::Tensor* tensor() const { return m_tensor.get(); }

 private:
  double m_value = 0;
  std::shared_ptr<const at::Tensor> m_tensor;
  std::shared_ptr<const GroupStepLosses> m_group;
  int64_t m_member = 0;
};

}  // namespace fl
