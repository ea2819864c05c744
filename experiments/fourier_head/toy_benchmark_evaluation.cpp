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

// test/kl and test/mse_expected as the paper's official code computes them (its tables use
// them); the exact definitions beside them.
constexpr const char* kMetricNames[] = {"test/kl",           "test/kl_exact",
                                        "test/mse_expected", "test/mse_expected_exact",
                                        "test/mse_argmax",   "test/smoothness"};
constexpr size_t kMetricCount = sizeof(kMetricNames) / sizeof(kMetricNames[0]);

}  // namespace

std::optional<Snapshot> toyTruthOf(const ToyBenchmarkSettings& s, const Snapshot& prediction) {
  const bool bins = prediction.name.ends_with("/pred");
  if (!bins && !prediction.name.ends_with("/pred_grid")) return std::nullopt;
  if (prediction.shape.size() != 2 || prediction.axes.size() != 2) return std::nullopt;
  const nlohmann::json inputs = prediction.meta.is_object()
                                    ? prediction.meta.value("inputs", nlohmann::json())
                                    : nlohmann::json();
  const int64_t n = prediction.shape[0], points = prediction.shape[1];
  const auto& z = prediction.axes[1].ticks;
  if (!inputs.is_array() || static_cast<int64_t>(inputs.size()) != n ||
      static_cast<int64_t>(z.size()) != points || (bins && points != s.bins))
    return std::nullopt;
  Snapshot truth = prediction;
  const std::string stem = prediction.name.substr(0, prediction.name.rfind('/'));
  truth.name = stem + (bins ? "/true" : "/true_grid");
  truth.role = SnapshotRole::Truth;
  truth.keep = SnapshotKeep::NotStored;
  truth.data.clear();
  truth.data.reserve(prediction.data.size());
  for (const auto& input : inputs) {
    const auto x = input.find("x"), y = input.find("y");
    if (!input.is_object() || x == input.end() || y == input.end() || !x->is_number() ||
        !y->is_number())
      return std::nullopt;
    if (bins) {
      for (double p : toyTruePmf(s.dataset, s.variance, x->get<double>(), y->get<double>(), s.bins))
        truth.data.push_back(static_cast<float>(p));
    } else {
      for (float zi : z)
        truth.data.push_back(static_cast<float>(
            toyTrueDensity(s.dataset, s.variance, x->get<double>(), y->get<double>(), zi)));
    }
  }
  return truth;
}

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

const std::vector<std::string>& ToyEvaluation::metricNames() {
  static const std::vector<std::string> names(std::begin(kMetricNames), std::end(kMetricNames));
  return names;
}

std::vector<std::pair<std::string, torch::Tensor>> ToyEvaluation::metricRows(
    const torch::Tensor& truePmf, const torch::Tensor& logQ, const torch::Tensor& q,
    const torch::Tensor& targets) const {
  torch::NoGradGuard noGrad;
  const torch::Tensor values[kMetricCount] = {
      metrics::klDivergenceWithFloor(truePmf, q),
      metrics::klDivergence(truePmf, logQ),
      metrics::squaredErrorOfRoundedExpectation(q, m_centers, targets),
      metrics::squaredErrorOfExpectation(q, m_centers, targets),
      metrics::squaredErrorOfArgmax(q, m_centers, targets),
      m_smoothness(q),
  };
  std::vector<std::pair<std::string, torch::Tensor>> rows;
  for (size_t i = 0; i < kMetricCount; ++i) rows.emplace_back(kMetricNames[i], values[i]);
  return rows;
}

