#include "core/engine/config_diff.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <set>

#include "core/engine/config.h"
#include "core/engine/settings_added_later.h"

namespace fl {

bool isUnusedValue(const nlohmann::json& value) {
  return value.is_string() && value.get_ref<const std::string&>() == kUnusedValue;
}

nlohmann::json withUnusedAs(const std::vector<ParamSpec>& specs, const nlohmann::json& config,
                            const std::function<nlohmann::json(const ParamSpec&)>& replacement) {
  if (!config.is_object()) return config;
  nlohmann::json out = config;
  for (const auto& spec : specs)
    if (out.contains(spec.name) && !isUsed(spec, config)) out[spec.name] = replacement(spec);
  return out;
}

std::string settingText(const nlohmann::json& value) {
  if (value.is_string()) return value.get<std::string>();
  if (value.is_number_float()) {
    const double v = value.get<double>();
    char text[40];
    // A whole number as one ("10000", not "1e+04"); else the fewest significant digits that
    // read back as the same double, as printf's %g writes them ("0.0003", "1e-06").
    if (std::isfinite(v) && v == std::trunc(v) && std::abs(v) < 1e15) {
      std::snprintf(text, sizeof text, "%.0f", v);
      return text;
    }
    for (int digits = 1; digits <= 17; ++digits) {
      std::snprintf(text, sizeof text, "%.*g", digits, v);
      if (std::strtod(text, nullptr) == v) break;
    }
    return text;
  }
  return value.dump();
}

nlohmann::json comparedValues(const std::vector<ParamSpec>& specs, const nlohmann::json& config) {
  nlohmann::json filled = config;
  if (filled.is_object())
    for (const auto& spec : specs)
      if (!filled.contains(spec.name))
        if (const auto later = settingsAddedLater().find(spec.name);
            later != settingsAddedLater().end())
          filled[spec.name] = later->second;
  return withUnusedAs(specs, filled, [](const ParamSpec&) { return nlohmann::json(kUnusedValue); });
}

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
    std::optional<nlohmann::json> first;  // the first value a config uses
    for (const auto* config : configs) {
      nlohmann::json value = configValue(*config, key);
      if (isUnusedValue(value)) continue;
      if (!first) {
        first = std::move(value);
      } else if (value != *first) {
        differing.push_back(key);
        break;
      }
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

std::vector<std::string> differingKeysWithinExperiments(
    const std::vector<std::string>& experiments, const std::vector<const nlohmann::json*>& configs,
    const std::map<std::string, std::vector<ParamSpec>>& declared) {
  std::vector<std::string> order;  // each experiment once, as its first run comes
  std::map<std::string, std::vector<const nlohmann::json*>> configsOf;
  for (size_t i = 0; i < configs.size() && i < experiments.size(); ++i) {
    if (std::find(order.begin(), order.end(), experiments[i]) == order.end())
      order.push_back(experiments[i]);
    configsOf[experiments[i]].push_back(configs[i]);
  }
  std::vector<std::string> differing;
  std::vector<std::vector<ParamSpec>> declaredInOrder;
  for (const auto& name : order) {
    for (const auto& key : differingConfigKeys(configsOf[name]))
      if (std::find(differing.begin(), differing.end(), key) == differing.end())
        differing.push_back(key);
    if (const auto it = declared.find(name); it != declared.end())
      declaredInOrder.push_back(it->second);
  }
  return inDeclarationOrder(differing, declaredInOrder);
}

}  // namespace fl
