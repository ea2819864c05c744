// The settings every char-level language-model experiment shares (FoPE, FourierQK): corpus,
// model shape, training schedule, context length and evaluation budget, as parameters with
// per-experiment defaults.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/engine/param_spec.h"
#include "experiments/common/transformer_settings.h"

namespace fl::char_lm {

struct CharLmSettings {
  std::string corpus;  // empty: the built-in structured text
  int64_t syntheticCharacters = 400000;
  transformer_setup::ModelShape model;
  transformer_setup::AdamWSchedule training;
  int64_t trainLength = 64;
  int64_t evalTokens = 16384;  // validation tokens per evaluation length

  static CharLmSettings fromConfig(const nlohmann::json& config);
  // What a training step reads: batch_size windows of train_len tokens (CharLmTrial::nextBatch;
  // FoPE's passkey rows replace windows, they add none).
  int64_t tokensPerStep() const { return training.batchSize * trainLength; }
};

// The shared parameters, their defaults taken from `defaults`.
std::vector<ParamSpec> charLmParams(const CharLmSettings& defaults);

}  // namespace fl::char_lm
