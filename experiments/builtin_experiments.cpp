#include "experiments/builtin_experiments.h"

// One registry.add() per fourierlab_experiment() line of experiments/CMakeLists.txt.
#include "experiments/builtin_experiment_list.h"

namespace fl {

void registerBuiltinExperiments(ExperimentRegistry& registry) { registerExperimentList(registry); }

}  // namespace fl
