// CapturedLossStep: the device half of a training step (zero the gradients, the loss of a
// batch, its backward pass) recorded once as a CUDA graph over fixed input buffers and then
// replayed, so that a model of many small ops (a transformer's attention filters, norms and
// casts: a few thousand kernel launches and their autograd bookkeeping) costs the host one
// graph launch per step. The optimiser's update stays outside: a dozen launches whose scalars
// (learning rate, bias corrections) change every step.
//
//   CapturedLossStep step(device, lossOf, zeroGrad, generation);
//   auto loss = step.run({inputs, targets});  // the batch's CPU tensors in, the loss out
//   optimiser.step();
//
// A graph replays the memory it was recorded on, so the step records again (two eager warm-up
// steps, then the capture) when the batch's shape changes, when `generation` (the count of
// the model's rebuilt constant tables, e.g. an evaluation at another length replaced the
// rotary factors) has moved, or after invalidate() (a checkpoint was loaded). Where no graph
// can be made (the CPU, a capture CUDA refused) the same code runs eagerly, on the same
// buffers, with the same numbers; reason() says why.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <torch/types.h>

namespace fl {

class CapturedStep;

class CapturedLossStep {
 public:
  // The loss of a batch: the step's device copies of the tensors run() was given, in order.
  using LossOf = std::function<torch::Tensor(const std::vector<torch::Tensor>& batch)>;

  CapturedLossStep(c10::Device device, LossOf lossOf, std::function<void()> zeroGrad,
                   std::function<uint64_t()> generation);
  ~CapturedLossStep();
  CapturedLossStep(const CapturedLossStep&) = delete;
  CapturedLossStep& operator=(const CapturedLossStep&) = delete;

  // One step on this batch (CPU tensors, uploaded without waiting for the device). Returns the
  // loss, detached, on the device: a tensor of its own, which later steps do not overwrite.
  torch::Tensor run(const std::vector<torch::Tensor>& batch);
  // The next run() records again (the model's parameters or buffers were loaded in place, or
  // anything else the recorded step reads may have moved).
  void invalidate() { m_stale = true; }

  bool isGraph() const;
  // For the run's status: on a GPU, "each step replayed as one CUDA graph" or "eager steps (why)";
  // empty on the CPU and before the first step.
  std::string description() const;
  // How often the step was set up (recorded, or tried) since construction.
  int recordings() const { return m_recordings; }
  std::string reason() const;

 private:
  bool shapeChanged(const std::vector<torch::Tensor>& batch) const;
  void forwardBackward();

  c10::Device m_device;
  LossOf m_lossOf;
  std::function<void()> m_zeroGrad;
  std::function<uint64_t()> m_generation;
  std::unique_ptr<CapturedStep> m_captured;
  std::vector<torch::Tensor> m_batch;  // the step's own buffers: every batch is copied in
  torch::Tensor m_loss;                // written by the step (by the graph when replayed)
  uint64_t m_recordedGeneration = 0;
  bool m_stale = true;
  int m_recordings = 0;
};

}  // namespace fl
