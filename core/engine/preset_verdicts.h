// A finished run against the published figures of the experiment's presets.
#pragma once

#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/engine/experiment.h"
#include "core/engine/reference_check.h"

namespace fl {

// The verdicts of every preset of `experiment` that carries a reference and whose model, data
// and training the config has: every parameter equal to the preset's value (its override or
// the default) except the reference's row key ("dataset"), the run settings (seed, device,
// checkpoints) and the evaluation settings. A run is compared with the paper whenever it is
// the paper's configuration, however it was launched; a shortened or altered run never is.
std::vector<ReferenceVerdict> checkAgainstPresets(const Experiment& experiment,
                                                  const nlohmann::json& config,
                                                  const std::map<std::string, double>& last,
                                                  const std::map<std::string, double>& lowest = {});

// Why a run that is none of the paper's configurations has no verdict against it: the paper
// preset it departs from least, and how, as "not compared with the paper (paper-fourier):
// epochs 300 (the paper's 500)". Empty where a preset matches (it has verdicts) or where
// every paper preset is more than kMaxNamedDepartures settings away (not a shortened paper
// run, an experiment of its own).
inline constexpr size_t kMaxNamedDepartures = 3;
std::string whyNotComparedWithPaper(const Experiment& experiment, const nlohmann::json& config);

}  // namespace fl
