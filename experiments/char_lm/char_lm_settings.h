// The settings every char-level language-model experiment shares (FoPE, FourierQK): corpus,
// model size, optimiser and evaluation cadence, as parameters with per-experiment defaults.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/engine/param_spec.h"

namespace fl::char_lm {

struct CharLmSettings {
  std::string corpus;  // empty: the built-in structured text
  int64_t syntheticCharacters = 400000;
  int64_t dModel = 128;
  int64_t heads = 4;
  int64_t layers = 2;
  int64_t mlpRatio = 4;
  std::string norm = "rmsnorm";
  std::string mlp = "gelu";
  bool tiedHead = false;
  double dropout = 0.0;
  int64_t trainLength = 64;
  int64_t batchSize = 32;
  int64_t steps = 1000;
  double lr = 1e-3;
  double minLr = 1e-4;
  int64_t warmupSteps = 100;
  double weightDecay = 0.1;
  double gradClip = 1.0;
  int64_t evalEvery = 100;
  int64_t evalTokens = 16384;  // validation tokens per evaluation length

  static CharLmSettings fromConfig(const nlohmann::json& config);
};

// The shared parameters, their defaults taken from `defaults`.
std::vector<ParamSpec> charLmParams(const CharLmSettings& defaults);

}  // namespace fl::char_lm
