#include "experiments/char_lm/char_lm_settings.h"

namespace fl::char_lm {

CharLmSettings CharLmSettings::fromConfig(const nlohmann::json& c) {
  CharLmSettings s;
  s.corpus = c.at("corpus").get<std::string>();
  s.syntheticCharacters = c.at("synthetic_chars").get<int64_t>();
  s.dModel = c.at("d_model").get<int64_t>();
  s.heads = c.at("heads").get<int64_t>();
  s.layers = c.at("layers").get<int64_t>();
  s.mlpRatio = c.at("mlp_ratio").get<int64_t>();
  s.norm = c.at("norm").get<std::string>();
  s.mlp = c.at("mlp").get<std::string>();
  s.tiedHead = c.at("tied_head").get<bool>();
  s.dropout = c.at("dropout").get<double>();
  s.trainLength = c.at("train_len").get<int64_t>();
  s.batchSize = c.at("batch_size").get<int64_t>();
  s.steps = c.at("steps").get<int64_t>();
  s.lr = c.at("lr").get<double>();
  s.minLr = c.at("min_lr").get<double>();
  s.warmupSteps = c.at("warmup").get<int64_t>();
  s.weightDecay = c.at("weight_decay").get<double>();
  s.gradClip = c.at("grad_clip").get<double>();
  s.evalEvery = c.at("eval_every").get<int64_t>();
  s.evalTokens = c.at("eval_tokens").get<int64_t>();
  return s;
}

std::vector<ParamSpec> charLmParams(const CharLmSettings& d) {
  using P = ParamSpec;
  return {
      P::text("corpus", d.corpus,
              "UTF-8 text file for char-level training (e.g. TinyShakespeare); empty: the built-in "
              "structured text with periods 5, 30 and 121 characters")
          .inGroup("data"),
      P::integer("synthetic_chars", d.syntheticCharacters, 10000, 100000000,
                 "Length of the built-in structured text (when no corpus is given)")
          .inGroup("data"),
      P::integer("d_model", d.dModel, 8, 8192, "Model width").inGroup("model"),
      P::integer("heads", d.heads, 1, 128, "Attention heads (must divide d_model)").inGroup("model"),
      P::integer("layers", d.layers, 1, 128, "Transformer blocks").inGroup("model"),
      P::integer("mlp_ratio", d.mlpRatio, 1, 16, "MLP width as a multiple of d_model").inGroup("model"),
      P::choice("norm", d.norm, {"rmsnorm", "layernorm"}, "Pre-norm of each block").inGroup("model"),
      P::choice("mlp", d.mlp, {"gelu", "swiglu"}, "MLP non-linearity").inGroup("model"),
      P::flag("tied_head", d.tiedHead, "Share the output head with the token embedding").inGroup("model"),
      P::real("dropout", d.dropout, 0.0, 0.9, "Dropout on attention weights and sublayer outputs")
          .inGroup("model"),
      P::integer("train_len", d.trainLength, 4, 65536, "Training context length in tokens")
          .inGroup("training"),
      P::integer("batch_size", d.batchSize, 1, 65536, "Sequences per step").inGroup("training"),
      P::integer("steps", d.steps, 1, 10000000, "Optimisation steps").inGroup("training"),
      P::real("lr", d.lr, 0.0, 1.0, "Peak AdamW learning rate").exclusiveMinimum().logarithmic()
          .inGroup("training"),
      P::real("min_lr", d.minLr, 0.0, 1.0, "Learning rate at the end of the cosine decay")
          .inGroup("training"),
      P::integer("warmup", d.warmupSteps, 0, 10000000, "Linear warm-up steps").inGroup("training"),
      P::real("weight_decay", d.weightDecay, 0.0, 10.0,
              "AdamW decoupled weight decay on matrices (not on norms, biases or learned "
              "frequencies)")
          .inGroup("training"),
      P::real("grad_clip", d.gradClip, 0.0, 1000.0, "Clip the global gradient norm (0: off)")
          .inGroup("training"),
      P::integer("eval_every", d.evalEvery, 1, 10000000, "Evaluate every this many steps")
          .inGroup("evaluation"),
      P::integer("eval_tokens", d.evalTokens, 64, 100000000,
                 "Validation tokens scored per evaluation length")
          .inGroup("evaluation"),
  };
}

}  // namespace fl::char_lm
