#include "experiments/builtin_experiments.h"

#include "experiments/addition/addition_experiment.h"
#include "experiments/fope/fope_experiment.h"
#include "experiments/fourier_head/fourier_head_experiment.h"
#include "experiments/fourier_qk/fourier_qk_experiment.h"

namespace fl {

void registerBuiltinExperiments(ExperimentRegistry& registry) {
  registry.add(std::make_shared<fourier_head::FourierHeadExperiment>());
  registry.add(std::make_shared<fope::FopeExperiment>());
  registry.add(std::make_shared<fourier_qk::FourierQkExperiment>());
  registry.add(std::make_shared<addition::AdditionExperiment>());
}

}  // namespace fl
