// The addition experiment's settings.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/engine/param_spec.h"
#include "experiments/addition/addition_task.h"

namespace fl::addition {

struct AdditionSettings {
  AdditionTask task;
  double testFraction = 0.2;
  std::string embeddingInit = "random";  // random | fourier
  std::vector<double> fourierPeriods{2, 2.5, 5, 10, 100};
  double fourierAmplitude = 1.0;
  bool embeddingFrozen = false;
  int64_t dModel = 128;
  int64_t heads = 4;
  int64_t layers = 2;
  int64_t mlpRatio = 4;
  std::string norm = "layernorm";
  bool tiedHead = true;
  int64_t batchSize = 256;
  int64_t steps = 3000;
  double lr = 1e-3;
  double minLr = 1e-4;
  int64_t warmupSteps = 100;
  double weightDecay = 0.1;
  double gradClip = 1.0;
  int64_t evalEvery = 100;
  double cutoffPeriod = 10.4;
  int64_t topPeriods = 5;

  static AdditionSettings fromConfig(const nlohmann::json& config);
};

std::vector<ParamSpec> additionParams();

}  // namespace fl::addition
