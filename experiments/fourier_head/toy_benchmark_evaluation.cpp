#include "experiments/fourier_head/toy_benchmark_evaluation.h"

#include <algorithm>

#include <torch/torch.h>

#include "core/engine/tensor_values.h"
#include "core/nn/fourier_head.h"

namespace fl::fourier_head {

namespace {

Snapshot makeSnapshot(std::string name, const torch::Tensor& values, std::vector<SnapshotAxis> axes,
                      std::string valueLabel) {
  Snapshot s;
  s.name = std::move(name);
  s.shape = values.sizes().vec();
  s.data = toFloatVector(values);
  s.axes = std::move(axes);
  s.valueLabel = std::move(valueLabel);
  return s;
}

}  // namespace

ToyTestPredictions predictTestSet(ToyRegressorImpl& model, const torch::Tensor& testInputs) {
  torch::NoGradGuard noGrad;
  model.eval();
  ToyTestPredictions p;
  p.features = model.features(testInputs);
  p.logQ = torch::log_softmax(model.head().forward(p.features).logits, /*dim=*/1);
  p.q = p.logQ.exp();  // (Nte, m)
  return p;
}

ToyEvaluation::ToyEvaluation(int64_t bins, c10::Device device)
    : m_device(device),
      m_centers(nn::binCenters(bins).to(device)),
      m_grid(torch::linspace(-1.0, 1.0, kGridPoints, torch::kDouble).to(torch::kFloat)),
      m_smoothness(bins) {}

std::vector<std::pair<std::string, torch::Tensor>> ToyEvaluation::metricRows(
    const torch::Tensor& truePmf, const torch::Tensor& logQ, const torch::Tensor& q,
    const torch::Tensor& targets) const {
  torch::NoGradGuard noGrad;
  // test/kl and test/mse_expected as the paper's official code computes them (its tables use
  // them); the exact definitions beside them.
  return {
      {"test/kl", metrics::klDivergenceWithFloor(truePmf, q)},
      {"test/kl_exact", metrics::klDivergence(truePmf, logQ)},
      {"test/mse_expected", metrics::squaredErrorOfRoundedExpectation(q, m_centers, targets)},
      {"test/mse_expected_exact", metrics::squaredErrorOfExpectation(q, m_centers, targets)},
      {"test/mse_argmax", metrics::squaredErrorOfArgmax(q, m_centers, targets)},
      {"test/smoothness", m_smoothness(q)},
  };
}

void ToyEvaluation::appendSnapshots(EvalReport& out, const ToyBenchmarkSettings& s,
                                    ToyRegressorImpl& model, const ToyBenchmarkData& data,
                                    const ToyTestPredictions& predictions, bool final) const {
  torch::NoGradGuard noGrad;
  model.eval();
  const auto total = static_cast<int64_t>(data.testSamples.size());
  // At the end every test input (the paper's 1000), up to a cap: 5000 inputs on the 401-point
  // grid are 8 MB per snapshot; the largest `samples` would make it GBs.
  constexpr int64_t kMaxFinalInputs = 5000;
  const int64_t shown = std::min(final ? kMaxFinalInputs : s.liveSnapshotInputs, total);
  // The first test inputs: a fixed set (the split is seeded), the same at every evaluation.
  auto rows = torch::arange(shown, torch::kLong).to(m_device);
  const std::vector<ToySample> samples(data.testSamples.begin(), data.testSamples.begin() + shown);
  for (auto& snapshot :
       pdfSnapshots("pdf", s, model, samples, data.testInputs.index_select(0, rows),
                    predictions.q.index_select(0, rows), data.testTruePmf.index_select(0, rows)))
    out.snapshot(std::move(snapshot));
  if (s.head == "fourier") out.snapshot(spectrumSnapshot(s, model, predictions.features));
}

std::vector<Snapshot> ToyEvaluation::pdfSnapshots(
    const std::string& prefix, const ToyBenchmarkSettings& s, ToyRegressorImpl& model,
    const std::vector<ToySample>& samples, const torch::Tensor& inputs, const torch::Tensor& q,
    const torch::Tensor& truePmf) const {
  const auto n = static_cast<int64_t>(samples.size());
  nlohmann::json rows = nlohmann::json::array();
  std::vector<float> trueGrid;
  trueGrid.reserve(static_cast<size_t>(n * kGridPoints));
  auto grid = m_grid.accessor<float, 1>();
  for (const auto& sample : samples) {
    rows.push_back({{"x", sample.x}, {"y", sample.y}, {"z", sample.z}});
    for (int64_t g = 0; g < kGridPoints; ++g)
      trueGrid.push_back(
          static_cast<float>(toyTrueDensity(s.dataset, s.variance, sample.x, sample.y, grid[g])));
  }
  const SnapshotAxis inputAxis{"input", "", {}};
  const SnapshotAxis binAxis{"z", "", toFloatVector(m_centers)};
  const SnapshotAxis gridAxis{"z", "", toFloatVector(m_grid)};
  std::vector<Snapshot> snaps{
      makeSnapshot(prefix + "/true", truePmf, {inputAxis, binAxis}, "probability"),
      makeSnapshot(prefix + "/pred", q, {inputAxis, binAxis}, "probability"),
      makeSnapshot(prefix + "/true_grid",
                   torch::tensor(trueGrid, torch::kFloat).view({n, kGridPoints}),
                   {inputAxis, gridAxis}, "density"),
      makeSnapshot(prefix + "/pred_grid", model.density(inputs, m_grid.to(m_device)),
                   {inputAxis, gridAxis}, "density"),
  };
  for (auto& snapshot : snaps) snapshot.meta["inputs"] = rows;
  // Declared, so the plots draw the truth once and the prediction in the run's colour.
  snaps[0].role = snaps[2].role = SnapshotRole::Truth;
  snaps[1].role = snaps[3].role = SnapshotRole::Prediction;
  return snaps;
}

Snapshot ToyEvaluation::spectrumSnapshot(const ToyBenchmarkSettings& s, ToyRegressorImpl& model,
                                         const torch::Tensor& features) const {
  auto& head = static_cast<nn::FourierHeadImpl&>(model.head());
  auto c = head.normalizedCoefficients(features);   // (Nte, N+1, 2)
  auto magnitude = c.pow(2).sum(/*dim=*/2).sqrt();  // (Nte, N+1)
  std::vector<float> k;
  for (int64_t i = 0; i <= s.frequencies; ++i) k.push_back(static_cast<float>(i));
  return makeSnapshot("spectrum/abs_c", magnitude.mean(/*dim=*/0), {{"frequency k", "", k}},
                      "mean |c_k|");
}

std::vector<Snapshot> ToyEvaluation::probe(const ToyBenchmarkSettings& s, ToyRegressorImpl& model,
                                           const std::map<std::string, double>& inputs) const {
  torch::NoGradGuard noGrad;
  model.eval();
  const ToySample sample{inputs.count("x") ? inputs.at("x") : 0.0,
                         inputs.count("y") ? inputs.at("y") : 0.0, 0.0};
  auto modelIn = toyModelInputs({sample}, s.bins).to(m_device);  // (1, 2)
  auto q = torch::softmax(model.forward(modelIn).logits, /*dim=*/1);
  std::vector<float> truePmf;
  for (double p : toyTruePmf(s.dataset, s.variance, sample.x, sample.y, s.bins))
    truePmf.push_back(static_cast<float>(p));
  return pdfSnapshots("probe", s, model, {sample}, modelIn, q,
                      torch::tensor(truePmf, torch::kFloat).view({1, s.bins}));
}

}  // namespace fl::fourier_head
