#include "core/engine/preset_verdicts.h"

namespace fl {

std::vector<ReferenceVerdict> checkAgainstPresets(const Experiment& experiment,
                                                  const nlohmann::json& config,
                                                  const std::map<std::string, double>& last,
                                                  const std::map<std::string, double>& lowest) {
  std::vector<ReferenceVerdict> out;
  const auto specs = experiment.allParams();
  for (const auto& preset : experiment.presets()) {
    if (preset.reference.is_null() ||
        !isPresetConfig(specs, preset.overrides, preset.reference.value("by", std::string()),
                        config))
      continue;
    for (auto& v : checkAgainstReference(preset.reference, config, last, lowest)) {
      v.preset = preset.name;
      out.push_back(std::move(v));
    }
  }
  return out;
}

}  // namespace fl
