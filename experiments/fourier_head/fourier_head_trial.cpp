#include "experiments/fourier_head/fourier_head_trial.h"

#include <algorithm>
#include <numeric>
#include <sstream>
#include <stdexcept>

#include <torch/torch.h>

#include "core/engine/seeding.h"
#include "core/engine/tensor_values.h"
#include "core/nn/fourier_head.h"
#include "core/nn/gmm_head.h"
#include "core/nn/linear_head.h"
#include "core/optim/flat_adam_checkpoint.h"

namespace fl::fourier_head {

namespace {

torch::Tensor toTensor(const std::vector<float>& values, std::vector<int64_t> shape) {
  return torch::tensor(values, torch::kFloat).view(shape);
}



Snapshot makeSnapshot(std::string name, const torch::Tensor& values,
                      std::vector<SnapshotAxis> axes, std::string valueLabel) {
  Snapshot s;
  s.name = std::move(name);
  s.shape = values.sizes().vec();
  s.data = toFloatVector(values);
  s.axes = std::move(axes);
  s.valueLabel = std::move(valueLabel);
  return s;
}

}  // namespace

ToyBenchmarkSettings ToyBenchmarkSettings::fromConfig(const nlohmann::json& c) {
  ToyBenchmarkSettings s;
  s.dataset = parseToyDataset(c.at("dataset").get<std::string>()).value();
  s.head = c.at("head").get<std::string>();
  s.frequencies = c.at("frequencies").get<int64_t>();
  s.gamma = c.at("gamma").get<double>();
  s.gaussians = c.at("gaussians").get<int64_t>();
  s.bins = c.at("bins").get<int64_t>();
  s.samples = c.at("samples").get<int64_t>();
  s.variance = c.at("variance").get<double>();
  s.testFraction = c.at("test_fraction").get<double>();
  s.epochs = c.at("epochs").get<int64_t>();
  s.batchSize = c.at("batch_size").get<int64_t>();
  s.lr = c.at("lr").get<double>();
  s.evalEveryEpochs = c.at("eval_every").get<int64_t>();
  s.liveSnapshotInputs = c.at("snapshot_inputs").get<int64_t>();
  return s;
}

std::shared_ptr<nn::DistributionHeadImpl> makeHead(const ToyBenchmarkSettings& s) {
  const int64_t in = ToyRegressorImpl::kFeatures;
  if (s.head == "linear") return std::make_shared<nn::LinearHeadImpl>(in, s.bins);
  if (s.head == "fourier")
    return std::make_shared<nn::FourierHeadImpl>(
        nn::FourierHeadOptions(in, s.bins, s.frequencies).gamma(s.gamma));
  if (s.head == "gmm")
    return std::make_shared<nn::GmmHeadImpl>(nn::GmmHeadOptions(in, s.bins, s.gaussians));
  throw std::invalid_argument("unknown head '" + s.head + "'");
}

FourierHeadTrial::FourierHeadTrial(const ToyBenchmarkSettings& settings, c10::Device device,
                                   uint64_t seed)
    : m_settings(settings),
      m_device(device),
      m_shuffleRng(makeStream(seed, "shuffle")),
      m_smoothness(settings.bins) {
  // Data and split come from their own streams, so changing the model never changes the data.
  auto dataRng = makeStream(seed, "data");
  std::vector<ToySample> samples;
  samples.reserve(static_cast<size_t>(m_settings.samples));
  for (int64_t i = 0; i < m_settings.samples; ++i)
    samples.push_back(drawToySample(m_settings.dataset, m_settings.variance, dataRng));

  std::vector<size_t> order(samples.size());
  std::iota(order.begin(), order.end(), 0);
  auto splitRng = makeStream(seed, "split");
  std::shuffle(order.begin(), order.end(), splitRng);
  const auto testCount = static_cast<size_t>(
      std::llround(m_settings.testFraction * static_cast<double>(samples.size())));
  if (testCount == 0 || testCount >= samples.size())
    throw std::invalid_argument("samples x test_fraction leaves an empty train or test split");

  std::vector<ToySample> train;
  for (size_t i = 0; i < order.size(); ++i)
    (i < testCount ? m_testSamples : train).push_back(samples[order[i]]);

  auto targets = [&](const std::vector<ToySample>& set) {
    std::vector<int64_t> bins;
    for (const auto& s : set) bins.push_back(toBin(s.z, m_settings.bins));
    return torch::tensor(bins, torch::kLong);
  };
  std::vector<float> truePmf;
  for (const auto& s : m_testSamples)
    for (double p : toyTruePmf(m_settings.dataset, m_settings.variance, s.x, s.y, m_settings.bins))
      truePmf.push_back(static_cast<float>(p));

  m_trainInputs = modelInputs(train).to(device);
  m_trainTargets = targets(train).to(device);
  m_testInputs = modelInputs(m_testSamples).to(device);
  m_testTargets = targets(m_testSamples).to(device);
  m_testTruePmf =
      toTensor(truePmf, {static_cast<int64_t>(m_testSamples.size()), m_settings.bins}).to(device);
  m_centers = nn::binCenters(m_settings.bins).to(device);
  m_grid = torch::linspace(-1.0, 1.0, kGridPoints, torch::kDouble).to(torch::kFloat);

  m_model = ToyRegressor(makeHead(m_settings));
  m_model->to(device);
  m_optimizer = std::make_unique<optim::FlatAdam>(m_model->parameters(),
                                                  optim::FlatAdamOptions().lr(m_settings.lr));
  m_stepsPerEpoch =
      (static_cast<int64_t>(train.size()) + m_settings.batchSize - 1) / m_settings.batchSize;
}

torch::Tensor FourierHeadTrial::modelInputs(const std::vector<ToySample>& samples) const {
  std::vector<float> values;
  values.reserve(samples.size() * 2);
  for (const auto& s : samples) {
    values.push_back(static_cast<float>(toBin(s.x, m_settings.bins)));
    values.push_back(static_cast<float>(toBin(s.y, m_settings.bins)));
  }
  return toTensor(values, {static_cast<int64_t>(samples.size()), 2});
}

TrialPlan FourierHeadTrial::plan() const {
  TrialPlan p;
  p.stepsPerEpoch = m_stepsPerEpoch;
  p.totalSteps = m_stepsPerEpoch * m_settings.epochs;
  p.logEvery = m_stepsPerEpoch;  // train/loss: the mean over each epoch
  p.evalEvery = m_stepsPerEpoch * m_settings.evalEveryEpochs;
  return p;
}

double FourierHeadTrial::trainStep(int64_t stepIndex) {
  const int64_t batchIndex = stepIndex % m_stepsPerEpoch;
  if (batchIndex == 0) {
    std::vector<int64_t> order(static_cast<size_t>(m_trainInputs.size(0)));
    std::iota(order.begin(), order.end(), 0);
    std::shuffle(order.begin(), order.end(), m_shuffleRng);
    m_permutation = torch::tensor(order, torch::kLong).to(m_device);
  }
  const int64_t start = batchIndex * m_settings.batchSize;
  const int64_t count = std::min(m_settings.batchSize, m_trainInputs.size(0) - start);
  auto index = m_permutation.narrow(0, start, count);
  auto inputs = m_trainInputs.index_select(0, index);    // (b, 2)
  auto targets = m_trainTargets.index_select(0, index);  // (b)

  m_model->train();
  auto out = m_model->forward(inputs);
  auto loss = torch::nn::functional::cross_entropy(out.logits, targets);
  if (out.penalty.defined()) loss = loss + out.penalty;
  m_optimizer->zeroGrad();
  loss.backward();
  m_optimizer->step();
  return loss.item<double>();  // device sync point: the Runner checks every loss for NaN
}

void FourierHeadTrial::evaluate(int64_t /*stepsDone*/, bool final, EvalReport& out) {
  torch::NoGradGuard noGrad;
  m_model->eval();
  auto features = m_model->features(m_testInputs);
  auto logQ = torch::log_softmax(m_model->head().forward(features).logits, /*dim=*/1);
  auto q = logQ.exp();  // (Nte, m)

  // test/kl and test/mse_expected as the paper's official code computes them (its tables use
  // them); the exact definitions beside them.
  out.metric("test/kl", metrics::klDivergenceWithFloor(m_testTruePmf, q).mean().item<double>());
  out.metric("test/kl_exact", metrics::klDivergence(m_testTruePmf, logQ).mean().item<double>());
  out.metric("test/mse_expected",
             metrics::squaredErrorOfRoundedExpectation(q, m_centers, m_testTargets)
                 .mean()
                 .item<double>());
  out.metric("test/mse_expected_exact",
             metrics::squaredErrorOfExpectation(q, m_centers, m_testTargets).mean().item<double>());
  out.metric("test/mse_argmax",
             metrics::squaredErrorOfArgmax(q, m_centers, m_testTargets).mean().item<double>());
  out.metric("test/smoothness", m_smoothness(q).mean().item<double>());

  const int64_t total = static_cast<int64_t>(m_testSamples.size());
  // At the end every test input (the paper's 1000), up to a cap: 5000 inputs on the 401-point
  // grid are 8 MB per snapshot; the largest `samples` would make it GBs.
  constexpr int64_t kMaxFinalInputs = 5000;
  const int64_t shown = std::min(final ? kMaxFinalInputs : m_settings.liveSnapshotInputs, total);
  // The first test inputs: a fixed set (the split is seeded), the same at every evaluation.
  auto rows = torch::arange(shown, torch::kLong).to(m_device);
  const std::vector<ToySample> samples(m_testSamples.begin(), m_testSamples.begin() + shown);
  for (auto& s : pdfSnapshots("pdf", samples, m_testInputs.index_select(0, rows),
                              q.index_select(0, rows), m_testTruePmf.index_select(0, rows)))
    out.snapshot(std::move(s));
  if (m_settings.head == "fourier") out.snapshot(spectrumSnapshot(features));
}

std::vector<Snapshot> FourierHeadTrial::pdfSnapshots(const std::string& prefix,
                                                     const std::vector<ToySample>& samples,
                                                     const torch::Tensor& inputs,
                                                     const torch::Tensor& q,
                                                     const torch::Tensor& truePmf) {
  const auto n = static_cast<int64_t>(samples.size());
  nlohmann::json rows = nlohmann::json::array();
  std::vector<float> trueGrid;
  trueGrid.reserve(static_cast<size_t>(n * kGridPoints));
  auto grid = m_grid.accessor<float, 1>();
  for (const auto& s : samples) {
    rows.push_back({{"x", s.x}, {"y", s.y}, {"z", s.z}});
    for (int64_t g = 0; g < kGridPoints; ++g)
      trueGrid.push_back(static_cast<float>(
          toyTrueDensity(m_settings.dataset, m_settings.variance, s.x, s.y, grid[g])));
  }
  const SnapshotAxis inputAxis{"input", "", {}};
  const SnapshotAxis binAxis{"z", "", toFloatVector(m_centers)};
  const SnapshotAxis gridAxis{"z", "", toFloatVector(m_grid)};
  std::vector<Snapshot> snaps{
      makeSnapshot(prefix + "/true", truePmf, {inputAxis, binAxis}, "probability"),
      makeSnapshot(prefix + "/pred", q, {inputAxis, binAxis}, "probability"),
      makeSnapshot(prefix + "/true_grid", toTensor(trueGrid, {n, kGridPoints}),
                   {inputAxis, gridAxis}, "density"),
      makeSnapshot(prefix + "/pred_grid", m_model->density(inputs, m_grid.to(m_device)),
                   {inputAxis, gridAxis}, "density"),
  };
  for (auto& s : snaps) s.meta["inputs"] = rows;
  // Declared, so the plots draw the truth once and the prediction in the run's colour.
  snaps[0].role = snaps[2].role = SnapshotRole::Truth;
  snaps[1].role = snaps[3].role = SnapshotRole::Prediction;
  return snaps;
}

Snapshot FourierHeadTrial::spectrumSnapshot(const torch::Tensor& features) {
  auto& head = static_cast<nn::FourierHeadImpl&>(m_model->head());
  auto c = head.normalizedCoefficients(features);     // (Nte, N+1, 2)
  auto magnitude = c.pow(2).sum(/*dim=*/2).sqrt();    // (Nte, N+1)
  std::vector<float> k;
  for (int64_t i = 0; i <= m_settings.frequencies; ++i) k.push_back(static_cast<float>(i));
  return makeSnapshot("spectrum/abs_c", magnitude.mean(/*dim=*/0), {{"frequency k", "", k}},
                      "mean |c_k|");
}

void FourierHeadTrial::saveCheckpoint(const std::string& path) const {
  torch::serialize::OutputArchive archive;
  optim::writeOptimizerState(archive, *m_optimizer);
  // The data order: this epoch's permutation and the shuffle stream's state.
  optim::writeStreamState(archive, "shuffle.rng", m_shuffleRng);
  if (m_permutation.defined()) archive.write("shuffle.permutation", m_permutation);
  optim::saveArchive(archive, path);
}

void FourierHeadTrial::loadCheckpoint(const std::string& path) {
  torch::serialize::InputArchive archive;
  archive.load_from(path, m_device);
  optim::readOptimizerState(archive, *m_optimizer);
  optim::readStreamState(archive, "shuffle.rng", m_shuffleRng);
  torch::Tensor permutation;
  if (archive.try_read("shuffle.permutation", permutation)) m_permutation = permutation.to(m_device);
}

std::vector<Snapshot> FourierHeadTrial::probe(const std::map<std::string, double>& inputs) {
  torch::NoGradGuard noGrad;
  m_model->eval();
  const ToySample sample{inputs.count("x") ? inputs.at("x") : 0.0,
                         inputs.count("y") ? inputs.at("y") : 0.0, 0.0};
  auto modelIn = modelInputs({sample}).to(m_device);  // (1, 2)
  auto q = torch::softmax(m_model->forward(modelIn).logits, /*dim=*/1);
  std::vector<float> truePmf;
  for (double p : toyTruePmf(m_settings.dataset, m_settings.variance, sample.x, sample.y,
                             m_settings.bins))
    truePmf.push_back(static_cast<float>(p));
  return pdfSnapshots("probe", {sample}, modelIn, q, toTensor(truePmf, {1, m_settings.bins}));
}

}  // namespace fl::fourier_head
