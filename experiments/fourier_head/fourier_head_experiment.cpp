#include "experiments/fourier_head/fourier_head_experiment.h"

#include "core/engine/device.h"
#include "core/engine/preset_json.h"
#include "core/metrics/distribution_metrics.h"
#include "experiments/fourier_head/batched_fourier_head_trial.h"
#include "experiments/fourier_head/fourier_head_trial.h"
#include "experiments/fourier_head/toy_benchmark_data.h"
#include "experiments/fourier_head/toy_benchmark_evaluation.h"
#include "experiments/fourier_head/toy_datasets.h"
#include "experiments/fourier_head_presets.h"  // generated from presets/*.json
#include "experiments/fourier_head_studies.h"  // generated from studies/*.json

namespace fl::fourier_head {

std::string FourierHeadExperiment::description() const {
  return "Predict a conditional density over 50 ordered bins of [-1, 1] from two inputs with "
         "the paper's MLP, comparing a linear head, the Fourier head and a GMM head on "
         "synthetic data whose true density is known (Gillman et al., ICLR 2025).";
}

std::vector<ParamSpec> FourierHeadExperiment::params() const {
  using P = ParamSpec;
  return {
      P::choice("dataset", "gmm2", toyDatasetNames(),
                "gaussian: z ~ N(y, var); gmm2: z ~ N(x, var) or N(y, var); "
                "beta: z = +-Beta(100|x|, 100|y|)")
          .inGroup("data"),
      P::integer("samples", 5000, 100, 1000000, "Number of (x, y, z) samples (paper: 5000)")
          .inGroup("data"),
      P::real("variance", 0.01, 0.0, 1.0, "Variance of the Gaussians (paper: 0.01)")
          .exclusiveMinimum()
          .logarithmic()
          .inGroup("data"),
      P::integer("bins", 50, 2, metrics::SmoothnessMetric::kMaxBins,
                 "Ordered bins of [-1, 1]; inputs and target are quantised to them (paper: 50)")
          .inGroup("data"),
      P::real("test_fraction", 0.2, 0.01, 0.9, "Share of samples held out for testing (paper: 0.2)")
          .inGroup("data"),
      P::choice("head", "fourier", {"linear", "fourier", "gmm"},
                "Classification head on the MLP: linear baseline, Fourier head or GMM head"),
      P::integer("frequencies", 12, 1, 64,
                 "Fourier head: N, the highest frequency (paper's Table 1: 12)")
          .usedOnlyWhen("head", {"fourier"}),
      P::real("gamma", 0.0, 0.0, 1.0,
              "Fourier head: weight of the smoothness regulariser (paper: 0 or 1e-6)")
          .usedOnlyWhen("head", {"fourier"}),
      P::integer("gaussians", 0, 0, 64,
                 "GMM head: number of Gaussians G; 0: the official code's choice for the dataset "
                 "(1 on gaussian, 2 on gmm2 and beta)")
          .usedOnlyWhen("head", {"gmm"}),
      P::integer("epochs", 500, 1, 100000, "Passes over the training set (paper: 500)")
          .inGroup("training"),
      P::integer("batch_size", 32, 1, 65536, "Samples per step (paper: 32)").inGroup("training"),
      P::real("lr", 1e-3, 0.0, 1.0, "Adam learning rate (paper: 1e-3)")
          .exclusiveMinimum()
          .logarithmic()
          .inGroup("training"),
      P::integer("eval_every", 10, 1, 100000, "Evaluate on the test split every this many epochs")
          .inGroup("evaluation"),
      P::integer("snapshot_inputs", 8, 1, 256,
                 "Test inputs whose densities are recorded at each evaluation (at the end, the bin "
                 "probabilities of every test input too, up to 5000)")
          .inGroup("evaluation"),
  };
}

std::vector<PanelSpec> FourierHeadExperiment::panels() const {
  return {
      {"loss",
       "Training loss",
       PanelKind::MetricLines,
       {"train/loss"},
       "step",
       "cross-entropy",
       true,
       "Mean training loss per epoch (with the regulariser when gamma > 0)"},
      {"kl",
       "Test KL(true || predicted)",
       PanelKind::MetricLines,
       {"test/kl", "test/kl_exact"},
       "step",
       "KL",
       true,
       "Mean over test inputs of the KL divergence from the true bin distribution: test/kl as "
       "the paper computes it (predicted probabilities floored at 1e-10), test/kl_exact without "
       "the floor (drawn on request: right-click the panel)",
       {"test/kl_exact"},
       /*yFloor=*/0.0},
      {"mse",
       "Test MSE",
       PanelKind::MetricLines,
       {"test/mse_expected", "test/mse_argmax", "test/mse_expected_exact"},
       "step",
       "squared error",
       false,
       "Bin centre of the rounded expected bin (the paper's MSE mean), of the argmax, and the "
       "unrounded expected value, against the target's bin centre (drawn on request: right-click "
       "the panel)",
       {"test/mse_expected_exact"},
       /*yFloor=*/0.0},
      {"smoothness",
       "Test smoothness",
       PanelKind::MetricLines,
       {"test/smoothness"},
       "step",
       "s(q)",
       false,
       "Lower is smoother",
       {},
       /*yFloor=*/0.0},
      {"pdf",
       "Learned vs true PDF",
       PanelKind::SnapshotCurves,
       {"pdf/true_grid", "pdf/pred_grid", "pdf/true", "pdf/pred"},
       "z",
       "density",
       false,
       "For a test input: the continuous densities on a fine grid and the bin probabilities"},
      {"probe",
       "Probe: density for chosen inputs",
       PanelKind::Probe,
       {"probe/true_grid", "probe/pred_grid", "probe/true", "probe/pred"},
       "z",
       "density",
       false,
       "Drag x and y to see the density the model predicts now beside the true one"},
      {"spectrum",
       "Fourier coefficients |c_k / c_0|",
       PanelKind::SnapshotBars,
       {"spectrum/abs_c"},
       "frequency k",
       "mean |c_k / c_0|",
       true,
       "Mean magnitude of the coefficients divided by c_0 (as the paper's head normalises them), "
       "so k = 0 reads 1: the density's level; the others are the shape's frequencies"},
      {"spectrum_evolution",
       "Spectrum over training",
       PanelKind::HeatmapOverSteps,
       {"spectrum/abs_c"},
       "step",
       "frequency k",
       false,
       "|c_k / c_0| at each evaluation"},
  };
}

std::vector<Preset> FourierHeadExperiment::presets() const {
  return parsePresets(::fl::presets_json::kFourierHead);
}

std::vector<study::StudySpec> FourierHeadExperiment::studies() const {
  return parseStudies(name(), ::fl::presets_json::kFourierHeadStudies);
}

std::vector<ProbeInput> FourierHeadExperiment::probeInputs() const {
  return {{"x", -1.0, 1.0, -0.3, "First input"}, {"y", -1.0, 1.0, 0.4, "Second input"}};
}

std::vector<Snapshot> FourierHeadExperiment::rebuiltSnapshots(const nlohmann::json& config,
                                                              const Snapshot& stored) const {
  if (stored.role != SnapshotRole::Prediction) return {};
  try {
    if (auto truth = toyTruthOf(ToyBenchmarkSettings::fromConfig(config), stored))
      return {std::move(*truth)};
  } catch (const std::exception&) {
    // A config this version cannot read (a store from an older lab): its truths stay unshown.
  }
  return {};
}

std::optional<double> FourierHeadExperiment::stepsPerEpoch(const nlohmann::json& config) const {
  const auto settings = ToyBenchmarkSettings::fromConfig(config);
  return static_cast<double>(toyBenchmarkPlan(settings, toyTrainSize(settings)).stepsPerEpoch);
}

std::optional<std::vector<std::string>> FourierHeadExperiment::recordedMetrics(
    const nlohmann::json& /*config*/) const {
  return ToyEvaluation::metricNames();
}

std::unique_ptr<Trial> FourierHeadExperiment::createTrial(const TrialContext& context) const {
  return std::make_unique<FourierHeadTrial>(ToyBenchmarkSettings::fromConfig(context.config),
                                            context.device, context.seed);
}

int FourierHeadExperiment::usefulThreads(const nlohmann::json& config) const {
  return onAccelerator(config.value("device", "cpu")) ? 0 : 1;
}

std::string FourierHeadExperiment::groupDifference(const nlohmann::json& a,
                                                   const nlohmann::json& b) const {
  return toyGroupDifference(a, b);
}

std::optional<std::string> FourierHeadExperiment::groupKey(const nlohmann::json& config) const {
  return toyGroupKey(config);
}

std::unique_ptr<BatchedTrial> FourierHeadExperiment::createGroup(
    const std::vector<TrialContext>& members) const {
  return std::make_unique<BatchedFourierHeadTrial>(members);
}

}  // namespace fl::fourier_head
