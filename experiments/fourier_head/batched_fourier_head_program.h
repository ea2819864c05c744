// BatchedFourierHeadProgram: K runs of the toy benchmark whose shapes agree, trained as one
// program. Each member is an ordinary run: its data, split, initialisation and shuffle
// order are drawn exactly as its single FourierHeadTrial draws them (the same
// toy_benchmark_* code from the same seed), it has its own learning rate and gamma, its
// evaluation report has the single run's names, order and shapes, and its checkpoint is a
// single run's checkpoint (either resumes the other's). Only the arithmetic is shared: the K
// models' parameters are rows of one (K, P) buffer, a step is one pass of BatchedToyNetwork
// over all members' batches and Adam over their rows. Results equal the single runs' within
// float rounding (batched products sum in another order), not bit for bit. Stepped by tensor ops
// (on a GPU), Fourier heads of different N share a group: each member's row is its own model's
// parameters followed by zeros, and the device pads its head to the group's N (exact: the padded
// amplitudes stay zero).
//
// How a driver runs a group (the Runner's loop, for K runs at once):
//   BatchedFourierHeadProgram group(members);      // outside any SeededScope: it takes one
//   for (i) if (resuming i) group.loadCheckpoint(i, path);   // members may be at any step
//   while (any member active and unfinished) {
//     auto losses = group.trainStep();   // one step of every active, unfinished member
//     for (i) if (losses[i]) { step of i = group.stepsDone(i); NaN: i has failed, and the
//                              group has already set it inactive; the others go on }
//     evaluate, checkpoint, stop (setActive(i, false)) members as their plans say
//   }
// Everything runs on the calling thread. On the CPU a step is BatchedToyNetwork's hand-written
// kernels; on another device (or when asked) it is BatchedToyDeviceStep's tensor ops, the
// state kept on the device and copied back only when a member is evaluated, probed or
// checkpointed, and the losses handed out unread (a member whose loss is not finite is then
// stopped by whoever reads it, not by trainStep).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "core/engine/experiment.h"
#include "core/engine/step_loss.h"
#include "experiments/fourier_head/toy_benchmark_data.h"
#include "experiments/fourier_head/toy_benchmark_evaluation.h"
#include "experiments/fourier_head/toy_benchmark_settings.h"

namespace fl::fourier_head {

namespace batched {
class BatchedToyNetwork;
class BatchedToyDeviceStep;
}  // namespace batched

// One run of a group: its settings and seed, as a single run's config gives them.
struct BatchedMember {
  ToyBenchmarkSettings settings;
  uint64_t seed = 0;
};

class BatchedFourierHeadProgram {
 public:
  // Builds every member's data and model as its single run does: each model inside its own
  // SeededScope(seed), so the caller must hold none (it would deadlock). Throws
  // std::invalid_argument when the members' shapes differ (see shapeDifference).
  // Which code takes the steps: the CPU's kernels, or tensor ops on `device` (any device).
  enum class StepCode { Kernels, TensorOps };
  explicit BatchedFourierHeadProgram(std::vector<BatchedMember> members,
                                     c10::Device device = c10::Device(c10::kCPU));
  BatchedFourierHeadProgram(std::vector<BatchedMember> members, c10::Device device, StepCode code);
  ~BatchedFourierHeadProgram();
  BatchedFourierHeadProgram(const BatchedFourierHeadProgram&) = delete;
  BatchedFourierHeadProgram& operator=(const BatchedFourierHeadProgram&) = delete;

  // Empty when runs with these settings can train in one group stepped by `code`; otherwise
  // what differs. They must share the head and its size (G; N for the CPU's kernels), bins,
  // batch size, epochs, samples and test fraction; data set, variance, lr, gamma, seed,
  // eval_every and snapshot_inputs are each member's own. The tensor ops take Fourier heads of
  // any N together, the group's head as wide as the widest (batched_toy_device_step.h).
  static std::string shapeDifference(const ToyBenchmarkSettings& a, const ToyBenchmarkSettings& b,
                                     StepCode code = StepCode::Kernels);
  // The same rule as a key: equal for two settings exactly when shapeDifference is empty.
  static std::string shapeKey(const ToyBenchmarkSettings& s, StepCode code = StepCode::Kernels);
  // Which matrix-product code the group calls (the BLAS LibTorch loaded, or plain loops).
  static std::string gemmBackend();
  // How this group steps: "CPU kernels", "one CUDA graph per step", or "tensor ops, no CUDA
  // graph (why)".
  std::string stepDescription() const;

