#include "experiments/addition/addition_settings.h"

#include "experiments/addition/number_embedding_init.h"

namespace fl::addition {

AdditionSettings AdditionSettings::fromConfig(const nlohmann::json& c) {
  AdditionSettings s;
  s.task.operands = c.at("operands").get<int64_t>();
  s.task.modular = c.at("modular").get<bool>();
  s.testFraction = c.at("test_fraction").get<double>();
  s.embeddingInit = c.at("embedding_init").get<std::string>();
  s.fourierPeriods = parsePeriodList(c.at("fourier_periods").get<std::string>());
  s.fourierAmplitude = c.at("fourier_amplitude").get<double>();
  s.embeddingFrozen = c.at("embedding_frozen").get<bool>();
  s.dModel = c.at("d_model").get<int64_t>();
  s.heads = c.at("heads").get<int64_t>();
  s.layers = c.at("layers").get<int64_t>();
  s.mlpRatio = c.at("mlp_ratio").get<int64_t>();
  s.norm = c.at("norm").get<std::string>();
  s.tiedHead = c.at("tied_head").get<bool>();
  s.batchSize = c.at("batch_size").get<int64_t>();
  s.steps = c.at("steps").get<int64_t>();
  s.lr = c.at("lr").get<double>();
  s.minLr = c.at("min_lr").get<double>();
  s.warmupSteps = c.at("warmup").get<int64_t>();
  s.weightDecay = c.at("weight_decay").get<double>();
  s.gradClip = c.at("grad_clip").get<double>();
  s.evalEvery = c.at("eval_every").get<int64_t>();
  s.cutoffPeriod = c.at("cutoff_period").get<double>();
  s.topPeriods = c.at("top_periods").get<int64_t>();
  return s;
}

std::vector<ParamSpec> additionParams() {
  using P = ParamSpec;
  auto periods = P::text("fourier_periods", "2,2.5,5,10,100",
                         "fourier init: periods (numbers per cycle) of the cos/sin features")
                     .inGroup("embedding");
  periods.textCheck = checkPeriodList;
  return {
      P::integer("operands", 100, 2, 1000,
                 "N: operands 0..N-1, each one token; answers 0..2N-2 (the paper: up to 260)")
          .inGroup("data"),
      P::flag("modular", false, "Answer (a + b) mod N instead of a + b").inGroup("data"),
      P::real("test_fraction", 0.2, 0.01, 0.95, "Share of the N^2 operand pairs held out (seeded)")
          .inGroup("data"),
      P::choice("embedding_init", "random", {"random", "fourier"},
                "Number embeddings: random (from scratch) or Fourier features at fourier_periods "
                "(the paper's rescue), other dimensions random")
          .inGroup("embedding"),
      periods,
      P::real("fourier_amplitude", 1.0, 0.0, 100.0,
              "fourier init: amplitude of the cos/sin features (random dimensions have std 0.02)")
          .inGroup("embedding"),
      P::flag("embedding_frozen", false, "Keep the number embeddings fixed during training")
          .inGroup("embedding"),
      P::integer("d_model", 128, 8, 8192, "Model width").inGroup("model"),
      P::integer("heads", 4, 1, 128, "Attention heads (must divide d_model)").inGroup("model"),
      P::integer("layers", 2, 1, 128, "Transformer blocks").inGroup("model"),
      P::integer("mlp_ratio", 4, 1, 16, "MLP width as a multiple of d_model").inGroup("model"),
      P::choice("norm", "layernorm", {"rmsnorm", "layernorm"}, "Pre-norm of each block").inGroup("model"),
      P::flag("tied_head", true, "Share the output head with the token embedding (GPT-2)").inGroup("model"),
      P::integer("batch_size", 256, 1, 65536, "Problems per step").inGroup("training"),
      P::integer("steps", 3000, 1, 10000000, "Optimisation steps").inGroup("training"),
      P::real("lr", 1e-3, 0.0, 1.0, "Peak AdamW learning rate").exclusiveMinimum().logarithmic()
          .inGroup("training"),
      P::real("min_lr", 1e-4, 0.0, 1.0, "Learning rate at the end of the cosine decay").inGroup("training"),
      P::integer("warmup", 100, 0, 10000000, "Linear warm-up steps").inGroup("training"),
      P::real("weight_decay", 0.1, 0.0, 10.0, "AdamW decoupled weight decay on weight matrices")
          .inGroup("training"),
      P::real("grad_clip", 1.0, 0.0, 1000.0, "Clip the global gradient norm (0: off)").inGroup("training"),
      P::integer("eval_every", 100, 1, 10000000, "Evaluate every this many steps").inGroup("evaluation"),
      P::real("cutoff_period", 10.4, 2.0, 1e6,
              "Ablation: frequencies with period <= this (numbers per cycle) count as high (the "
              "paper: k >= 50 of 520, i.e. 10.4)")
          .inGroup("evaluation"),
      P::integer("top_periods", 5, 1, 20, "How many spectrum/top<i>_period metrics").inGroup("evaluation"),
  };
}

}  // namespace fl::addition
