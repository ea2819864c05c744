// Presets are JSON files in an experiment's presets/ folder, embedded at build time:
//   {"name": "paper-fourier", "description": "...", "set": {"frequencies": 12},
//    "reference": {"source": "...", "by": "dataset", "values": {...}}}
// "set" overrides only what differs from the defaults; "reference" is optional.
#pragma once

#include <string_view>
#include <vector>

#include "core/engine/experiment.h"

namespace fl {

// Throws std::invalid_argument naming the preset when a text is not a valid preset object.
Preset parsePreset(std::string_view jsonText);
std::vector<Preset> parsePresets(const std::vector<std::string_view>& jsonTexts);

// Built-in studies (an experiment's studies/*.json, core/engine/study_spec.h), embedded the same
// way; each belongs to `experiment`. Throws std::invalid_argument naming the study and field.
std::vector<study::StudySpec> parseStudies(const std::string& experiment,
                                           const std::vector<std::string_view>& jsonTexts);

}  // namespace fl
