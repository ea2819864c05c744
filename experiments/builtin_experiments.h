// Registers every experiment that ships with FourierLab. Called by the composition roots
// (app/cli, app/gui) and by tests that need the real experiments.
#pragma once

#include "core/engine/registry.h"

namespace fl {

void registerBuiltinExperiments(ExperimentRegistry& registry);

}  // namespace fl
