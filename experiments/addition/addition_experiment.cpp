#include "experiments/addition/addition_experiment.h"

#include "core/engine/preset_json.h"
#include "experiments/addition/addition_settings.h"
#include "experiments/addition/addition_trial.h"
#include "experiments/addition/logit_lens_ablation.h"
#include "experiments/addition_presets.h"  // generated from presets/*.json
#include "experiments/addition_studies.h"  // generated from studies/*.json
#include "experiments/common/training_memory.h"
#include "experiments/common/transformer_settings.h"

namespace fl::addition {

std::string AdditionExperiment::description() const {
  return "A small GPT learns a + b = c where every number is one token. Watch the DFT of the "
         "number embeddings over the number axis as it trains, read each layer's attention and MLP "
         "outputs through the logit lens as in the paper's Figure 3, compare random with frozen "
         "Fourier-feature embeddings (the paper's rescue), ablate low or high frequencies of the "
         "attention and MLP outputs in logit space as in the paper's Table 1, and see what kind "
         "of mistakes each ablation makes.";
}

std::vector<ParamSpec> AdditionExperiment::params() const { return additionParams(); }

std::vector<PanelSpec> AdditionExperiment::panels() const {
  return {
      {"accuracy",
       "Accuracy",
       PanelKind::MetricLines,
       {"train/acc", "test/acc"},
       "step",
       "exact answer",
       false,
       "Share of problems whose answer token is the model's argmax",
       {},
       0.0,
       1.0},
      {"loss",
       "Training loss",
       PanelKind::MetricLines,
       {"train/loss"},
       "step",
       "cross-entropy",
       true,
       "At the answer position"},
      {"spectrum",
       "Number-embedding spectrum",
       PanelKind::SnapshotBars,
       {"spectrum/embedding"},
       "frequency k (period n/k over the n numbers)",
       "|DFT| over the number axis",
       false,
       "Magnitude per frequency of the number-embedding matrix (k = 0: the mean)"},
      {"spectrum_evolution",
       "Embedding spectrum over training",
       PanelKind::HeatmapOverSteps,
       {"spectrum/embedding"},
       "step",
       "frequency k",
       false,
       "How the frequencies emerge"},
      {"top_periods",
       "Strongest periods",
       PanelKind::MetricLines,
       {"spectrum/top*"},
       "step",
       "numbers per cycle",
       true,
       "The top periods of the embedding spectrum (the paper: 2, 2.5, 5, 10)"},
      {"lens_mlp",
       "Logit lens: MLP outputs",
       PanelKind::SnapshotHeatmap,
       {"lens/mlp"},
       "frequency k",
       "layer",
       false,
       "The paper's Figure 3: each layer's MLP output at the answer position read as logits over "
       "the numbers (W_U o) and transformed over the number axis, averaged over the test problems "
       "(k = 0, the logits' mean, left out). The paper: the MLPs carry low frequencies"},
      {"lens_attn",
       "Logit lens: attention outputs",
       PanelKind::SnapshotHeatmap,
       {"lens/attn"},
       "frequency k",
       "layer",
       false,
       "As the MLP panel, for each layer's attention output. The paper: attention carries the "
       "high frequencies, periods 2, 2.5, 5 and 10 (marked)"},
      {"lens_modules",
       "Logit lens by module",
       PanelKind::SnapshotCurves,
       {"lens/modules"},
       "frequency k",
       "mean |DFT| of the logits",
       false,
       "Each module's outputs summed over layers (what all its layers add to the answer's "
       "logits), transformed over the number axis; the paper's periods marked"},
      {"lens_high_share",
       "High-frequency share of each module",
       PanelKind::MetricLines,
       {"lens/high_share_*"},
       "step",
       "share of the energy",
       false,
       "The share of each module's logit energy (k >= 1) at periods up to the cutoff, the band "
       "the ablations call high. The paper: attention's share above the MLPs'",
       {},
       0.0,
       1.0},
      {"ablation",
       "Logit-lens filter ablation",
       PanelKind::SnapshotBars,
       {"ablation/acc"},
       "",
       "test accuracy",
       false,
       "Test accuracy with the low or high frequencies removed from the MLP or attention outputs",
       {},
       0.0,
       1.0},
      {"ablation_curves",
       "Ablated accuracy over training",
       PanelKind::MetricLines,
       {"test/acc_*"},
       "step",
       "test accuracy",
       false,
       "Each ablation at every evaluation",
       {},
       0.0,
       1.0},
      {"errors",
       "Error types: the paper's three",
       PanelKind::SnapshotBars,
       {"errors/full", "errors/lowpass_removed_mlp", "errors/highpass_removed_attn"},
       "prediction - answer",
       "share of the wrong answers",
       false,
       "How far off the wrong test answers are. The paper: multiples of 10 without the MLPs' "
       "low frequencies, under 6 without attention's high frequencies, 1 or 2 from scratch",
       {},
       0.0,
       1.0,
       {"whole model", "MLPs' low frequencies removed", "attention's high frequencies removed"}},
      {"errors_other",
       "Error types: the other ablations",
       PanelKind::SnapshotBars,
       {"errors/highpass_removed_mlp", "errors/lowpass_removed_attn", "errors/lowpass_removed_all",
        "errors/highpass_removed_all"},
       "prediction - answer",
       "share of the wrong answers",
       false,
       "How far off the wrong test answers are under the other filters",
       {},
       0.0,
       1.0,
       {"MLPs' high frequencies removed", "attention's low frequencies removed",
        "all low frequencies removed", "all high frequencies removed"}},
      {"errors_verdict",
       "Error types against the paper",
       PanelKind::Verdict,
       {"errors/verdict"},
       "",
       "",
       false,
       "At the end of a run, where its setting allows: the share of each ablation's wrong "
       "answers of the paper's kind"},
  };
}

std::vector<Preset> AdditionExperiment::presets() const {
  return parsePresets(::fl::presets_json::kAddition);
}

std::vector<study::StudySpec> AdditionExperiment::studies() const {
  return parseStudies(name(), ::fl::presets_json::kAdditionStudies);
}

std::vector<Variant> AdditionExperiment::comparisonVariants() const {
  // The paper's rescue freezes the Fourier embeddings; training them on is FourierLab's variant.
  return {{"random embeddings", {{"embedding_init", "random"}, {"embedding_frozen", false}}},
          {"Fourier embeddings, frozen",
           {{"embedding_init", "fourier"}, {"embedding_frozen", true}},
           /*shownFirst=*/true},
          {"Fourier embeddings, trained",
           {{"embedding_init", "fourier"}, {"embedding_frozen", false}}}};
}

std::vector<ConfigIssue> AdditionExperiment::checkConfig(const nlohmann::json& config) const {
  const auto s = AdditionSettings::fromConfig(config);
  std::vector<ConfigIssue> issues;
  if (s.model.dModel % s.model.heads != 0)
    issues.push_back({"heads", "'heads'=" + std::to_string(s.model.heads) +
                                   " does not divide 'd_model'=" + std::to_string(s.model.dModel) +
                                   ": every head gets d_model / heads dimensions"});
  if (auto memory = transformer_setup::checkTrainingMemory(config)) issues.push_back(*memory);
  if (auto schedule = transformer_setup::checkSchedule(config)) issues.push_back(*schedule);
  const auto needed = 2 * static_cast<int64_t>(s.fourierPeriods.size());
  if (s.embeddingInit == "fourier" && needed > s.model.dModel)
    issues.push_back(
        {"fourier_periods", "'fourier_periods'=" + config.at("fourier_periods").get<std::string>() +
                                " needs " + std::to_string(needed) +
                                " embedding dimensions (a cos and "
                                "a sin per period), 'd_model' is " +
                                std::to_string(s.model.dModel)});
  return issues;
}

std::optional<double> AdditionExperiment::stepsPerEpoch(const nlohmann::json& config) const {
  return static_cast<double>(additionStepsPerEpoch(AdditionSettings::fromConfig(config)));
}

std::optional<double> AdditionExperiment::tokensPerStep(const nlohmann::json& config) const {
  const auto s = AdditionSettings::fromConfig(config);
  return static_cast<double>(s.training.batchSize * AdditionTask::kSequenceLength);
}

std::optional<std::vector<std::string>> AdditionExperiment::recordedMetrics(
    const nlohmann::json& config) const {
  const auto s = AdditionSettings::fromConfig(config);
  std::vector<std::string> names{"train/acc", "test/acc", "lens/high_share_attn",
                                 "lens/high_share_mlp"};
  for (int64_t i = 1; i <= s.topPeriods; ++i)
    names.push_back("spectrum/top" + std::to_string(i) + "_period");
  std::vector<std::string> outcomes{"full"};
  for (const auto& ablation : paperAblations()) {
    names.push_back("test/acc_" + ablation.key);
    outcomes.push_back(ablation.key);
  }
  // Said of the mistakes under each, where there are any.
  for (const auto& outcome : outcomes)
    for (const char* share :
         {"errors/share_mult10_", "errors/share_small_", "errors/share_within2_"})
      names.push_back(share + outcome);
  return names;
}

std::unique_ptr<Trial> AdditionExperiment::createTrial(const TrialContext& context) const {
  return std::make_unique<AdditionTrial>(AdditionSettings::fromConfig(context.config),
                                         context.device, context.seed);
}

}  // namespace fl::addition
