// A run's identity: a stable hash of its experiment and its complete validated config, so a
// study never trains the same config and seed twice (and reuses a finished run with that hash,
// from any study or none). Where a run trains (`device`) and how often it saves
// (`checkpoint_every`, `checkpoint_seconds`) do not change what it learns and are left out.
//
// Stable across builds and machines: FNV-1a (64 bit) over a canonical text in which keys are
// sorted and every number is written as a double, so 0 and 0.0 (a float parameter given as an
// integer in a JSON file) hash alike.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/engine/param_spec.h"

namespace fl::store {

// 16 lowercase hex digits.
std::string configHash(const std::string& experiment, const nlohmann::json& validatedConfig);

// The hash a new run is stored and found by: configHash with every parameter of `params` the
// config does not use (isUsed: a linear head's frequencies) at its default, so runs that differ
// only there are one run. A study over head x frequencies trained the linear head again when
// another study listed the frequencies in another order, and the two read "identical configs".
// A run stored with its unused values at their defaults keeps the hash it had.
std::string identityHash(const std::string& experiment, const std::vector<ParamSpec>& params,
                         const nlohmann::json& validatedConfig);

// The keys the hash ignores.
bool isPlacementKey(const std::string& key);

// FNV-1a (64 bit) of a text as 16 lowercase hex digits: stable across builds and machines.
std::string stableHash(const std::string& text);

}  // namespace fl::store
