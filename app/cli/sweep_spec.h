// Turns `sweep run`'s arguments into a StudySpec: a built-in study (--study), a study file
// (--study-file) or nothing, with the command line's --preset, --set, --grid, --zip, --seeds
// and --name on top.
#pragma once

#include <optional>
#include <string>

#include "app/cli/commands.h"
#include "core/engine/study_spec.h"

namespace fl::cli {

struct SweepSpec {
  std::shared_ptr<const Experiment> experiment;
  study::StudySpec spec;
  std::string error;  // for the user, naming the argument; empty when ok
};

SweepSpec sweepSpecFromArgs(const ExperimentRegistry& registry, const SweepArgs& args);

}  // namespace fl::cli
