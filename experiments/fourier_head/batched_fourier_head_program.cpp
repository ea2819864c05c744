#include "experiments/fourier_head/batched_fourier_head_program.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>
#include <stdexcept>

#include <torch/torch.h>

#include "core/engine/blas_gemm.h"
#include "core/engine/seeding.h"
#include "experiments/fourier_head/batched_adam.h"
#include "experiments/fourier_head/batched_toy_device_step.h"
#include "experiments/fourier_head/batched_toy_network.h"
#include "experiments/fourier_head/toy_checkpoint.h"

namespace fl::fourier_head {

// Members stepped together (forward, backward, Adam) before the next ones.
constexpr size_t kMembersPerChunk = 16;

struct BatchedFourierHeadProgram::Member {
  BatchedMember spec;
  TrialPlan plan;
  ToyBenchmarkData data;  // on the CPU
  // The member's model as its single run builds it, its parameters re-seated as views of
  // row i of the group's buffer: evaluation, snapshots and the probe use it as they are.
  ToyRegressor model{nullptr};
  std::mt19937_64 shuffleRng;
  std::vector<int64_t> order;  // this epoch's order; empty before the first step
  int64_t parameterCount = 0;  // P_i: the first P_i entries of its row (the rest: padding)
  int64_t stepsDone = 0;
  bool active = true;
};

namespace {

std::string text(double v) {
  std::ostringstream s;
  s << v;
  return s.str();
}

// Where each parameter sits in a member's row, and the network's widths, from the member's
// model: its parameters in FlatAdam's order (Module::parameters()), located by name.
batched::ParameterLayout layoutOf(ToyRegressorImpl& model, batched::NetworkShape& shape) {
  batched::ParameterLayout layout;
  int64_t offset = 0;
  for (const auto& item : model.named_parameters()) {
    const std::string& name = item.key();
    const torch::Tensor& p = item.value();
    if (name == "trunk.0.weight") {
      layout.w1 = offset;
      shape.hidden = p.size(0);
      shape.inputs = p.size(1);
    } else if (name == "trunk.0.bias") {
      layout.b1 = offset;
    } else if (name == "trunk.2.weight") {
      layout.w2 = offset;
      shape.features = p.size(0);
    } else if (name == "trunk.2.bias") {
      layout.b2 = offset;
    } else if (name == "head.linear.weight") {
      layout.headWeight = offset;
    } else if (name == "head.linear.bias") {
      layout.headBias = offset;
    } else if (name == "head.raw_std") {
      layout.rawStd = offset;
    } else {
      throw std::logic_error("the batched toy trainer does not know the parameter '" + name +
                             "' (was ToyRegressor changed?)");
    }
    offset += p.numel();
  }
  layout.size = offset;
  return layout;
}

batched::HeadKind headKind(const std::string& head) {
  if (head == "linear") return batched::HeadKind::Linear;
  if (head == "fourier") return batched::HeadKind::Fourier;
  if (head == "gmm") return batched::HeadKind::Gmm;
  throw std::invalid_argument("unknown head '" + head + "'");
}

std::vector<float> floatsOf(const torch::Tensor& t) {
  auto c = t.detach().to(torch::kCPU, torch::kFloat).contiguous();
  return std::vector<float>(c.data_ptr<float>(), c.data_ptr<float>() + c.numel());
}

}  // namespace

std::string BatchedFourierHeadProgram::shapeDifference(const ToyBenchmarkSettings& a,
                                                       const ToyBenchmarkSettings& b,
                                                       StepCode code) {
  auto differ = [](const char* key, const std::string& x, const std::string& y) {
    return std::string(key) + " " + x + " vs " + y;
  };
  if (a.head != b.head) return differ("head", a.head, b.head);
  if (a.head == "fourier" && a.frequencies != b.frequencies && code == StepCode::Kernels)
    return differ("frequencies", std::to_string(a.frequencies), std::to_string(b.frequencies));
  if (a.head == "gmm" && a.gaussians != b.gaussians)
    return differ("gaussians", std::to_string(a.gaussians), std::to_string(b.gaussians));
  if (a.bins != b.bins) return differ("bins", std::to_string(a.bins), std::to_string(b.bins));
  if (a.batchSize != b.batchSize)
    return differ("batch_size", std::to_string(a.batchSize), std::to_string(b.batchSize));
  if (a.epochs != b.epochs)
    return differ("epochs", std::to_string(a.epochs), std::to_string(b.epochs));
  if (a.samples != b.samples)
    return differ("samples", std::to_string(a.samples), std::to_string(b.samples));
  if (a.testFraction != b.testFraction)
    return differ("test_fraction", text(a.testFraction), text(b.testFraction));
  return {};
}

std::string BatchedFourierHeadProgram::shapeKey(const ToyBenchmarkSettings& s, StepCode code) {
  // Numbers in full: a rounded test fraction would join settings shapeDifference keeps apart.
  char fraction[40];
  std::snprintf(fraction, sizeof fraction, "%a", s.testFraction);
  const bool kernelsSizeByN = s.head == "fourier" && code == StepCode::Kernels;
  return s.head + "|" + (kernelsSizeByN ? std::to_string(s.frequencies) : "-") + "|" +
         (s.head == "gmm" ? std::to_string(s.gaussians) : "-") + "|" + std::to_string(s.bins) +
         "|" + std::to_string(s.batchSize) + "|" + std::to_string(s.epochs) + "|" +
         std::to_string(s.samples) + "|" + fraction;
}

std::string BatchedFourierHeadProgram::gemmBackend() { return fl::gemmBackend(); }

std::string BatchedFourierHeadProgram::stepDescription() const {
  // Short: it ends the group's runs' status line in the window's Runs table.
  if (!m_deviceStep) return "CPU kernels";
  if (m_deviceStep->isGraph()) return "one CUDA graph per step";
  return "tensor ops, no CUDA graph (" + m_deviceStep->eagerReason() + ")";
}

BatchedFourierHeadProgram::BatchedFourierHeadProgram(std::vector<BatchedMember> members,
                                                     c10::Device device)
    : BatchedFourierHeadProgram(std::move(members), device,
                                device.is_cpu() ? StepCode::Kernels : StepCode::TensorOps) {}

BatchedFourierHeadProgram::BatchedFourierHeadProgram(std::vector<BatchedMember> members,
                                                     c10::Device device, StepCode code) {
  if (code == StepCode::Kernels && !device.is_cpu())
    throw std::invalid_argument("the batched toy kernels run on the CPU, not on " + device.str());
  if (members.empty()) throw std::invalid_argument("a batched group needs at least one member");
  for (size_t i = 1; i < members.size(); ++i) {
    const auto why = shapeDifference(members[0].settings, members[i].settings, code);
    if (!why.empty())
      throw std::invalid_argument("member " + std::to_string(i) +
                                  " cannot train in member 0's group: " + why);
  }
  const ToyBenchmarkSettings& first = members[0].settings;
  const auto K = static_cast<int64_t>(members.size());

  for (auto& spec : members) {
    auto m = std::make_unique<Member>();
    m->spec = spec;
    // As FourierHeadTrial's constructor: the data and shuffle streams from the seed, the
    // model from the global generator seeded with it (nothing else drawn in between).
    m->shuffleRng = makeStream(spec.seed, "shuffle");
    m->data = drawToyBenchmarkData(spec.settings, spec.seed, torch::kCPU);
    {
      SeededScope seeded(spec.seed);
      m->model = makeToyModel(spec.settings);
    }
    m->plan = toyBenchmarkPlan(spec.settings, m->data.trainSize());
    m_members.push_back(std::move(m));
  }

  // The group's network is the widest member's: the most frequencies (the others padded).
  int64_t widest = 0;
  for (int64_t i = 1; i < K; ++i)
    if (m_members[i]->spec.settings.frequencies > m_members[widest]->spec.settings.frequencies)
      widest = i;
  batched::NetworkShape shape;
  shape.head = headKind(first.head);
  shape.members = K;
  shape.batch = first.batchSize;
  shape.bins = first.bins;
  shape.frequencies = m_members[widest]->spec.settings.frequencies;
  shape.gaussians = first.gaussians;
  const batched::ParameterLayout layout = layoutOf(*m_members[widest]->model, shape);
  m_parameterCount = layout.size;
  std::vector<batched::ParameterLayout> layouts;
  for (auto& m : m_members) {
    batched::NetworkShape own = shape;
    layouts.push_back(layoutOf(*m->model, own));
    m->parameterCount = layouts.back().size;
  }

  // Each member's initial parameters into its row, and its model's parameters re-seated as
  // views of that row (as FlatAdam does with its flat buffer).
  m_parameters = torch::zeros({K, m_parameterCount}, torch::kFloat);
  m_gradients = torch::zeros({K, m_parameterCount}, torch::kFloat);
  m_firstMoment = torch::zeros({K, m_parameterCount}, torch::kFloat);
  m_secondMoment = torch::zeros({K, m_parameterCount}, torch::kFloat);
  for (int64_t i = 0; i < K; ++i) {
    auto row = m_parameters[i];
    int64_t offset = 0;
    for (auto& p : m_members[i]->model->parameters()) {
      const int64_t n = p.numel();
      auto slot = row.narrow(0, offset, n);
      slot.copy_(p.detach().reshape({-1}));
      p.set_data(slot.view(p.sizes()));
      offset += n;
    }
    if (offset != m_members[i]->parameterCount)
      throw std::logic_error("a member's model has another size than its layout");
  }

  // The Fourier head's constant tensors, as the members' head module holds them.
  batched::FourierHeadBuffers fourier;
  if (shape.head == batched::HeadKind::Fourier) {
    for (const auto& buffer : m_members[widest]->model->head().named_buffers()) {
      if (buffer.key() == "bin_basis") fourier.binBasis = buffer.value();
      if (buffer.key() == "lag_selector") fourier.lagSelector = buffer.value();
      if (buffer.key() == "penalty_weights") fourier.penaltyWeights = buffer.value();
    }
  }
  if (code == StepCode::Kernels) {
    m_network = std::make_unique<batched::BatchedToyNetwork>(
        shape, layout,
        fourier.binBasis.defined() ? floatsOf(fourier.binBasis) : std::vector<float>(),
        floatsOf(nn::binCenters(first.bins)));
  } else {
    std::vector<batched::DeviceMember> onDevice;
    for (int64_t i = 0; i < K; ++i) {
      const Member& m = *m_members[i];
      batched::DeviceMember member;
      member.trainInputs = m.data.trainInputs;
      member.trainTargets = m.data.trainTargets;
      member.lr = m.spec.settings.lr;
      member.gamma = first.head == "fourier" ? m.spec.settings.gamma : 0.0;
      if (m.parameterCount != m_parameterCount) {
        member.slots = batched::fourierSlots(layouts[i], layout, m.spec.settings.frequencies,
                                             shape.frequencies, shape.features);
        member.ownSize = m.parameterCount;
      }
      onDevice.push_back(std::move(member));
    }
    m_deviceStep = std::make_unique<batched::BatchedToyDeviceStep>(
        shape, layout, fourier, nn::binCenters(first.bins), m_members[0]->plan.stepsPerEpoch,
        onDevice, device);
  }
  m_evaluation = std::make_unique<ToyEvaluation>(first.bins, torch::kCPU);
  m_counts.assign(K, 0);
  m_losses.assign(K, 0.0);
  m_gamma.assign(K, 0.0);
  for (int64_t i = 0; i < K; ++i)
    if (first.head == "fourier") m_gamma[i] = m_members[i]->spec.settings.gamma;
}

BatchedFourierHeadProgram::~BatchedFourierHeadProgram() = default;

BatchedFourierHeadProgram::Member& BatchedFourierHeadProgram::at(int64_t i) {
  if (i < 0 || i >= memberCount())
    throw std::out_of_range("member " + std::to_string(i) + " of a group of " +
                            std::to_string(memberCount()));
  return *m_members[i];
}

const BatchedFourierHeadProgram::Member& BatchedFourierHeadProgram::at(int64_t i) const {
  return const_cast<BatchedFourierHeadProgram*>(this)->at(i);
}

const BatchedMember& BatchedFourierHeadProgram::member(int64_t i) const { return at(i).spec; }
TrialPlan BatchedFourierHeadProgram::plan(int64_t i) const { return at(i).plan; }
int64_t BatchedFourierHeadProgram::stepsDone(int64_t i) const { return at(i).stepsDone; }
bool BatchedFourierHeadProgram::isActive(int64_t i) const { return at(i).active; }
void BatchedFourierHeadProgram::setActive(int64_t i, bool active) { at(i).active = active; }

torch::Tensor BatchedFourierHeadProgram::parameters(int64_t i) {
  at(i);
  fetchFromDevice();
  m_hostAhead = true;  // the caller may write into the view
  m_evaluatedAhead.clear();
  return m_parameters[i].narrow(0, 0, at(i).parameterCount);
}

torch::Tensor BatchedFourierHeadProgram::gradients(int64_t i) const {
  at(i);
  fetchFromDevice();
  return m_gradients[i].narrow(0, 0, at(i).parameterCount);
}

void BatchedFourierHeadProgram::fetchFromDevice() const {
  if (!m_deviceStep || !m_deviceAhead) return;
  m_deviceStep->download(m_parameters, m_firstMoment, m_secondMoment, m_gradients);
  m_deviceAhead = false;
}

void BatchedFourierHeadProgram::gatherBatch(int64_t i) {
  Member& m = *m_members[i];
  const int64_t batch = m.spec.settings.batchSize;
  const int64_t trainSize = m.data.trainSize();
  const int64_t batchIndex = m.stepsDone % m.plan.stepsPerEpoch;
  if (batchIndex == 0) m.order = drawEpochOrder(trainSize, m.shuffleRng);
  if (m.order.empty())
    throw std::logic_error("member " + std::to_string(i) + " is mid-epoch without its order");
  const int64_t start = batchIndex * batch;
  const int64_t count = std::min(batch, trainSize - start);
  const auto* inputs = m.data.trainInputs.data_ptr<float>();      // (Ntr, 2)
  const auto* targets = m.data.trainTargets.data_ptr<int64_t>();  // (Ntr)
  float* x = m_network->inputs() + i * batch * 2;
  int64_t* t = m_network->targets() + i * batch;
  for (int64_t b = 0; b < count; ++b) {
    const int64_t row = m.order[start + b];
    x[2 * b] = inputs[2 * row];
    x[2 * b + 1] = inputs[2 * row + 1];
    t[b] = targets[row];
  }
  m_counts[i] = count;
}

std::vector<std::optional<StepLoss>> BatchedFourierHeadProgram::trainStep() {
  m_evaluatedAhead.clear();
  m_stepping.clear();
  for (int64_t i = 0; i < memberCount(); ++i)
    if (m_members[i]->active && m_members[i]->stepsDone < m_members[i]->plan.totalSteps)
      m_stepping.push_back(i);
  std::vector<std::optional<StepLoss>> losses(m_members.size());
  if (m_stepping.empty()) return losses;
  if (m_deviceStep)
    deviceStep(losses);
  else
    kernelStep(losses);
  return losses;
}

void BatchedFourierHeadProgram::deviceStep(std::vector<std::optional<StepLoss>>& losses) {
  if (m_hostAhead) {  // whatever changed the host's buffers fetched the device's state first
    std::vector<int64_t> steps;
    for (const auto& m : m_members) steps.push_back(m->stepsDone);
    m_deviceStep->upload(m_parameters, m_firstMoment, m_secondMoment, steps);
    for (int64_t i = 0; i < memberCount(); ++i)
      if (!m_members[i]->order.empty()) m_deviceStep->setOrder(i, m_members[i]->order);
    m_hostAhead = false;
  }
  std::vector<bool> stepping(m_members.size(), false);
  for (const int64_t i : m_stepping) {
    Member& m = *m_members[i];
    stepping[static_cast<size_t>(i)] = true;
    if (m.stepsDone % m.plan.stepsPerEpoch == 0) {
      m.order = drawEpochOrder(m.data.trainSize(), m.shuffleRng);
      m_deviceStep->setOrder(i, m.order);
    } else if (m.order.empty()) {
      throw std::logic_error("member " + std::to_string(i) + " is mid-epoch without its order");
    }
  }
  const auto shared = std::make_shared<const GroupStepLosses>(m_deviceStep->step(stepping));
  m_deviceAhead = true;
  for (const int64_t i : m_stepping) {
    ++m_members[i]->stepsDone;
    losses[i] = StepLoss(shared, i);
  }
}

void BatchedFourierHeadProgram::kernelStep(std::vector<std::optional<StepLoss>>& losses) {
  for (const int64_t i : m_stepping) gatherBatch(i);
  float* parameters = m_parameters.data_ptr<float>();
  float* gradients = m_gradients.data_ptr<float>();
  float* first = m_firstMoment.data_ptr<float>();
  float* second = m_secondMoment.data_ptr<float>();
  const int64_t P = m_parameterCount;
  // A chunk of members at a time, forward, backward and Adam, while its rows are in cache: at
  // K = 128 one pass over all members' activations spills out of L2 (5% slower, measured).
  for (size_t begin = 0; begin < m_stepping.size(); begin += kMembersPerChunk) {
    m_chunk.assign(m_stepping.begin() + begin,
                   m_stepping.begin() + std::min(m_stepping.size(), begin + kMembersPerChunk));
    m_network->lossAndGradients(parameters, gradients, m_chunk, m_counts.data(), m_gamma.data(),
                                m_losses.data());
    for (const int64_t i : m_chunk) {
      Member& m = *m_members[i];
      batched::adamStepRow(parameters + i * P, gradients + i * P, first + i * P, second + i * P, P,
                           m.spec.settings.lr, m.stepsDone + 1);
      ++m.stepsDone;
      losses[i] = StepLoss(m_losses[i]);
      if (!std::isfinite(m_losses[i])) m.active = false;  // fails alone, at this step
    }
  }
}

std::vector<EvalReport> BatchedFourierHeadProgram::evaluate(
    const std::vector<EvalRequest>& requests) {
  // Member by member, through the single run's own code: with the smoothness metric computed
  // from the power spectrum, a member's evaluation is ~2 ms of per-member work (forward pass,
  // snapshots), and stacking several members' test rows into one metric pass measured slower
  // (K = 32: 6-12 ms per member against 2.9 ms alone; the larger temporaries page-fault as glibc
  // returns their memory).
  //
  // Members side by side on the group's threads (its share of the thread budget): on a GPU one
  // group holds a whole study's Fourier heads (240 of the frequency study), whose evaluations
  // would otherwise take the group's thread for seconds at each of them while the device idles.
  // Each member's evaluation reads only its own model and data.
  fetchFromDevice();
  std::vector<Member*> evaluated;
  for (const auto& request : requests) evaluated.push_back(&at(request.member));
  std::vector<EvalReport> reports(requests.size());
  at::parallel_for(0, static_cast<int64_t>(requests.size()), 1, [&](int64_t begin, int64_t end) {
    for (int64_t j = begin; j < end; ++j) {
      Member& m = *evaluated[static_cast<size_t>(j)];
      EvalReport& report = reports[static_cast<size_t>(j)];
      const auto predictions = predictTestSet(*m.model, m.data.testInputs);
      for (const auto& [key, rows] : m_evaluation->metricRows(m.data.testTruePmf, predictions.logQ,
                                                              predictions.q, m.data.testTargets))
        report.metric(key, rows.mean().item<double>());
      m_evaluation->appendSnapshots(report, m.spec.settings, *m.model, m.data, predictions,
                                    requests[static_cast<size_t>(j)].final);
    }
  });
  return reports;
}

void BatchedFourierHeadProgram::evaluate(int64_t i, bool final, EvalReport& out) {
  EvalReport report;
  const auto ahead = m_evaluatedAhead.find(i);
  if (ahead != m_evaluatedAhead.end() && ahead->second.step == at(i).stepsDone &&
      ahead->second.final == final) {
    report = std::move(ahead->second.report);
    m_evaluatedAhead.erase(ahead);
  } else {
    // The driver asks for members one by one, each when its own step is reported; the members
    // due at this same step are evaluated now, side by side, and their reports kept for then.
    std::vector<EvalRequest> requests{{i, final}};
    for (int64_t j = 0; j < memberCount(); ++j) {
      const Member& m = *m_members[j];
      if (j != i && m.active && m.stepsDone > 0 && m.plan.evaluatesAt(m.stepsDone) &&
          !m_evaluatedAhead.count(j))
        requests.push_back({j, /*final=*/m.stepsDone == m.plan.totalSteps});
    }
    auto reports = evaluate(requests);
    report = std::move(reports.front());
    for (size_t r = 1; r < requests.size(); ++r) {
      const int64_t j = requests[r].member;
      m_evaluatedAhead[j] = {m_members[j]->stepsDone, requests[r].final, std::move(reports[r])};
    }
  }
  for (auto& metric : report.metrics) out.metrics.push_back(std::move(metric));
  for (auto& snapshot : report.snapshots) out.snapshot(std::move(snapshot));
}

std::vector<Snapshot> BatchedFourierHeadProgram::probe(
    int64_t i, const std::map<std::string, double>& inputs) {
  Member& m = at(i);
  fetchFromDevice();
  return m_evaluation->probe(m.spec.settings, *m.model, inputs);
}

void BatchedFourierHeadProgram::saveCheckpoint(int64_t i, const std::string& path) const {
  const Member& m = at(i);
  fetchFromDevice();
  ToyCheckpoint checkpoint;
  // Copies: a view would write the whole group's storage into the member's file.
  const auto own = [&](const torch::Tensor& rows) {
    return rows[i].narrow(0, 0, m.parameterCount).clone();
  };
  checkpoint.optimizer = {own(m_parameters), own(m_firstMoment), own(m_secondMoment), m.stepsDone};
  checkpoint.shuffleRng = m.shuffleRng;
  if (!m.order.empty()) checkpoint.permutation = torch::tensor(m.order, torch::kLong);
  saveToyCheckpoint(checkpoint, path);
}

void BatchedFourierHeadProgram::loadCheckpoint(int64_t i, const std::string& path) {
  Member& m = at(i);
  auto checkpoint = loadToyCheckpoint(path, torch::kCPU);
  const auto& state = checkpoint.optimizer;
  const int64_t n = m.parameterCount;
  if (state.parameters.numel() != n || state.firstMoment.numel() != n ||
      state.secondMoment.numel() != n)
    throw std::runtime_error("checkpoint holds " + std::to_string(state.parameters.numel()) +
                             " parameters, the model has " + std::to_string(n) +
                             " (was it saved with another configuration?)");
  std::vector<int64_t> order;
  if (checkpoint.permutation.defined()) {
    auto p = checkpoint.permutation.to(torch::kCPU, torch::kLong).contiguous();
    order.assign(p.data_ptr<int64_t>(), p.data_ptr<int64_t>() + p.numel());
  }
  if (state.stepCount % m.plan.stepsPerEpoch != 0 &&
      static_cast<int64_t>(order.size()) != m.data.trainSize())
    throw std::runtime_error("checkpoint at step " + std::to_string(state.stepCount) +
                             " holds no order of this member's " +
                             std::to_string(m.data.trainSize()) + " training samples");
  torch::NoGradGuard noGrad;
  fetchFromDevice();  // the other members' state, before the device gets the host's again
  m_hostAhead = true;
  m_evaluatedAhead.erase(i);
  m_parameters[i].narrow(0, 0, n).copy_(state.parameters.reshape({-1}));
  m_firstMoment[i].narrow(0, 0, n).copy_(state.firstMoment.reshape({-1}));
  m_secondMoment[i].narrow(0, 0, n).copy_(state.secondMoment.reshape({-1}));
  m.stepsDone = state.stepCount;
  m.shuffleRng = checkpoint.shuffleRng;
  m.order = std::move(order);
}

}  // namespace fl::fourier_head
