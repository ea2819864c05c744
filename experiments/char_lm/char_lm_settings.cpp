#include "experiments/char_lm/char_lm_settings.h"

namespace fl::char_lm {

CharLmSettings CharLmSettings::fromConfig(const nlohmann::json& c) {
  CharLmSettings s;
  s.corpus = c.at("corpus").get<std::string>();
  s.syntheticCharacters = c.at("synthetic_chars").get<int64_t>();
  s.model = transformer_setup::ModelShape::fromConfig(c);
  s.training = transformer_setup::AdamWSchedule::fromConfig(c);
  s.trainLength = c.at("train_len").get<int64_t>();
  s.evalTokens = c.at("eval_tokens").get<int64_t>();
  return s;
}

std::vector<ParamSpec> charLmParams(const CharLmSettings& d) {
  using P = ParamSpec;
  std::vector<ParamSpec> params{
      P::text("corpus", d.corpus,
              "UTF-8 text file for char-level training (e.g. TinyShakespeare); empty: the built-in "
              "structured text with periods 5, 30 and 121 characters")
          .namesAFile()
          .inGroup("data"),
      P::integer("synthetic_chars", d.syntheticCharacters, 10000, 100000000,
                 "Length of the built-in structured text (when no corpus is given)")
          .inGroup("data"),
      P::integer("train_len", d.trainLength, 4, 65536, "Training context length in tokens")
          .inGroup("training"),
      P::integer("eval_tokens", d.evalTokens, 64, 100000000,
                 "Validation tokens scored per evaluation length")
          .inGroup("evaluation"),
  };
  for (auto group : {transformer_setup::modelShapeParams(d.model),
                     transformer_setup::adamWParams(d.training, "Sequences per step")})
    params.insert(params.end(), group.begin(), group.end());
  return params;
}

}  // namespace fl::char_lm
