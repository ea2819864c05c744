#include "experiments/fourier_head/batched_toy_device_step.h"

#include <cmath>
#include <stdexcept>
#include <string>

#include <torch/torch.h>

#include "core/engine/captured_step.h"
#include "core/nn/gmm_head.h"
#include "experiments/fourier_head/batched_adam.h"

namespace fl::fourier_head::batched {

namespace {

constexpr double kLogitFloor = 1e-5;  // inside the Fourier head's log(q + 1e-5)

// (K, P) -> member parameters (K, rows, columns) at `offset` of every row.
torch::Tensor block(const torch::Tensor& parameters, int64_t offset, int64_t rows,
                    int64_t columns) {
  return parameters.narrow(1, offset, rows * columns).view({parameters.size(0), rows, columns});
}

// (K, B, n) x (K, B, n) -> (K, B, n^2): x_p y_q for every pair, as FourierHead's outer product.
torch::Tensor pairProducts(const torch::Tensor& x, const torch::Tensor& y) {
  return (x.unsqueeze(3) * y.unsqueeze(2)).flatten(2);
}

}  // namespace

std::vector<int64_t> fourierSlots(const ParameterLayout& own, const ParameterLayout& group,
                                  int64_t ownFrequencies, int64_t groupFrequencies,
                                  int64_t features) {
  const int64_t n1 = ownFrequencies + 1, groupN1 = groupFrequencies + 1;
  if (ownFrequencies > groupFrequencies || own.headWeight != group.headWeight ||
      own.size != own.headBias + 2 * n1 || group.size != group.headBias + 2 * groupN1)
    throw std::logic_error("a Fourier head of " + std::to_string(ownFrequencies) +
                           " frequencies does not fit a group's of " +
                           std::to_string(groupFrequencies));
  // The head's outputs are u_0..u_N then v_0..v_N: v_k moves down by the frequencies added.
  auto groupOutput = [&](int64_t r) { return r < n1 ? r : groupN1 + (r - n1); };
  std::vector<int64_t> slots;
  for (int64_t j = 0; j < own.headWeight; ++j) slots.push_back(j);  // the trunk, as it is
  for (int64_t r = 0; r < 2 * n1; ++r)
    for (int64_t c = 0; c < features; ++c)
      slots.push_back(group.headWeight + groupOutput(r) * features + c);
  for (int64_t r = 0; r < 2 * n1; ++r) slots.push_back(group.headBias + groupOutput(r));
  // The padding: the group's entries the member lacks, in order.
  std::vector<bool> taken(static_cast<size_t>(group.size), false);
  for (const int64_t slot : slots) taken[static_cast<size_t>(slot)] = true;
  for (int64_t j = 0; j < group.size; ++j)
    if (!taken[static_cast<size_t>(j)]) slots.push_back(j);
  return slots;
}

BatchedToyDeviceStep::BatchedToyDeviceStep(const NetworkShape& shape, const ParameterLayout& layout,
                                           const FourierHeadBuffers& fourier,
                                           const torch::Tensor& centers, int64_t stepsPerEpoch,
                                           const std::vector<DeviceMember>& members,
                                           c10::Device device)
    : m_shape(shape),
      m_layout(layout),
      m_stepsPerEpoch(stepsPerEpoch),
      m_captured(std::make_unique<CapturedStep>(device)) {
  const auto K = static_cast<int64_t>(members.size());
  if (K != shape.members)
    throw std::invalid_argument("the device step got " + std::to_string(K) + " members for " +
                                std::to_string(shape.members));
  m_trainSize = members.front().trainInputs.size(0);
  std::vector<torch::Tensor> inputs, targets;
  std::vector<double> lr, gamma;
  std::vector<int64_t> slots;
  bool padded = false;
  for (const auto& m : members) padded = padded || !m.slots.empty();
  for (const auto& m : members) {
    if (padded) {
      std::vector<int64_t> own = m.slots;
      if (own.empty())
        for (int64_t j = 0; j < layout.size; ++j) own.push_back(j);
      if (static_cast<int64_t>(own.size()) != layout.size)
        throw std::invalid_argument("a member's slots cover " + std::to_string(own.size()) +
                                    " of the group's " + std::to_string(layout.size) +
                                    " parameters");
      slots.insert(slots.end(), own.begin(), own.end());
    }
    if (m.trainInputs.size(0) != m_trainSize)
      throw std::invalid_argument("members of a group have training sets of different sizes");
    inputs.push_back(m.trainInputs.to(torch::kFloat));
    targets.push_back(m.trainTargets.to(torch::kLong));
    lr.push_back(m.lr);
    gamma.push_back(m.gamma);
  }
  const auto on = torch::TensorOptions().device(device);
  m_inputs = torch::stack(inputs).to(device);
  m_targets = torch::stack(targets).to(device);
  m_order = torch::arange(m_trainSize, on.dtype(torch::kLong)).repeat({K, 1});
  m_rowOffsets = torch::arange(shape.batch, on.dtype(torch::kLong));
  m_lr = torch::tensor(lr, torch::kDouble).to(device);
  m_gamma = torch::tensor(gamma, torch::kDouble).to(device, torch::kFloat);
  m_hasPenalty = m_gamma > 0;
  for (const double g : gamma) m_anyPenalty = m_anyPenalty || g > 0;
  m_centers = centers.to(device, torch::kFloat);
  if (shape.head == HeadKind::Fourier) {
    m_basis = fourier.binBasis.to(device, torch::kFloat);
    m_lagSelector = fourier.lagSelector.to(device, torch::kFloat);
    m_penaltyWeights = fourier.penaltyWeights.to(device, torch::kFloat);
  }
  const int64_t P = layout.size;
  m_parameters = torch::zeros({K, P}, on.dtype(torch::kFloat)).requires_grad_(true);
  m_firstMoment = torch::zeros({K, P}, on.dtype(torch::kFloat));
  m_secondMoment = torch::zeros({K, P}, on.dtype(torch::kFloat));
  m_gradients = torch::zeros({K, P}, on.dtype(torch::kFloat));
  if (padded) {
    m_slots = torch::tensor(slots, torch::kLong).view({K, P}).to(device);
    // Gradients only where a member's model has parameters: its first P_i slots.
    auto mask = torch::zeros({K, P}, torch::kFloat);
    for (int64_t k = 0; k < K; ++k) {
      const auto& own = members[static_cast<size_t>(k)];
      const int64_t ownSize = own.slots.empty() ? P : own.ownSize;
      auto row = m_slots[k].narrow(0, 0, ownSize).cpu();
      mask[k].index_fill_(0, row, 1.0f);
    }
    m_gradientMask = mask.to(device);
  }
  m_steps = torch::zeros({K}, on.dtype(torch::kLong));
  m_stepping = torch::zeros({K}, on.dtype(torch::kBool));
  m_alive = torch::ones({K}, on.dtype(torch::kBool));
  m_losses = torch::zeros({K}, on.dtype(torch::kFloat));
  m_lastStepping.assign(static_cast<size_t>(K), false);
  // Recorded now, on the zeros above (what a step computes does not change its kernels); the
  // warm-up runs' effects vanish at the first upload, and the mask until then steps no one.
  m_captured->record([this] { computeStep(); });
}

BatchedToyDeviceStep::~BatchedToyDeviceStep() = default;

void BatchedToyDeviceStep::upload(const torch::Tensor& parameters, const torch::Tensor& firstMoment,
                                  const torch::Tensor& secondMoment,
                                  const std::vector<int64_t>& stepsDone) {
  torch::NoGradGuard noGrad;
  // Rows in the members' own layouts, moved into the group's (padding included: zeros).
  auto groupRows = [this](const torch::Tensor& own) {
    if (!m_slots.defined()) return own.to(m_firstMoment.device());
    return torch::empty_like(m_firstMoment).scatter_(1, m_slots, own.to(m_firstMoment.device()));
  };
  m_parameters.copy_(groupRows(parameters));
  m_firstMoment.copy_(groupRows(firstMoment));
  m_secondMoment.copy_(groupRows(secondMoment));
  m_steps.copy_(torch::tensor(stepsDone, torch::kLong));
  m_alive.fill_(true);
}

void BatchedToyDeviceStep::download(const torch::Tensor& parameters,
                                    const torch::Tensor& firstMoment,
                                    const torch::Tensor& secondMoment,
                                    const torch::Tensor& gradients) const {
  torch::NoGradGuard noGrad;
  // One copy of everything, then the host's rows (a copy to the host waits for the device).
  auto all = torch::stack({m_parameters.detach(), m_firstMoment, m_secondMoment, m_gradients});
  if (m_slots.defined()) all = all.gather(2, m_slots.unsqueeze(0).expand_as(all));  // own layouts
  all = all.to(torch::kCPU);
  parameters.copy_(all[0]);
  firstMoment.copy_(all[1]);
  secondMoment.copy_(all[2]);
  gradients.copy_(all[3]);
}

void BatchedToyDeviceStep::setOrder(int64_t member, const std::vector<int64_t>& order) {
  if (static_cast<int64_t>(order.size()) != m_trainSize)
    throw std::invalid_argument("an epoch order of " + std::to_string(order.size()) +
                                " samples for a training set of " + std::to_string(m_trainSize));
  m_pendingOrders.emplace_back(member, order);
}

void BatchedToyDeviceStep::flushOrders() {
  if (m_pendingOrders.empty()) return;
  const auto rows = static_cast<int64_t>(m_pendingOrders.size());
  // Through pinned memory, without waiting: the allocator keeps the buffer until the copy ran.
  auto pinned = torch::TensorOptions().dtype(torch::kLong).pinned_memory(m_inputs.is_cuda());
  auto host = torch::empty({rows, m_trainSize}, pinned);
  auto members = torch::empty({rows}, pinned);
  for (int64_t r = 0; r < rows; ++r) {
    const auto& [member, order] = m_pendingOrders[static_cast<size_t>(r)];
    members.data_ptr<int64_t>()[r] = member;
    std::copy(order.begin(), order.end(), host[r].data_ptr<int64_t>());
  }
  m_pendingOrders.clear();
  torch::NoGradGuard noGrad;
  m_order.index_copy_(0, members.to(m_order.device(), /*non_blocking=*/true),
                      host.to(m_order.device(), /*non_blocking=*/true));
}

torch::Tensor BatchedToyDeviceStep::step(const std::vector<bool>& stepping) {
  if (stepping.size() != m_lastStepping.size())
    throw std::invalid_argument("a step mask of " + std::to_string(stepping.size()) +
                                " members for a group of " + std::to_string(m_lastStepping.size()));
  if (stepping != m_lastStepping) {
    std::vector<uint8_t> mask(stepping.begin(), stepping.end());
    m_stepping.copy_(torch::tensor(mask, torch::kUInt8).to(torch::kBool));
    m_lastStepping = stepping;
  }
  flushOrders();
  m_captured->run();
  return m_losses.clone();
}

bool BatchedToyDeviceStep::isGraph() const { return m_captured->isGraph(); }

std::string BatchedToyDeviceStep::eagerReason() const { return m_captured->reason(); }

torch::Tensor BatchedToyDeviceStep::memberLosses(const torch::Tensor& heads,
                                                 const torch::Tensor& targets,
                                                 const torch::Tensor& rowWeights,
                                                 const torch::Tensor& counts) {
  const int64_t K = heads.size(0), B = heads.size(1), m = m_shape.bins;
  torch::Tensor logits;  // (K, B, m), as the member's head hands them to the cross-entropy
  switch (m_shape.head) {
    case HeadKind::Linear:
      logits = heads;
      break;
    case HeadKind::Fourier: {
      auto reIm = torch::matmul(heads, m_basis);              // (K, B, 2m): Re A(z), Im A(z)
      auto s = reIm.pow(2).view({K, B, 2, m}).sum(2);         // |A(z)|^2
      logits = torch::log(s / s.sum(2, true) + kLogitFloor);  // log(q + 1e-5)
      break;
    }
    case HeadKind::Gmm: {
      const int64_t G = m_shape.gaussians;
      auto mu = torch::tanh(heads).unsqueeze(3);  // (K, B, G, 1)
      auto rawStd = m_parameters.narrow(1, m_layout.rawStd, G);
      auto sigma = torch::softplus(rawStd).view({K, 1, G, 1});
      auto standardised = (m_centers.view({1, 1, 1, m}) - mu) / sigma;
      auto pdf = torch::exp(-0.5 * standardised * standardised) / (sigma * std::sqrt(2.0 * M_PI));
      logits = torch::log(pdf.mean(2) + nn::GmmHeadImpl::kDensityFloor);
      break;
    }
  }
  auto rowLoss = -torch::log_softmax(logits, 2).gather(2, targets.unsqueeze(2)).squeeze(2);
  auto loss = (rowLoss * rowWeights).sum(1) / counts;  // (K): the mean over the member's rows
  if (m_anyPenalty) {
    // gamma * 2 * mean over rows of sum_k 2 pi^2 k^2 |c_k|^2, c the amplitudes' autocorrelation.
    const int64_t n1 = m_shape.frequencies + 1;
    auto u = heads.narrow(2, 0, n1), v = heads.narrow(2, n1, n1);
    auto re = torch::matmul(pairProducts(u, u) + pairProducts(v, v), m_lagSelector);
    auto im = torch::matmul(pairProducts(v, u) - pairProducts(u, v), m_lagSelector);
    auto rows = ((re * re + im * im) * m_penaltyWeights).sum(2);  // (K, B)
    auto penalty = 2.0 * (rows * rowWeights).sum(1) / counts;
    loss = torch::where(m_hasPenalty, loss + m_gamma * penalty, loss);
  }
  return loss;
}

void BatchedToyDeviceStep::computeStep() {
  const NetworkShape& s = m_shape;
  const ParameterLayout& l = m_layout;
  const int64_t K = s.members, B = s.batch;

  // Each member's batch from its own step: rows start .. start + B of its epoch's order, the
  // last batch of an epoch short where the training set does not divide into batches.
  auto position = (m_steps.remainder(m_stepsPerEpoch) * B).unsqueeze(1) + m_rowOffsets;  // (K, B)
  auto rowWeights = (position < m_trainSize).to(torch::kFloat);
  auto counts = rowWeights.sum(1);
  auto sample = m_order.gather(1, position.clamp_max(m_trainSize - 1));
  auto x = m_inputs.gather(1, sample.unsqueeze(2).expand({K, B, s.inputs}));
  auto targets = m_targets.gather(1, sample);

  const auto& p = m_parameters;
  auto w1 = block(p, l.w1, s.hidden, s.inputs), b1 = block(p, l.b1, 1, s.hidden);
  auto w2 = block(p, l.w2, s.features, s.hidden), b2 = block(p, l.b2, 1, s.features);
  const int64_t O = s.headOutputs();
  auto w3 = block(p, l.headWeight, O, s.features), b3 = block(p, l.headBias, 1, O);
  auto h1 = torch::relu(torch::baddbmm(b1, x, w1.transpose(1, 2)));
  auto h2 = torch::relu(torch::baddbmm(b2, h1, w2.transpose(1, 2)));
  auto heads = torch::baddbmm(b3, h2, w3.transpose(1, 2));  // (K, B, O)
  auto loss = memberLosses(heads, targets, rowWeights, counts);

  auto live = m_stepping.logical_and(m_alive);
  auto total = torch::where(live, loss, torch::zeros_like(loss)).sum();
  auto g = torch::autograd::grad({total}, {m_parameters})[0];
  if (m_gradientMask.defined()) g = g * m_gradientMask;  // the padding stays zero

  torch::NoGradGuard noGrad;
  auto update = live.logical_and(torch::isfinite(loss.detach())).unsqueeze(1);  // (K, 1)
  // FlatAdam's step, its scalars per member in double, applied to floats.
  const AdamConstants adam;
  auto t = (m_steps + 1).to(torch::kDouble);
  auto stepSize = (-m_lr / (1.0 - torch::pow(adam.beta1, t))).to(torch::kFloat).unsqueeze(1);
  auto sqrtBias2 = torch::sqrt(1.0 - torch::pow(adam.beta2, t)).to(torch::kFloat).unsqueeze(1);
  auto first = m_firstMoment * adam.beta1 + (1.0 - adam.beta1) * g;
  auto second = m_secondMoment * adam.beta2 + (1.0 - adam.beta2) * g * g;
  auto denominator = second.sqrt() / sqrtBias2 + adam.eps;
  auto parameters = m_parameters.detach();
  parameters.copy_(torch::where(update, parameters + stepSize * first / denominator, parameters));
  m_firstMoment.copy_(torch::where(update, first, m_firstMoment));
  m_secondMoment.copy_(torch::where(update, second, m_secondMoment));
  m_gradients.copy_(g);
  m_losses.copy_(torch::where(m_stepping, loss.detach(), torch::zeros_like(m_losses)));
  m_alive.logical_and_(m_stepping.logical_not().logical_or(torch::isfinite(loss.detach())));
  m_steps.add_(m_stepping.to(torch::kLong));
}

}  // namespace fl::fourier_head::batched
