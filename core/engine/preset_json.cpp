#include "core/engine/preset_json.h"

#include <stdexcept>

#include "core/engine/strict_json.h"

namespace fl {

Preset parsePreset(std::string_view jsonText) {
  nlohmann::json j;
  try {
    j = parseStrictJson<nlohmann::json>(std::string(jsonText));
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(std::string("preset: ") + e.what());
  }
  if (!j.is_object() || !j.contains("name") || !j["name"].is_string())
    throw std::invalid_argument("preset needs a string \"name\": " + j.dump());
  Preset p;
  p.name = j["name"].get<std::string>();
  p.description = j.value("description", "");
  if (j.contains("set")) {
    if (!j["set"].is_object())
      throw std::invalid_argument("preset '" + p.name + "': \"set\" must be an object");
    p.overrides = j["set"];
  }
  if (j.contains("reference")) p.reference = j["reference"];
  return p;
}

std::vector<Preset> parsePresets(const std::vector<std::string_view>& jsonTexts) {
  std::vector<Preset> out;
  for (auto text : jsonTexts) out.push_back(parsePreset(text));
  return out;
}

std::vector<study::StudySpec> parseStudies(const std::string& experiment,
                                           const std::vector<std::string_view>& jsonTexts) {
  std::vector<study::StudySpec> out;
  for (auto text : jsonTexts) {
    study::StudySpec spec;
    try {
      spec = study::StudySpec::fromText(std::string(text));
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument("a built-in study of '" + experiment + "': " + e.what());
    }
    if (!spec.experiment.empty() && spec.experiment != experiment)
      throw std::invalid_argument("built-in study '" + spec.name + "' of '" + experiment +
                                  "' names experiment '" + spec.experiment + "'");
    spec.experiment = experiment;
    out.push_back(std::move(spec));
  }
  return out;
}

}  // namespace fl
