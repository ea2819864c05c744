// The FoPE experiment's settings: the shared char-LM settings plus the position encoding,
// the evaluation lengths and the passkey task (its protocol: the paper's zero-shot test, or
// FourierLab's short task mixed into training).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/nn/transformer/causal_self_attention.h"
#include "core/nn/transformer/position_encoding.h"
#include "experiments/char_lm/char_lm_settings.h"

namespace fl::fope {

// How the passkey test is run. ZeroShot: the paper's (YaRN's prompt, core/text/passkey_prompt.h),
// the model trained on the corpus alone. TrainedIn: FourierLab's short char task
// (core/text/passkey.h), passkey_mix of the training sequences being samples of it.
enum class PasskeyProtocol { TrainedIn, ZeroShot };
// The zero-shot key's characters: digits (the paper's) or lowercase letters the corpus has.
enum class PasskeyKeyChars { Digits, Letters };

struct FopeSettings {
  char_lm::CharLmSettings lm;
  nn::PositionKind position = nn::PositionKind::Fope;
  double ropeTheta = 10000;
  bool clipFloor = true;  // resolved from "auto": on for FoPE, off for RoPE
  double fopeGain = 0.3;
  bool fopeLearnable = false;
  bool fopeAllPairs = false;
  nn::QkNorm qkNorm = nn::QkNorm::Off;  // Table 2 runs RoPE and NoPE with and without it
  std::vector<int64_t> evalFactors{1, 2, 4, 8};
  PasskeyProtocol passkeyProtocol = PasskeyProtocol::TrainedIn;
  PasskeyKeyChars passkeyKeyChars = PasskeyKeyChars::Digits;
  int64_t passkeyDigits = 4;
  double passkeyMix = 0.2;
  int64_t passkeySamples = 32;  // trials per evaluation length

  std::vector<int64_t> evalLengths() const;  // train_len x each factor, ascending
  bool zeroShot() const { return passkeyProtocol == PasskeyProtocol::ZeroShot; }
  // The shortest evaluation length (tokens the model reads) that holds a passkey trial of the
  // chosen protocol and key length; shorter lengths are not tested.
  int64_t minimumPasskeyContext() const;
  // Whether an evaluation at `length` tokens runs passkey trials.
  bool testsPasskeyAt(int64_t length) const {
    return passkeySamples > 0 && length >= minimumPasskeyContext();
  }
  static FopeSettings fromConfig(const nlohmann::json& config);
};

// "1,2,4,8" -> {1, 2, 4, 8}; an error message when it is not a list of positive integers.
std::optional<std::string> checkFactorList(const std::string& text);
std::vector<int64_t> parseFactorList(const std::string& text);

std::vector<ParamSpec> fopeParams();

}  // namespace fl::fope
