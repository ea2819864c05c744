#include "experiments/fope/fope_settings.h"

#include <algorithm>
#include <cmath>

#include "core/text/passkey.h"
#include "core/text/passkey_prompt.h"
#include "experiments/common/number_list.h"

namespace fl::fope {

std::optional<std::string> checkFactorList(const std::string& text) {
  return transformer_setup::checkNumberList(
      text,
      [](double v) -> std::optional<std::string> {
        if (v != std::floor(v) || v < 1 || v > 1024) return "is not a whole number in [1, 1024]";
        return std::nullopt;
      },
      "1,2,4,8");
}

std::vector<int64_t> parseFactorList(const std::string& text) {
  std::vector<int64_t> out;
  for (double v : transformer_setup::parseNumberList(text)) out.push_back(static_cast<int64_t>(v));
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

std::vector<int64_t> FopeSettings::evalLengths() const {
  std::vector<int64_t> lengths;
  for (int64_t f : evalFactors) lengths.push_back(f * lm.trainLength);
  return lengths;
}

int64_t FopeSettings::minimumPasskeyContext() const {
  // Trained-in: a sample of length + 1 characters, the model reading the first `length`.
  // Zero-shot: the model reads the whole prompt, the key included, and predicts what follows it.
  return zeroShot() ? text::minimumZeroShotPasskeyLength(passkeyDigits)
                    : text::minimumPasskeyLength(passkeyDigits) - 1;
}

FopeSettings FopeSettings::fromConfig(const nlohmann::json& c) {
  FopeSettings s;
  s.lm = char_lm::CharLmSettings::fromConfig(c);
  s.position = nn::parsePositionKind(c.at("position").get<std::string>()).value();
  s.ropeTheta = c.at("rope_theta").get<double>();
  const auto clip = c.at("clip_floor").get<std::string>();
  s.clipFloor = clip == "on" || (clip == "auto" && s.position == nn::PositionKind::Fope);
  s.fopeGain = c.at("fope_gain").get<double>();
  s.fopeLearnable = c.at("fope_learnable").get<bool>();
  s.fopeAllPairs = c.at("fope_pairs").get<std::string>() == "all";
  s.qkNorm = nn::parseQkNorm(c.at("qk_norm").get<std::string>()).value();
  s.evalFactors = parseFactorList(c.at("eval_factors").get<std::string>());
  s.passkeyProtocol = c.at("passkey_protocol").get<std::string>() == "zero-shot"
                          ? PasskeyProtocol::ZeroShot
                          : PasskeyProtocol::TrainedIn;
  s.passkeyKeyChars = c.at("passkey_key_chars").get<std::string>() == "letters"
                          ? PasskeyKeyChars::Letters
                          : PasskeyKeyChars::Digits;
  s.passkeyDigits = c.at("passkey_digits").get<int64_t>();
  s.passkeyMix = c.at("passkey_mix").get<double>();
  s.passkeySamples = c.at("passkey_samples").get<int64_t>();
  return s;
}

std::vector<ParamSpec> fopeParams() {
  using P = ParamSpec;
  char_lm::CharLmSettings defaults;  // the tiny model: 2 layers, d 128, 4 heads, train_len 64
  std::vector<ParamSpec> params{
      P::choice("position", "fope", nn::positionKindNames(),
                "Position encoding: none (NoPE), learned absolute, rope, alibi, fope")
          .inGroup("position"),
      P::real("rope_theta", 10000, 2, 1e9, "RoPE/FoPE base: w_j = theta^(-2j/D)")
          .logarithmic()
          .usedOnlyWhen("position", {"rope", "fope"})
          .inGroup("position"),
      P::choice("clip_floor", "auto", {"auto", "on", "off"},
                "Zero the frequencies below 2 pi / train_len (FoPE's floor clipping); auto: on "
                "for fope, off for rope")
          .usedOnlyWhen("position", {"rope", "fope"})
          .inGroup("position"),
      P::real("fope_gain", 0.3, 0.0, 10.0,
              "FoPE: Xavier-normal gain of the coefficient matrices (official: 0.3 for 60M)")
          .usedOnlyWhen("position", {"fope"})
          .inGroup("position"),
      P::flag("fope_learnable", false, "FoPE: train the coefficients (official configs: fixed)")
          .usedOnlyWhen("position", {"fope"})
          .inGroup("position"),
      P::choice("fope_pairs", "official", {"official", "all"},
                "FoPE: which dimension pairs get a Fourier series: official = min(kept "
                "frequencies, head_dim/4), the rest constant; all = one per kept frequency")
          .usedOnlyWhen("position", {"fope"})
          .inGroup("position"),
      P::choice("qk_norm", "off", nn::qkNormNames(),
                "QK norm before the position encoding, no learned gain (the FoPE paper's Table 2 "
                "runs RoPE and NoPE with and without it): rms = each token's whole query and key "
                "at unit RMS, all heads together, as the official (OLMo) code; rms-per-head = "
                "each head's on its own")
          .inGroup("model"),
  };
  auto shared = char_lm::charLmParams(defaults);
  params.insert(params.end(), shared.begin(), shared.end());
  auto factors = P::text("eval_factors", "1,2,4,8",
                         "Evaluation lengths as multiples of train_len (comma-separated)")
                     .inGroup("evaluation");
  factors.textCheck = checkFactorList;
  params.push_back(factors);
  params.push_back(
      P::choice("passkey_protocol", "trained-in", {"trained-in", "zero-shot"},
                "Passkey test: zero-shot = the paper's (YaRN's prompt, the key hidden at a "
                "uniformly random point of the filler; the model trained on the corpus alone, "
                "passkey_mix must be 0); trained-in = FourierLab's short task, passkey_mix of "
                "the training sequences being samples of it")
          .inGroup("evaluation"));
  params.push_back(
      P::choice("passkey_key_chars", "digits", {"digits", "letters"},
                "Zero-shot key characters: digits (the paper's) or lowercase letters the "
                "training text has (a departure, for corpora without digits)")
          .inGroup("evaluation"));
  params.push_back(P::integer("passkey_digits", 4, 1, 32,
                              "Key length. Trained-in: exactly this many digits. Zero-shot "
                              "digits: a whole number from 1 to 5 x 10^(n-1), as YaRN's "
                              "randint(1, 50000) at 5 (at most 18). Zero-shot letters: exactly "
                              "this many letters")
                       .inGroup("evaluation"));
  params.push_back(P::real("passkey_mix", 0.2, 0.0, 1.0,
                           "Trained-in protocol: share of training sequences that are passkey "
                           "samples at train_len (0: the model never sees the task; zero-shot "
                           "needs 0)")
                       .inGroup("training"));
  params.push_back(P::integer("passkey_samples", 32, 0, 100000,
                              "Passkey trials per evaluation length (the paper: 1000; 0: skip "
                              "the task)")
                       .inGroup("evaluation"));
  return params;
}

}  // namespace fl::fope
