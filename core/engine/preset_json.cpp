#include "core/engine/preset_json.h"

#include <stdexcept>

namespace fl {

Preset parsePreset(std::string_view jsonText) {
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(jsonText);
  } catch (const nlohmann::json::parse_error& e) {
    throw std::invalid_argument(std::string("preset is not valid JSON: ") + e.what());
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

}  // namespace fl
