#include "core/store/setting_use.h"

#include <map>
#include <memory>
#include <vector>

#include "core/engine/config.h"

namespace fl::store {

SettingUse settingUseOf(const ExperimentRegistry& registry) {
  // Each experiment's parameters read once per filter, not once per run it looks at (History
  // filters on the window's thread, over every run of the store).
  auto paramsOf = std::make_shared<std::map<std::string, std::vector<ParamSpec>>>();
  return [&registry, paramsOf](const RunRecord& run, const std::string& key) {
    auto known = paramsOf->find(run.experiment);
    if (known == paramsOf->end()) {
      const auto experiment = registry.find(run.experiment);
      known = paramsOf
                  ->emplace(run.experiment,
                            experiment ? experiment->allParams() : std::vector<ParamSpec>{})
                  .first;
    }
    const ParamSpec* spec = findParam(known->second, key);
    return !spec || isUsed(*spec, run.config);
  };
}

}  // namespace fl::store
