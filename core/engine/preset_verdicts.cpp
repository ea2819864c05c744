#include "core/engine/preset_verdicts.h"

#include "core/engine/config.h"

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
                        config, paperFiles(preset.reference)))
      continue;
    for (auto& v : checkAgainstReference(preset.reference, config, last, lowest)) {
      v.preset = preset.name;
      out.push_back(std::move(v));
    }
  }
  return out;
}

std::string whyNotComparedWithPaper(const Experiment& experiment, const nlohmann::json& config) {
  const auto specs = experiment.allParams();
  std::string nearest;
  std::vector<std::string> fewest;
  for (const auto& preset : experiment.presets()) {
    if (preset.reference.is_null()) continue;
    const ValidatedConfig expected = validateConfig(specs, preset.overrides);
    if (!expected.ok() || !config.is_object()) continue;
    const auto departures =
        departuresFromPaper(specs, expected.values, preset.reference.value("by", std::string()),
                            config, "the paper's", paperFiles(preset.reference));
    if (departures.empty()) return "";  // the paper's configuration: it has its verdicts
    if (nearest.empty() || departures.size() < fewest.size()) {
      nearest = preset.name;
      fewest = departures;
    }
  }
  if (nearest.empty() || fewest.size() > kMaxNamedDepartures) return "";
  std::string text = "not compared with the paper (" + nearest + "): ";
  for (size_t i = 0; i < fewest.size(); ++i) text += (i ? ", " : "") + fewest[i];
  return text;
}

}  // namespace fl
