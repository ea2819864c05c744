#include "core/engine/run_name.h"

#include <algorithm>
#include <vector>

#include "core/engine/config_diff.h"

namespace fl {

namespace {

constexpr const char* kEdited = ", edited: ";

}  // namespace

std::string editsOf(const std::string& name) {
  const size_t at = name.find(kEdited);
  return at == std::string::npos ? std::string() : name.substr(at);
}

std::string withoutEdits(const std::string& name) { return name.substr(0, name.find(kEdited)); }

std::string settingsName(const std::string& preset, const nlohmann::json& startValues,
                         const nlohmann::json& values) {
  std::string name = preset.empty() ? "defaults" : preset;
  std::vector<std::string> keys = differingConfigKeys({&startValues, &values});
  keys.erase(std::remove(keys.begin(), keys.end(), "device"), keys.end());
  if (keys.empty()) return name;
  constexpr size_t kNamed = 3;  // the Runs table's name column stays readable
  name += kEdited;
  for (size_t i = 0; i < std::min(keys.size(), kNamed); ++i) {
    const nlohmann::json value = configValue(values, keys[i]);
    name += (i ? ", " : "") + keys[i] + " " +
            (value.is_string() ? value.get<std::string>() : value.dump());
  }
  if (keys.size() > kNamed) name += " and " + std::to_string(keys.size() - kNamed) + " more";
  return name;
}

}  // namespace fl
