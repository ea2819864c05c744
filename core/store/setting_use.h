// Whether a stored run uses one of its settings, as its experiment's conditions say (a linear
// head holds `frequencies` and does not use it). A filter's KEY=VALUE finds only the runs that
// use KEY: `frequencies=12` had found every linear and GMM run, whose N reads "(not used)".
//
//   filter.usesSetting = settingUseOf(registry);
#pragma once

#include <string>

#include "core/engine/registry.h"
#include "core/store/run_store.h"

namespace fl::store {

// A run of an experiment the registry does not know, or a key its experiment does not declare,
// counts as used: nothing says otherwise.
SettingUse settingUseOf(const ExperimentRegistry& registry);

}  // namespace fl::store
