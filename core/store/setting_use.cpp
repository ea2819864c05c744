#include "core/store/setting_use.h"

#include "core/engine/config.h"

namespace fl::store {

SettingUse settingUseOf(const ExperimentRegistry& registry) {
  return [&registry](const RunRecord& run, const std::string& key) {
    const auto experiment = registry.find(run.experiment);
    if (!experiment) return true;
    const auto specs = experiment->allParams();
    const ParamSpec* spec = findParam(specs, key);
    return !spec || isUsed(*spec, run.config);
  };
}

}  // namespace fl::store
