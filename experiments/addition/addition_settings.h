// The addition experiment's settings.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/engine/param_spec.h"
#include "experiments/addition/addition_task.h"
#include "experiments/common/transformer_settings.h"

namespace fl::addition {

struct AdditionSettings {
  AdditionTask task;
  double testFraction = 0.2;
  std::string embeddingInit = "random";  // random | fourier
  std::vector<double> fourierPeriods{2, 2.5, 5, 10, 100};
  double fourierAmplitude = 1.0;
  bool embeddingFrozen = false;
  transformer_setup::ModelShape model;
  transformer_setup::AdamWSchedule training;
  double cutoffPeriod = 10.4;
  int64_t topPeriods = 5;

  static AdditionSettings fromConfig(const nlohmann::json& config);
};

std::vector<ParamSpec> additionParams();

}  // namespace fl::addition
