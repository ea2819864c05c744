// The config values that set compared runs apart: the run display's table of differences, the
// history's config columns and `fourierlab-cli runs compare` all ask the same question, so they
// answer it in one place and never disagree about which keys differ.
//
//   std::vector<const nlohmann::json*> configs{&a.config, &b.config};
//   for (const std::string& key : differingConfigKeys(configs)) show(key, configValue(a, key));
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/engine/param_spec.h"

namespace fl {

// What a compared config holds for a value its run does not use (a linear head's frequencies):
// no parameter can take this text (a choice names its values, a text parameter's check
// refuses it), and in differingConfigKeys it matches any value, so it sets no run apart.
inline constexpr const char* kUnusedValue = "(not used)";
bool isUnusedValue(const nlohmann::json& value);

// `config` with each value of a parameter of `specs` that the config does not use (isUsed)
// replaced by `replacement(param)`: what sets no run apart, as comparisons and identities read it.
nlohmann::json withUnusedAs(const std::vector<ParamSpec>& specs, const nlohmann::json& config,
                            const std::function<nlohmann::json(const ParamSpec&)>& replacement);

// `config` as comparisons read it: each value it does not use is kUnusedValue, and a setting
// added after it was stored at the value it ran with (settings_added_later.h).
nlohmann::json comparedValues(const std::vector<ParamSpec>& specs, const nlohmann::json& config);

// A setting's value as the window and the tables write it: text as it is, a number in its
// shortest exact form (10000.0 as "10000", 0.1 as "0.1": JSON's dump wrote "10000.0" in History
// where the form said 10000), anything else as JSON.
std::string settingText(const nlohmann::json& value);

// A config's value for `key`: null where the config lacks it or is not an object (a run recorded
// without a config), so a key one run has and another lacks reads as set against unset.
nlohmann::json configValue(const nlohmann::json& config, const std::string& key);

// The top-level keys whose values are not the same in every config, sorted. A nested object
// counts as one value: any difference inside it makes its key differ. Values compare as JSON
// (1 and 1.0 are the same setting); kUnusedValue matches any value, so a key differs only where
// two configs that use it disagree (or one lacks it). Fewer than two configs differ in nothing.
std::vector<std::string> differingConfigKeys(const std::vector<const nlohmann::json*>& configs);

// `keys` in the order the experiments declare them (their allParams()), as the Configure form
// lists them: the first list's keys first, then the next list's others; keys no list declares
// (a parameter an older build had) last, sorted.
std::vector<std::string> inDeclarationOrder(const std::vector<std::string>& keys,
                                            const std::vector<std::vector<ParamSpec>>& declared);

// The keys that set runs apart where each experiment's runs are compared among themselves: a
// parameter another experiment's run lacks sets none apart. experiments[i] names configs[i]'s
// experiment; `declared` holds each known experiment's allParams(), whose order the keys take
// (inDeclarationOrder, over the experiments in the order their first run comes).
std::vector<std::string> differingKeysWithinExperiments(
    const std::vector<std::string>& experiments, const std::vector<const nlohmann::json*>& configs,
    const std::map<std::string, std::vector<ParamSpec>>& declared);

}  // namespace fl