  int64_t memberCount() const { return static_cast<int64_t>(m_members.size()); }
  const BatchedMember& member(int64_t i) const;
  TrialPlan plan(int64_t i) const;  // the member's single run's plan
  int64_t stepsDone(int64_t i) const;

  // An inactive member keeps its state and takes no steps: stopped, failed or finished runs.
  // A member is set inactive by the step whose loss is not finite (its single run would fail
  // there).
  bool isActive(int64_t i) const;
  void setActive(int64_t i, bool active);

  // One optimisation step of every active member that has steps left (each at its own
  // stepsDone(i), so members may be at different steps): its loss, as its single run's
  // trainStep would return it; nullopt for the members that took no step.
  std::vector<std::optional<StepLoss>> trainStep();

  // Evaluations as the single run's evaluate(stepsDone, final, out), for any members at once
  // (each through the single run's code: at equal parameters, its report), side by side on the
  // calling thread's intra-op threads. evaluate(i, ...) also evaluates the other members due at
  // their current step, and hands out those reports when they are asked for.
  struct EvalRequest {
    int64_t member = 0;
    bool final = false;
  };
  std::vector<EvalReport> evaluate(const std::vector<EvalRequest>& requests);
  void evaluate(int64_t i, bool final, EvalReport& out);
  std::vector<Snapshot> probe(int64_t i, const std::map<std::string, double>& inputs);

  // A single run's checkpoint (FourierHeadTrial::saveCheckpoint's format). Loading one sets
  // the member's step to the checkpoint's (its Adam step count) and leaves it active or not.
  void saveCheckpoint(int64_t i, const std::string& path) const;
  void loadCheckpoint(int64_t i, const std::string& path);

  // Member i's parameters (P), flat in its single run's FlatAdam order, and the gradient of its
  // last step: views into the group's host buffers (what is written into them trains on).
  torch::Tensor parameters(int64_t i);
  torch::Tensor gradients(int64_t i) const;

 private:
  struct Member;
  Member& at(int64_t i);
  const Member& at(int64_t i) const;
  void gatherBatch(int64_t i);  // member i's next batch into the network's inputs
  void kernelStep(std::vector<std::optional<StepLoss>>& losses);
  void deviceStep(std::vector<std::optional<StepLoss>>& losses);
  // The device's state into the host buffers, when the device has stepped since.
  void fetchFromDevice() const;

  std::vector<std::unique_ptr<Member>> m_members;
  int64_t m_parameterCount = 0;  // P
  torch::Tensor m_parameters;    // (K, P): row i holds member i's model's parameters
  torch::Tensor m_gradients;     // (K, P)
  torch::Tensor m_firstMoment;   // (K, P) Adam
  torch::Tensor m_secondMoment;  // (K, P)
  std::unique_ptr<batched::BatchedToyNetwork> m_network;        // the CPU's kernels, or
  std::unique_ptr<batched::BatchedToyDeviceStep> m_deviceStep;  // tensor ops on a device
  mutable bool m_deviceAhead = false;  // the device stepped since the host buffers were fetched
  bool m_hostAhead = true;             // the host buffers changed since the device's upload
  std::unique_ptr<ToyEvaluation> m_evaluation;
  // Reports of members due for evaluation at the step they are at, computed beside another
  // member's (see evaluate(i, ...)); dropped when parameters may change.
  struct EvaluatedAhead {
    int64_t step = 0;
    bool final = false;
    EvalReport report;
  };
  std::map<int64_t, EvaluatedAhead> m_evaluatedAhead;
  std::vector<int64_t> m_stepping;  // this step's members
  std::vector<int64_t> m_chunk;     // the part of them in work
  std::vector<int64_t> m_counts;    // (K) rows of each member's batch
  std::vector<double> m_gamma;      // (K) 0 for heads without the regulariser
  std::vector<double> m_losses;     // (K)
};

}  // namespace fl::fourier_head
