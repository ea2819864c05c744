#include "core/engine/registry.h"

#include <map>
#include <stdexcept>

#include "core/engine/config.h"

namespace fl {

void Trial::saveCheckpoint(const std::string&) const {
  throw std::runtime_error("this experiment cannot save checkpoints");
}

void Trial::loadCheckpoint(const std::string&) {
  throw std::runtime_error("this experiment cannot load checkpoints");
}

void BatchedTrial::saveCheckpoint(int64_t, const std::string&) const {
  throw std::runtime_error("this experiment cannot save checkpoints");
}

void BatchedTrial::loadCheckpoint(int64_t, const std::string&) {
  throw std::runtime_error("this experiment cannot load checkpoints");
}

std::unique_ptr<BatchedTrial> Experiment::createGroup(const std::vector<TrialContext>&) const {
  throw std::runtime_error(name() + " cannot train runs in groups");
}

std::vector<ParamSpec> Experiment::allParams() const {
  auto specs = params();
  for (auto& spec : runParams()) specs.push_back(std::move(spec));
  return specs;
}

std::optional<Preset> Experiment::findPreset(const std::string& presetName) const {
  for (auto& p : presets())
    if (p.name == presetName) return p;
  return std::nullopt;
}

std::optional<study::StudySpec> Experiment::findStudy(const std::string& studyName) const {
  for (auto& s : studies())
    if (s.name == studyName) return s;
  return std::nullopt;
}

void ExperimentRegistry::add(std::shared_ptr<const Experiment> experiment) {
  if (find(experiment->name()))
    throw std::invalid_argument("experiment '" + experiment->name() + "' registered twice");
  m_experiments.push_back(std::move(experiment));
}

std::shared_ptr<const Experiment> ExperimentRegistry::find(const std::string& name) const {
  for (const auto& e : m_experiments)
    if (e->name() == name) return e;
  return nullptr;
}

std::string ExperimentRegistry::names() const {
  std::string out;
  for (const auto& e : m_experiments) out += (out.empty() ? "" : ", ") + e->name();
  return out;
}

ValidatedConfig buildConfig(const Experiment& experiment, const std::string& presetName,
                            const std::vector<std::string>& assignments) {
  const auto specs = experiment.allParams();
  nlohmann::json overrides = nlohmann::json::object();
  if (!presetName.empty()) {
    const auto presets = experiment.presets();
    const Preset* preset = nullptr;
    std::string known;
    for (const auto& p : presets) {
      if (p.name == presetName) preset = &p;
      known += (known.empty() ? "" : ", ") + p.name;
    }
    if (!preset) {
      ValidatedConfig bad;
      bad.issues.push_back({"preset", "unknown preset '" + presetName + "' for experiment '" +
                                          experiment.name() + "' (known: " + known + ")"});
      return bad;
    }
    overrides = preset->overrides;
  }
  std::vector<ConfigIssue> issues;
  std::map<std::string, std::string> assigned;  // key -> its first assignment, as typed
  for (const auto& assignment : assignments) {
    const std::string key = assignment.substr(0, assignment.find('='));
    if (auto first = assigned.find(key); first != assigned.end()) {
      issues.push_back({key, "'" + key + "' is set twice ('" + first->second + "', then '" +
                                 assignment + "'); set it once"});
      continue;
    }
    assigned.emplace(key, assignment);
    if (auto issue = applyAssignment(specs, assignment, overrides)) issues.push_back(*issue);
  }
  // Cross-parameter and data checks only on values that parsed: a clash with a value that was
  // refused would say the same thing twice.
  ValidatedConfig config =
      issues.empty() ? validateRunConfig(experiment, overrides) : validateConfig(specs, overrides);
  config.issues.insert(config.issues.begin(), issues.begin(), issues.end());
  return config;
}

ValidatedConfig validateRunConfig(const Experiment& experiment, const nlohmann::json& overrides) {
  ValidatedConfig config = validateConfig(experiment.allParams(), overrides);
  if (!config.ok()) return config;
  try {
    config.issues = experiment.checkConfig(config.values);
  } catch (const std::exception& e) {  // a check that could not finish refuses, never passes
    config.issues.push_back({"", e.what()});
  }
  return config;
}

}  // namespace fl
