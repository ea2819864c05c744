#include "experiments/common/transformer_settings.h"

#include "core/engine/config_diff.h"

#include <algorithm>
#include <stdexcept>

namespace fl::transformer_setup {

ModelShape ModelShape::fromConfig(const nlohmann::json& c) {
  ModelShape s;
  s.dModel = c.at("d_model").get<int64_t>();
  s.heads = c.at("heads").get<int64_t>();
  s.layers = c.at("layers").get<int64_t>();
  s.mlpRatio = c.at("mlp_ratio").get<int64_t>();
  s.norm = c.at("norm").get<std::string>();
  s.mlp = c.at("mlp").get<std::string>();
  s.tiedHead = c.at("tied_head").get<bool>();
  s.dropout = c.at("dropout").get<double>();
  s.attentionOutputDropout = c.at("attn_out_dropout").get<bool>();
  s.residualInit = c.at("residual_init").get<std::string>();
  s.mlpBias = c.at("mlp_bias").get<bool>();
  return s;
}

void ModelShape::applyTo(nn::GptOptions& o) const {
  if (dModel % heads != 0)
    throw std::invalid_argument("d_model " + std::to_string(dModel) +
                                " is not divisible by heads " + std::to_string(heads));
  o.dModel = dModel;
  o.heads = heads;
  o.layers = layers;
  o.mlpRatio = mlpRatio;
  o.norm = nn::parseNormKind(norm).value();
  o.mlp = nn::parseMlpKind(mlp).value();
  o.tiedHead = tiedHead;
  o.dropout = dropout;
  o.attentionOutputDropout = attentionOutputDropout;
  o.scaledResidualInit = residualInit == "scaled";
  o.mlpBias = mlpBias;
}

AdamWSchedule AdamWSchedule::fromConfig(const nlohmann::json& c) {
  AdamWSchedule s;
  s.batchSize = c.at("batch_size").get<int64_t>();
  s.steps = c.at("steps").get<int64_t>();
  s.lr = c.at("lr").get<double>();
  s.minLr = c.at("min_lr").get<double>();
  s.warmupSteps = c.at("warmup").get<int64_t>();
  s.weightDecay = c.at("weight_decay").get<double>();
  s.gradClip = c.at("grad_clip").get<double>();
  s.evalEvery = c.at("eval_every").get<int64_t>();
  return s;
}

optim::WarmupCosine AdamWSchedule::schedule() const {
  return {lr, std::min(minLr, lr), warmupSteps, steps};
}

optim::FlatAdamOptions AdamWSchedule::adamOptions(double beta2) const {
  return optim::FlatAdamOptions().lr(lr).beta1(0.9).beta2(beta2).weightDecay(weightDecay);
}

std::vector<ParamSpec> modelShapeParams(const ModelShape& d) {
  using P = ParamSpec;
  return {
      P::integer("d_model", d.dModel, 8, 8192, "Model width").inGroup("model"),
      P::integer("heads", d.heads, 1, 128, "Attention heads (must divide d_model)")
          .inGroup("model"),
      P::integer("layers", d.layers, 1, 128, "Transformer blocks").inGroup("model"),
      P::integer("mlp_ratio", d.mlpRatio, 1, 16, "MLP width as a multiple of d_model")
          .inGroup("model"),
      P::choice("norm", d.norm, {"rmsnorm", "layernorm"}, "Pre-norm of each block")
          .inGroup("model"),
      P::choice("mlp", d.mlp, {"gelu", "swiglu"}, "MLP non-linearity").inGroup("model"),
      P::flag("tied_head", d.tiedHead, "Share the output head with the token embedding")
          .inGroup("model"),
      P::real("dropout", d.dropout, 0.0, 0.9, "Dropout on attention weights and sublayer outputs")
          .inGroup("model"),
      P::flag("attn_out_dropout", d.attentionOutputDropout,
              "Dropout on the attention's projected output too (nanoGPT); off: on its weights "
              "only (FourierQK's author); at dropout 0 neither drops anything")
          .inGroup("model"),
      P::choice("residual_init", d.residualInit, {"scaled", "plain"},
                "Initial std of the residual projections: 0.02 / sqrt(2 layers) (nanoGPT, "
                "scaled) or 0.02 as every matrix (FourierQK's author, plain)")
          .inGroup("model"),
      P::flag("mlp_bias", d.mlpBias,
              "Biases on the MLP's linear layers, zero at the start (FourierQK's author)")
          .inGroup("model"),
  };
}

std::vector<ParamSpec> adamWParams(const AdamWSchedule& d, const std::string& batchHelp) {
  using P = ParamSpec;
  return {
      P::integer("batch_size", d.batchSize, 1, 65536, batchHelp).inGroup("training"),
      P::integer("steps", d.steps, 1, 10000000, "Optimisation steps").inGroup("training"),
      P::real("lr", d.lr, 0.0, 1.0, "Peak AdamW learning rate")
          .exclusiveMinimum()
          .logarithmic()
          .inGroup("training"),
      P::real("min_lr", d.minLr, 0.0, 1.0, "Learning rate at the end of the cosine decay")
          .inGroup("training"),
      P::integer("warmup", d.warmupSteps, 0, 10000000, "Linear warm-up steps").inGroup("training"),
      P::real("weight_decay", d.weightDecay, 0.0, 10.0,
              "AdamW decoupled weight decay on weight matrices (not on norms, biases or learned "
              "frequencies)")
          .inGroup("training"),
      P::real("grad_clip", d.gradClip, 0.0, 1000.0, "Clip the global gradient norm (0: off)")
          .inGroup("training"),
      P::integer("eval_every", d.evalEvery, 1, 10000000, "Evaluate every this many steps")
          .inGroup("evaluation"),
  };
}

std::optional<ConfigIssue> checkSchedule(const nlohmann::json& config) {
  const double lr = config.at("lr").get<double>();
  const double minLr = config.at("min_lr").get<double>();
  if (minLr <= lr) return std::nullopt;
  return ConfigIssue{"min_lr", "'min_lr'=" + settingText(config.at("min_lr")) +
                                   " is above 'lr'=" + settingText(config.at("lr")) +
                                   ": the cosine decay would raise the learning rate; give a "
                                   "min_lr at most lr"};
}

}  // namespace fl::transformer_setup
