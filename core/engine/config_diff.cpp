#include "core/engine/config_diff.h"

#include <set>

namespace fl {

nlohmann::json configValue(const nlohmann::json& config, const std::string& key) {
  return config.is_object() ? config.value(key, nlohmann::json()) : nlohmann::json();
}

std::vector<std::string> differingConfigKeys(const std::vector<const nlohmann::json*>& configs) {
  std::set<std::string> keys;
  for (const auto* config : configs)
    if (config->is_object())
      for (const auto& [key, value] : config->items()) keys.insert(key);
  std::vector<std::string> differing;
  for (const auto& key : keys) {
    const nlohmann::json first = configValue(*configs.front(), key);
    for (const auto* config : configs)
      if (configValue(*config, key) != first) {
        differing.push_back(key);
        break;
      }
  }
  return differing;
}

std::vector<std::string> inDeclarationOrder(const std::vector<std::string>& keys,
                                            const std::vector<std::vector<ParamSpec>>& declared) {
  std::set<std::string> left(keys.begin(), keys.end());
  std::vector<std::string> ordered;
  for (const auto& specs : declared)
    for (const auto& spec : specs)
      if (left.erase(spec.name)) ordered.push_back(spec.name);
  ordered.insert(ordered.end(), left.begin(), left.end());
  return ordered;
}

}  // namespace fl
