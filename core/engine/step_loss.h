// A training step's loss as a Trial hands it to the Runner: a number already on the host, or a
// 0-dim tensor still on the device that computed it. Reading a device tensor waits for the
// device (a host synchronisation); the RunReporter reads pending GPU losses together, only when
// it reports (a logged mean, an evaluation, a checkpoint), so a CUDA step never waits for the
// GPU. A CPU loss is read at its step, as it costs nothing. Torch-free header: the tensor is
// held behind a pointer, so torch-free code that includes experiment.h stays light.
#pragma once

#include <memory>

namespace at {
class Tensor;
}

namespace fl {

class StepLoss {
 public:
  StepLoss(double value) : m_value(value) {}  // NOLINT: a plain number is a loss
  // The loss tensor of the step: detached, so no graph is kept alive while it waits.
  StepLoss(const at::Tensor& loss);  // NOLINT

  // True when reading costs no synchronisation: a number, or a tensor on the CPU.
  bool onHost() const;
  double read() const;
  // The tensor, or null for a number.
  const at::Tensor* tensor() const { return m_tensor.get(); }

 private:
  double m_value = 0;
  std::shared_ptr<const at::Tensor> m_tensor;
};

}  // namespace fl
