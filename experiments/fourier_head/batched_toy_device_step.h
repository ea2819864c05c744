// BatchedToyDeviceStep: the training step of a batched group's K toy regressors as tensor ops on
// one device: the GPU's path (the CPU has BatchedToyNetwork's hand-written kernels, faster
// there). Every member's training data, epoch order, parameters, Adam moments, step count,
// learning rate and gamma live on the device as (K, ...) tensors, and a step (each member's batch
// gathered by its own step, the forward pass, gradients by autograd, Adam) reads nothing back
// to the host. On CUDA it is recorded once as a CUDA graph and replayed (captured_step.h), so a
// step of all K members is one launch.
//
// The arithmetic is the single run's: the trunk and heads as core/nn computes them, the
// cross-entropy of torch::nn::functional::cross_entropy over the member's rows of its batch,
// gamma times the Fourier head's regulariser, Adam as FlatAdam (its scalars in double). So a
// member's losses equal its single run's within float rounding (tests/test_batched_fourier_head).
//
// A member whose loss is not finite stops updating at that step, on the device: its single
// run fails there, and the Runner fails it when it reads that loss; the others go on.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include <torch/types.h>

#include "experiments/fourier_head/batched_toy_network.h"

namespace fl {
class CapturedStep;
}

namespace fl::fourier_head::batched {

struct DeviceMember {
  torch::Tensor trainInputs;   // (Ntr, inputs) float; every member has the same Ntr
  torch::Tensor trainTargets;  // (Ntr) long
  double lr = 0;
  double gamma = 0;  // 0: no regulariser
  // Where each entry of the member's own parameter row sits in the group's row (the layout's),
  // for a Fourier head with fewer frequencies than the group's: its own entries first, then the
  // group's entries it lacks (see below). Empty: the member's layout is the group's.
  std::vector<int64_t> slots;
  int64_t ownSize = 0;  // with slots: the member's own parameters, P_i (the rest is padding)
};

// Fourier heads of different N in one group: the group's head has the largest N, and a member
// with fewer frequencies holds zeros in the amplitude rows it lacks (u_k, v_k for k > N), whose
// gradients are masked so that Adam never moves them. Zero amplitudes add exact zeros to the
// basis products, the autocorrelation and the regulariser, so the member trains as its own
// single run, within float rounding. Its row on the host stays in its own layout: the first
// P_i entries its parameters, the rest zeros (the padding, which upload and download move).
// `slots` maps a member's own row of P entries onto the group's: a permutation.
std::vector<int64_t> fourierSlots(const ParameterLayout& own, const ParameterLayout& group,
                                  int64_t ownFrequencies, int64_t groupFrequencies,
                                  int64_t features);

// The Fourier head's constant tensors, as its module holds them (undefined for other heads).
struct FourierHeadBuffers {
  torch::Tensor binBasis;        // (2(N+1), 2m): the basis at the bin centres
  torch::Tensor lagSelector;     // ((N+1)^2, N+1): the autocorrelation's lags
  torch::Tensor penaltyWeights;  // (N+1): 2 pi^2 k^2
};

class BatchedToyDeviceStep {
 public:
  // `fourier`: the Fourier head's buffers (none for the other heads); `centers`: the m bin
  // centres. Create and use it on one thread (on CUDA it makes a stream of its own that
  // thread's current one).
  BatchedToyDeviceStep(const NetworkShape& shape, const ParameterLayout& layout,
                       const FourierHeadBuffers& fourier, const torch::Tensor& centers,
                       int64_t stepsPerEpoch, const std::vector<DeviceMember>& members,
                       c10::Device device);
  ~BatchedToyDeviceStep();

  // The group's state from the host, before the first step: (K, P) parameters and Adam
  // moments (each row in its member's own layout), each member's steps.
  void upload(const torch::Tensor& parameters, const torch::Tensor& firstMoment,
              const torch::Tensor& secondMoment, const std::vector<int64_t>& stepsDone);
  // The state back into host (K, P) tensors, with the gradients of the last step.
  void download(const torch::Tensor& parameters, const torch::Tensor& firstMoment,
                const torch::Tensor& secondMoment, const torch::Tensor& gradients) const;
  // The member's order of its training samples for the epoch its next step begins.
  void setOrder(int64_t member, const std::vector<int64_t>& order);

  // One step of the members `stepping` marks (the others keep their state): the (K) losses on
  // the device, 0 where a member took no step.
  torch::Tensor step(const std::vector<bool>& stepping);

  // Whether steps replay a CUDA graph, and why not when they do not.
  bool isGraph() const;
  std::string eagerReason() const;

 private:
  void computeStep();  // the recorded work: reads and writes only the tensors below, in place
  torch::Tensor memberLosses(const torch::Tensor& heads, const torch::Tensor& targets,
                             const torch::Tensor& rowWeights, const torch::Tensor& counts);
  void flushOrders();

  NetworkShape m_shape;
  ParameterLayout m_layout;
  int64_t m_stepsPerEpoch;
  int64_t m_trainSize;
  bool m_anyPenalty = false;

  torch::Tensor m_inputs;          // (K, Ntr, inputs)
  torch::Tensor m_targets;         // (K, Ntr) long
  torch::Tensor m_order;           // (K, Ntr) long: this epoch's order of each member's samples
  torch::Tensor m_rowOffsets;      // (B) long: 0 .. B-1
  torch::Tensor m_basis;           // (O, 2m) Fourier
  torch::Tensor m_lagSelector;     // ((N+1)^2, N+1) Fourier
  torch::Tensor m_penaltyWeights;  // (N+1) Fourier: 2 pi^2 k^2
  torch::Tensor m_centers;         // (m)
  torch::Tensor m_lr;              // (K) double
  torch::Tensor m_gamma;           // (K) float
  torch::Tensor m_hasPenalty;      // (K) bool
  torch::Tensor m_parameters;      // (K, P), requires grad
  torch::Tensor m_firstMoment, m_secondMoment;  // (K, P)
  torch::Tensor m_gradients;                    // (K, P): the last step's
  torch::Tensor m_slots;         // (K, P) long: own row entry -> group row entry; or undefined
  torch::Tensor m_gradientMask;  // (K, P) float: 0 on padding; undefined without padding
  torch::Tensor m_steps;         // (K) long: steps done
  torch::Tensor m_stepping;      // (K) bool: who steps
  torch::Tensor m_alive;         // (K) bool: no loss was non-finite
  torch::Tensor m_losses;        // (K) float: the last step's

  std::vector<bool> m_lastStepping;
  std::vector<std::pair<int64_t, std::vector<int64_t>>> m_pendingOrders;
  std::unique_ptr<CapturedStep> m_captured;
};

}  // namespace fl::fourier_head::batched
