// Settings every transformer experiment shares, each with its parameter declarations:
// the model's shape (ModelShape) and the AdamW training schedule (AdamWSchedule). Experiments
// choose their own defaults and add what is theirs (corpus, task, filters).
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/engine/config.h"
#include "core/engine/param_spec.h"
#include "core/nn/transformer/gpt.h"
#include "core/optim/flat_adam.h"
#include "core/optim/lr_schedule.h"

namespace fl::transformer_setup {

struct ModelShape {
  int64_t dModel = 128;
  int64_t heads = 4;
  int64_t layers = 2;
  int64_t mlpRatio = 4;
  std::string norm = "rmsnorm";
  std::string mlp = "gelu";
  bool tiedHead = false;
  double dropout = 0.0;
  // nanoGPT's by default; the FourierQK author's GPT differs in each (nn::GptOptions).
  bool attentionOutputDropout = true;
  std::string residualInit = "scaled";  // scaled | plain
  bool mlpBias = false;

  static ModelShape fromConfig(const nlohmann::json& config);
  // Fills the shape into `options`; throws std::invalid_argument when heads do not divide d_model.
  void applyTo(nn::GptOptions& options) const;
};

struct AdamWSchedule {
  int64_t batchSize = 32;
  int64_t steps = 1000;
  double lr = 1e-3;
  double minLr = 1e-4;
  int64_t warmupSteps = 100;
  double weightDecay = 0.1;
  double gradClip = 1.0;
  int64_t evalEvery = 100;

  static AdamWSchedule fromConfig(const nlohmann::json& config);
  optim::WarmupCosine schedule() const;
  optim::FlatAdamOptions adamOptions(double beta2) const;
};

std::vector<ParamSpec> modelShapeParams(const ModelShape& defaults);
// `batchHelp` says what one batch element is ("Sequences per step", "Problems per step").
std::vector<ParamSpec> adamWParams(const AdamWSchedule& defaults, const std::string& batchHelp);
// An issue on min_lr above lr: the cosine "decay" would raise the learning rate, which no
// paper's schedule does (each value alone is in range, so the form took it without a word).
std::optional<ConfigIssue> checkSchedule(const nlohmann::json& config);

}  // namespace fl::transformer_setup