void ToyEvaluation::appendSnapshots(EvalReport& out, const ToyBenchmarkSettings& s,
                                    ToyRegressorImpl& model, const ToyBenchmarkData& data,
                                    const ToyTestPredictions& predictions, bool final) const {
  torch::NoGradGuard noGrad;
  model.eval();
  const auto total = static_cast<int64_t>(data.testSamples.size());
  // At the end every test input (the paper's 1000), up to a cap: the largest `samples` would
  // make the bin probabilities alone hundreds of MB.
  constexpr int64_t kMaxFinalInputs = 5000;
  const int64_t live = std::min(s.liveSnapshotInputs, total);
  const int64_t shown = final ? std::min(kMaxFinalInputs, total) : live;
  // The first test inputs: a fixed set (the split is seeded), the same at every evaluation.
  auto rows = torch::arange(shown, torch::kLong).to(m_device);
  const std::vector<ToySample> samples(data.testSamples.begin(), data.testSamples.begin() + shown);
  for (auto& snapshot :
       pdfSnapshots("pdf", s, model, samples, data.testInputs.index_select(0, rows),
                    predictions.q.index_select(0, rows), live))
    out.snapshot(std::move(snapshot));
  if (s.head == "fourier") out.snapshot(spectrumSnapshot(s, model, predictions.features));
}

std::vector<Snapshot> ToyEvaluation::pdfSnapshots(const std::string& prefix,
                                                  const ToyBenchmarkSettings& s,
                                                  ToyRegressorImpl& model,
                                                  const std::vector<ToySample>& samples,
                                                  const torch::Tensor& inputs,
                                                  const torch::Tensor& q, int64_t gridRows) const {
  nlohmann::json rows = nlohmann::json::array();
  for (const auto& sample : samples)
    rows.push_back({{"x", sample.x}, {"y", sample.y}, {"z", sample.z}});
  nlohmann::json gridInputs(rows.begin(), rows.begin() + gridRows);
  const SnapshotAxis inputAxis{"input", "", {}};
  Snapshot pred = makeSnapshot(prefix + "/pred", q,
                               {inputAxis, {"z", "", toFloatVector(m_centers)}}, "probability");
  Snapshot predGrid = makeSnapshot(
      prefix + "/pred_grid", model.density(inputs.narrow(0, 0, gridRows), m_grid.to(m_device)),
      {inputAxis, {"z", "", toFloatVector(m_grid)}}, "density");
  pred.meta["inputs"] = std::move(rows);
  predGrid.meta["inputs"] = std::move(gridInputs);
  // Declared, so the plots draw the truth once and the prediction in the run's colour, and the
  // store keeps the latest prediction only (the panels show the latest).
  pred.role = predGrid.role = SnapshotRole::Prediction;
  pred.keep = predGrid.keep = SnapshotKeep::LatestStep;
  auto truth = toyTruthOf(s, pred);
  auto truthGrid = toyTruthOf(s, predGrid);
  return {std::move(*truth), std::move(pred), std::move(*truthGrid), std::move(predGrid)};
}

Snapshot ToyEvaluation::spectrumSnapshot(const ToyBenchmarkSettings& s, ToyRegressorImpl& model,
                                         const torch::Tensor& features) const {
  auto& head = static_cast<nn::FourierHeadImpl&>(model.head());
  auto c = head.normalizedCoefficients(features);   // (Nte, N+1, 2)
  auto magnitude = c.pow(2).sum(/*dim=*/2).sqrt();  // (Nte, N+1)
  std::vector<float> k;
  for (int64_t i = 0; i <= s.frequencies; ++i) k.push_back(static_cast<float>(i));
  return makeSnapshot("spectrum/abs_c", magnitude.mean(/*dim=*/0), {{"frequency k", "", k}},
                      "mean |c_k / c_0|");
}

std::vector<Snapshot> ToyEvaluation::probe(const ToyBenchmarkSettings& s, ToyRegressorImpl& model,
                                           const std::map<std::string, double>& inputs) const {
  torch::NoGradGuard noGrad;
  model.eval();
  const ToySample sample{inputs.count("x") ? inputs.at("x") : 0.0,
                         inputs.count("y") ? inputs.at("y") : 0.0, 0.0};
  auto modelIn = toyModelInputs({sample}, s.bins).to(m_device);  // (1, 2)
  auto q = torch::softmax(model.forward(modelIn).logits, /*dim=*/1);
  return pdfSnapshots("probe", s, model, {sample}, modelIn, q, /*gridRows=*/1);
}

}  // namespace fl::fourier_head
