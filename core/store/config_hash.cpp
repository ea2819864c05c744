#include "core/store/config_hash.h"

#include <cstdint>
#include <cstdio>

#include "core/engine/config_diff.h"
#include "core/engine/settings_added_later.h"

namespace fl::store {

namespace {

nlohmann::json canonical(const nlohmann::json& value) {
  if (value.is_number()) return value.get<double>();
  if (value.is_object()) {
    nlohmann::json out = nlohmann::json::object();  // std::map: keys sorted
    for (const auto& [key, v] : value.items()) out[key] = canonical(v);
    return out;
  }
  if (value.is_array()) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& v : value) out.push_back(canonical(v));
    return out;
  }
  return value;
}

uint64_t fnv1a(const std::string& text) {
  uint64_t h = 14695981039346656037ull;
  for (unsigned char c : text) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

}  // namespace

bool isPlacementKey(const std::string& key) {
  return key == "device" || key == "checkpoint_every" || key == "checkpoint_seconds";
}

std::string configHash(const std::string& experiment, const nlohmann::json& validatedConfig) {
  // checkpoint_seconds became a placement key after stores held runs hashed with it: it is
  // hashed at its default, whatever it is, so a run that kept the default keeps the hash it was
  // stored with (left out, every stored run's hash would have changed, and no study would have
  // found one to reuse).
  constexpr double kCheckpointSecondsHashedAs = 60;
  // A setting added later is left out at the value earlier runs had, so such a run keeps the
  // identity the stored runs have (a study reuses them, a resume finds its cells); any other
  // value is hashed.
  const auto& addedLater = settingsAddedLater();
  nlohmann::json identity = nlohmann::json::object();
  for (const auto& [key, value] : validatedConfig.items()) {
    if (const auto later = addedLater.find(key);
        later != addedLater.end() && value == later->second)
      continue;
    if (key == "checkpoint_seconds")
      identity[key] = kCheckpointSecondsHashedAs;
    else if (!isPlacementKey(key))
      identity[key] = canonical(value);
  }
  return stableHash(experiment + "\n" + identity.dump());
}

std::string identityHash(const std::string& experiment, const std::vector<ParamSpec>& params,
                         const nlohmann::json& validatedConfig) {
  return configHash(experiment, withUnusedAs(params, validatedConfig, [](const ParamSpec& param) {
                      return param.defaultValue;
                    }));
}

std::string stableHash(const std::string& text) {
  char out[17];
  std::snprintf(out, sizeof out, "%016llx", static_cast<unsigned long long>(fnv1a(text)));
  return out;
}

}  // namespace fl::store
