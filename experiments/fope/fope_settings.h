// The FoPE experiment's settings: the shared char-LM settings plus the position encoding,
// the evaluation lengths and the passkey task.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/nn/transformer/position_encoding.h"
#include "experiments/char_lm/char_lm_settings.h"

namespace fl::fope {

struct FopeSettings {
  char_lm::CharLmSettings lm;
  nn::PositionKind position = nn::PositionKind::Fope;
  double ropeTheta = 10000;
  bool clipFloor = true;  // resolved from "auto": on for FoPE, off for RoPE
  double fopeGain = 0.3;
  bool fopeLearnable = false;
  bool fopeAllPairs = false;
  std::vector<int64_t> evalFactors{1, 2, 4, 8};
  int64_t passkeyDigits = 4;
  double passkeyMix = 0.2;
  int64_t passkeySamples = 32;

  std::vector<int64_t> evalLengths() const;  // train_len x each factor, ascending
  static FopeSettings fromConfig(const nlohmann::json& config);
};

// "1,2,4,8" -> {1, 2, 4, 8}; an error message when it is not a list of positive integers.
std::optional<std::string> checkFactorList(const std::string& text);
std::vector<int64_t> parseFactorList(const std::string& text);

std::vector<ParamSpec> fopeParams();

}  // namespace fl::fope
