#include "core/engine/config.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>

#include "core/engine/device_spec.h"

namespace fl {

namespace {

// "~" and "~/..." as a shell reads them: the window's form has no shell, and
// "~/data/input.txt" became "<working folder>/~/data/input.txt".
std::string withHomeExpanded(const std::string& path) {
  const char* home = std::getenv("HOME");
  if (!home || *home == '\0' || path.empty() || path[0] != '~') return path;
  if (path.size() == 1) return home;
  if (path[1] == '/') return std::string(home) + path.substr(1);
  return path;  // "~user": another user's home, left to the check to refuse
}

std::string knownKeys(const std::vector<ParamSpec>& specs) {
  std::string out;
  for (const auto& s : specs) out += (out.empty() ? "" : ", ") + s.name;
  return out;
}

ConfigIssue unknownKey(const std::vector<ParamSpec>& specs, const std::string& key) {
  return {key, "unknown parameter '" + key + "' (known: " + knownKeys(specs) + ")"};
}

}  // namespace

std::string ValidatedConfig::summary() const {
  std::string out;
  for (const auto& issue : issues) out += (out.empty() ? "" : "\n") + issue.message;
  return out;
}

std::vector<ParamSpec> runParams() {
  ParamSpec seed = ParamSpec::integer("seed", 42, 0, 2147483647,
                                      "Seeds data generation, the split, initialisation and "
                                      "shuffling: the same seed on CPU gives the same metrics");
  ParamSpec device = ParamSpec::text("device", "auto",
                                     "auto (CUDA when available, else CPU), cpu, cuda or cuda:N");
  device.textCheck = checkDeviceSpec;
  ParamSpec checkpoints = ParamSpec::integer(
      "checkpoint_every", 5, 0, 1000000,
      "Save a checkpoint every this many evaluations and at the end (0: at the end only); "
      "the last and the best are kept");
  // The time bound, whatever the evaluation settings: a killed run loses at most about this
  // much training (see CheckpointSchedule).
  ParamSpec checkpointSeconds = ParamSpec::real(
      "checkpoint_seconds", 60, 0, 86400,
      "Also save a checkpoint once this many seconds have passed since the last one, between "
      "any two steps: a killed run loses at most about this much training");
  checkpointSeconds.exclusiveMinimum();
  return {seed.inGroup("run"), device.inGroup("run"), checkpoints.inGroup("run"),
          checkpointSeconds.inGroup("run")};
}

const ParamSpec* findParam(const std::vector<ParamSpec>& specs, const std::string& name) {
  for (const auto& s : specs)
    if (s.name == name) return &s;
  return nullptr;
}

bool isUsed(const ParamSpec& spec, const nlohmann::json& config) {
  if (!spec.condition || !config.is_object() || !config.contains(spec.condition->key)) return true;
  const auto& value = config[spec.condition->key];
  const std::string text = value.is_string()    ? value.get<std::string>()
                           : value.is_boolean() ? (value.get<bool>() ? "true" : "false")
                                                : value.dump();
  const auto& values = spec.condition->values;
  return std::find(values.begin(), values.end(), text) != values.end();
}

ValidatedConfig validateConfig(const std::vector<ParamSpec>& specs,
                               const nlohmann::json& overrides) {
  ValidatedConfig result;
  if (!overrides.is_null() && !overrides.is_object()) {
    result.issues.push_back({"", "a config must be a JSON object, got " + overrides.dump()});
    return result;
  }
  for (const auto& spec : specs) result.values[spec.name] = spec.defaultValue;
  if (overrides.is_null()) return result;

  for (const auto& [key, value] : overrides.items()) {
    const ParamSpec* spec = findParam(specs, key);
    if (!spec) {
      result.issues.push_back(unknownKey(specs, key));
      continue;
    }
    if (auto error = checkValue(*spec, value)) {
      result.issues.push_back({key, *error});
      continue;
    }
    // Integers as integers even when given as 3.0 and floats as floats even when given as 0,
    // so equal configs are equal JSON (and hash alike); -0.0 is 0.0 for the same reason (it
    // printed "-0.0" and trained apart from 0).
    if (spec->type == ParamType::Int)
      result.values[key] = value.get<long long>();
    else if (spec->type == ParamType::Float)
      result.values[key] = value.get<double>() == 0 ? 0.0 : value.get<double>();
    else if (spec->isFilePath && !value.get_ref<const std::string&>().empty())
      // A relative path read another file when the run was resumed from another folder.
      result.values[key] = std::filesystem::absolute(withHomeExpanded(value.get<std::string>()))
                               .lexically_normal()
                               .string();
    else
      result.values[key] = value;
  }
  return result;
}

std::optional<ConfigIssue> applyAssignment(const std::vector<ParamSpec>& specs,
                                           const std::string& assignment,
                                           nlohmann::json& overrides) {
  const auto eq = assignment.find('=');
  if (eq == std::string::npos || eq == 0)
    return ConfigIssue{"", "expected KEY=VALUE, got '" + assignment + "'"};
  const std::string key = assignment.substr(0, eq);
  const std::string text = assignment.substr(eq + 1);
  const ParamSpec* spec = findParam(specs, key);
  if (!spec) return unknownKey(specs, key);
  ParsedValue parsed = parseValue(*spec, text);
  if (parsed.error) return ConfigIssue{key, *parsed.error};
  overrides[key] = parsed.value;
  return std::nullopt;
}

}  // namespace fl
