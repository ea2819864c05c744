#include "experiments/fope/fope_experiment.h"

#include <algorithm>
#include <limits>

#include "core/engine/preset_json.h"
#include "core/text/passkey.h"
#include "experiments/char_lm/char_lm_checks.h"
#include "experiments/fope/fope_settings.h"
#include "experiments/fope/fope_trial.h"
#include "experiments/fope_presets.h"  // generated from presets/*.json
#include "experiments/fope_studies.h"  // generated from studies/*.json
#include "experiments/common/training_memory.h"
#include "experiments/common/transformer_settings.h"

namespace fl::fope {

std::string FopeExperiment::description() const {
  return "Train a small char-level transformer at train_len and measure perplexity and passkey "
         "retrieval at 1, 2, 4 and 8 times that length, comparing position encodings: NoPE, "
         "learned, RoPE, ALiBi and FoPE (Fourier series per dimension, floor frequencies "
         "clipped). Passkey: the paper's zero-shot test (a model trained on the corpus alone) "
         "or FourierLab's task mixed into training (passkey_protocol). Without a corpus it "
         "trains on built-in text with known periods.";
}

std::vector<ParamSpec> FopeExperiment::params() const { return fopeParams(); }

std::vector<PanelSpec> FopeExperiment::panels() const {
  return {
      {"loss",
       "Loss",
       PanelKind::MetricLines,
       {"train/loss", "val/loss"},
       "step",
       "cross-entropy (nats)",
       true,
       "Training loss and validation loss at train_len. With passkey_protocol=trained-in, a "
       "passkey_mix share of each training batch is passkey prompts and validation is the "
       "corpus alone: the curves differ by that mix as well as by overfitting"},
      {"ppl_vs_length",
       "Perplexity against evaluation length",
       PanelKind::SnapshotCurves,
       {"ppl/by_length"},
       "evaluation length (tokens)",
       "perplexity",
       true,
       "Validation perplexity at 1x, 2x, 4x, 8x train_len at the latest evaluation; compared runs "
       "are overlaid"},
      {"ppl_over_training",
       "Perplexity by length over training",
       PanelKind::HeatmapOverSteps,
       {"ppl/by_length"},
       "step",
       "evaluation length (tokens)",
       true,
       "How perplexity at each evaluation length moved during training"},
      {"ppl_curves",
       "Perplexity per length",
       PanelKind::MetricLines,
       {"val/ppl@*"},
       "step",
       "perplexity",
       true,
       "One curve per evaluation length"},
      {"passkey_vs_length",
       "Passkey accuracy against length",
       PanelKind::SnapshotCurves,
       {"passkey/by_length", "passkey/acc_lo_by_length", "passkey/acc_hi_by_length"},
       "evaluation length (tokens)",
       "exact-key accuracy",
       false,
       "Share of passkey prompts whose every key character the model retrieves (solid), with "
       "the ends of its 95% Wilson interval over the trials (dashed: low, dotted: high)",
       {},
       0.0,
       1.0,
       {"exact key", "95% low", "95% high"}},
      {"passkey_curves",
       "Passkey accuracy per length",
       PanelKind::MetricLines,
       {"passkey/acc@*"},
       "step",
       "accuracy",
       false,
       "One curve per evaluation length",
       {},
       0.0,
       1.0},
      {"frequencies",
       "RoPE frequencies in use",
       PanelKind::SnapshotBars,
       {"freq/in_use", "freq/clipped"},
       "dimension pair j",
       "w_j (rad/token)",
       true,
       "Frequencies kept, and those below 2 pi / train_len clipped to zero (shown at their "
       "original value)",
       {},
       std::numeric_limits<double>::quiet_NaN(),
       std::numeric_limits<double>::quiet_NaN(),
       {"kept", "clipped to zero"}},
      {"spectrum_purity",
       "Spectral purity per layer",
       PanelKind::MetricLines,
       {"spectrum/purity_L*"},
       "step",
       "share of energy at w_j",
       false,
       "FoPE's spectrum damage, measured: over one long validation window, the share of each "
       "rotated dimension pair's energy along positions (Hann-windowed DFT) within one bin of "
       "the frequency its encoding gives it, averaged over the layer's pairs, heads, queries and "
       "keys. 1 is a clean single frequency; white noise reads 3 / probe length. RoPE and "
       "FoPE runs side by side show which keeps its frequencies.",
       {},
       0.0,
       1.0},
      {"spectrum_heatmap",
       "Spectral purity: layer x dimension pair",
       PanelKind::SnapshotHeatmap,
       {"spectrum/purity"},
       "dimension pair j",
       "layer",
       false,
       "The latest evaluation's purity of every layer's every dimension pair (low pairs rotate "
       "fastest; clipped or padded pairs are measured at frequency 0)"},
      {"fope_coefficients",
       "FoPE coefficients per head",
       PanelKind::SnapshotHeatmap,
       {"fope/coef_cos", "fope/coef_sin"},
       "dimension pair j",
       "frequency w_f",
       false,
       "C_cos and C_sin: how much of each kept frequency feeds each dimension pair"},
  };
}

std::vector<Preset> FopeExperiment::presets() const {
  return parsePresets(::fl::presets_json::kFope);
}

std::vector<study::StudySpec> FopeExperiment::studies() const {
  return parseStudies(name(), ::fl::presets_json::kFopeStudies);
}

std::vector<Variant> FopeExperiment::comparisonVariants() const {
  return {{"RoPE", {{"position", "rope"}}},
          {"FoPE", {{"position", "fope"}}},
          {"ALiBi", {{"position", "alibi"}}},
          {"NoPE", {{"position", "none"}}}};
}

std::vector<ConfigIssue> FopeExperiment::checkConfig(const nlohmann::json& config) const {
  const auto s = FopeSettings::fromConfig(config);
  auto issues = char_lm::checkModelAndPosition(config, s.clipFloor);
  if (auto memory = transformer_setup::checkTrainingMemory(config)) issues.push_back(*memory);
  if (auto schedule = transformer_setup::checkSchedule(config)) issues.push_back(*schedule);
  // The same rules FopeTrial enforces, said before a run exists.
  if (s.zeroShot() && s.passkeyMix > 0)
    issues.push_back({"passkey_mix",
                      "passkey_protocol=zero-shot trains on the corpus alone (the "
                      "paper's test), but 'passkey_mix' is " +
                          config.at("passkey_mix").dump() +
                          ": set passkey_mix=0, or passkey_protocol=trained-in"});
  if (!s.zeroShot() && s.passkeyKeyChars != PasskeyKeyChars::Digits)
    issues.push_back({"passkey_key_chars",
                      "passkey_key_chars=letters is for passkey_protocol=zero-shot; the "
                      "trained-in task's keys are digits"});
  if (s.zeroShot() && s.passkeyKeyChars == PasskeyKeyChars::Digits && s.passkeyDigits > 18)
    issues.push_back({"passkey_digits",
                      "zero-shot digit keys (1 to 5 x 10^(n-1)) have at most "
                      "18 digits, 'passkey_digits' is " +
                          std::to_string(s.passkeyDigits)});
  if (s.zeroShot() && s.passkeySamples > 0) {
    const auto lengths = s.evalLengths();
    const int64_t longest = lengths.empty() ? 0 : lengths.back();
    if (longest < s.minimumPasskeyContext())
      issues.push_back(
          {"passkey_samples",
           "the zero-shot passkey prompt with " + std::to_string(s.passkeyDigits) +
               "-character keys needs at least " + std::to_string(s.minimumPasskeyContext()) +
               " tokens, and the longest evaluation length is " + std::to_string(longest) +
               " (train_len=" + std::to_string(s.lm.trainLength) +
               " x eval_factors=" + config.at("eval_factors").get<std::string>() +
               "): raise train_len or eval_factors, or set passkey_samples=0"});
  }
  const int64_t needed = text::minimumPasskeyLength(s.passkeyDigits) - 1;
  if (!s.zeroShot() && s.passkeyMix > 0 && s.lm.trainLength < needed)
    issues.push_back(
        {"passkey_digits", "passkey_mix=" + config.at("passkey_mix").dump() +
                               " trains on passkey "
                               "samples of train_len characters: " +
                               std::to_string(s.passkeyDigits) +
                               "-digit keys ('passkey_digits'=" + std::to_string(s.passkeyDigits) +
                               ") need train_len >= " + std::to_string(needed) +
                               ", 'train_len' is " + std::to_string(s.lm.trainLength) +
                               "; lower passkey_digits, raise train_len or set passkey_mix=0"});
  const auto lengths = s.evalLengths();
  const int64_t longest = std::max(s.lm.trainLength, lengths.empty() ? 0 : lengths.back());
  for (auto& issue :
       char_lm::checkCorpus(config, longest,
                            "train_len=" + std::to_string(s.lm.trainLength) +
                                " x eval_factors=" + config.at("eval_factors").get<std::string>()))
    issues.push_back(std::move(issue));
  return issues;
}

std::optional<double> FopeExperiment::tokensPerStep(const nlohmann::json& config) const {
  return static_cast<double>(char_lm::CharLmSettings::fromConfig(config).tokensPerStep());
}

std::optional<std::vector<std::string>> FopeExperiment::recordedMetrics(
    const nlohmann::json& config) const {
  const auto s = FopeSettings::fromConfig(config);
  std::vector<std::string> names{"val/loss"};
  for (const int64_t length : s.evalLengths()) {
    const std::string at = "@" + std::to_string(length);
    names.push_back("val/ppl" + at);
    if (s.testsPasskeyAt(length))
      for (const char* score :
           {"passkey/acc", "passkey/acc_lo", "passkey/acc_hi", "passkey/digit_acc"})
        names.push_back(score + at);
  }
  if (s.zeroShot()) names.push_back("passkey/unseen_chars");
  if (nn::isRotary(s.position))
    for (int64_t l = 0; l < s.lm.model.layers; ++l)
      names.push_back("spectrum/purity_L" + std::to_string(l));
  return names;
}

std::unique_ptr<Trial> FopeExperiment::createTrial(const TrialContext& context) const {
  return std::make_unique<FopeTrial>(FopeSettings::fromConfig(context.config), context.device,
                                     context.seed);
}

}  // namespace fl::fope
