// Registers every experiment that ships with FourierLab (each folder of experiments/ with its
// fourierlab_experiment() line in experiments/CMakeLists.txt). Called by the composition roots
// (app/cli, app/gui) and by tests that need the real experiments.
#pragma once

#include "core/engine/registry.h"

namespace fl {

void registerBuiltinExperiments(ExperimentRegistry& registry);

}  // namespace fl
