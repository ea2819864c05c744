// Config: the JSON object of parameter values one run uses, validated against the experiment's
// ParamSpec list. Defaults are filled in, so a validated config is complete and is what the run
// store and the --json summary record.
//
//   ValidatedConfig c = validateConfig(experiment.params(), {{"lr", 0.01}});
//   if (!c.ok()) show(c.issues);   // each issue names its key
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/engine/param_spec.h"

namespace fl {

struct ConfigIssue {
  std::string key;      // the offending parameter ("" for a problem with the whole object)
  std::string message;  // names the key and the allowed values
};

struct ValidatedConfig {
  nlohmann::json values = nlohmann::json::object();  // complete: every declared key present
  std::vector<ConfigIssue> issues;

  bool ok() const { return issues.empty(); }
  std::string summary() const;  // all issues, one per line
};

// The parameters every experiment has, owned by the engine: seed, device, checkpoint_every,
// checkpoint_seconds.
std::vector<ParamSpec> runParams();

// Checks `overrides` (a JSON object; missing keys take their defaults) against `specs`.
// Unknown keys, wrong types and out-of-range values are all reported, not only the first.
ValidatedConfig validateConfig(const std::vector<ParamSpec>& specs,
                               const nlohmann::json& overrides);

// Applies "KEY=VALUE" (the CLI's --set) to `overrides`, parsing VALUE by the key's declared type.
// Returns an issue when the text is malformed, the key unknown or the value not allowed.
std::optional<ConfigIssue> applyAssignment(const std::vector<ParamSpec>& specs,
                                           const std::string& assignment,
                                           nlohmann::json& overrides);

const ParamSpec* findParam(const std::vector<ParamSpec>& specs, const std::string& name);

// Whether a run with `config` uses `spec`: it has no condition, or the config's value of the
// condition's key (a choice's text, a flag's "true"/"false") is one of the condition's values.
// A config without that key (a run stored by an older build) counts as using it.
bool isUsed(const ParamSpec& spec, const nlohmann::json& config);

}  // namespace fl
