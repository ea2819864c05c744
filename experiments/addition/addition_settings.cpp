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
  s.model = transformer_setup::ModelShape::fromConfig(c);
  s.training = transformer_setup::AdamWSchedule::fromConfig(c);
  s.cutoffPeriod = c.at("cutoff_period").get<double>();
  s.topPeriods = c.at("top_periods").get<int64_t>();
  return s;
}

std::vector<ParamSpec> additionParams() {
  using P = ParamSpec;
  auto periods = P::text("fourier_periods", "2,2.5,5,10,100",
                         "fourier init: periods (numbers per cycle) of the cos/sin features")
                     .usedOnlyWhen("embedding_init", {"fourier"})
                     .inGroup("embedding");
  periods.textCheck = checkPeriodList;
  // GPT-2's shape choices: LayerNorm, tied head; 256 problems a step.
  transformer_setup::ModelShape shape;
  shape.norm = "layernorm";
  shape.tiedHead = true;
  transformer_setup::AdamWSchedule training;
  training.batchSize = 256;
  training.steps = 3000;
  std::vector<ParamSpec> params{
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
          .usedOnlyWhen("embedding_init", {"fourier"})
          .inGroup("embedding"),
      P::flag("embedding_frozen", false, "Keep the number embeddings fixed during training")
          .inGroup("embedding"),
      P::real("cutoff_period", 10.4, 2.0, 1e6,
              "Ablation: frequencies with period <= this (numbers per cycle) count as high (the "
              "paper: k >= 50 of 520, i.e. 10.4)")
          .inGroup("evaluation"),
      P::integer("top_periods", 5, 1, 20, "How many spectrum/top<i>_period metrics")
          .inGroup("evaluation"),
  };
  for (auto group : {transformer_setup::modelShapeParams(shape),
                     transformer_setup::adamWParams(training, "Problems per step")})
    params.insert(params.end(), group.begin(), group.end());
  return params;
}

}  // namespace fl::addition
