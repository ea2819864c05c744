// `fourierlab-cli devices`: where this machine can train, as the window's device picker lists it
// (core/engine/device_spec.h), so a script can choose --device without opening the window.
#include <cstdio>

#include <nlohmann/json.hpp>

#include "app/cli/commands.h"
#include "core/engine/device_spec.h"

namespace fl::cli {

int devicesCommand(bool json) {
  const auto choices = deviceChoices();
  if (json) {
    nlohmann::json all = nlohmann::json::array();
    for (const auto& c : choices)
      all.push_back({{"value", c.value},
                     {"label", c.label},
                     {"available", c.unavailableReason.empty()},
                     {"reason", c.unavailableReason}});
    std::printf("%s\n", all.dump(2).c_str());
    return kExitOk;
  }
  for (const auto& c : choices) {
    if (c.unavailableReason.empty())
      std::printf("%-8s %s\n", c.value.c_str(), c.label.c_str());
    else
      std::printf("%-8s %s (unavailable: %s)\n", c.value.c_str(), c.label.c_str(),
                  c.unavailableReason.c_str());
  }
  return kExitOk;
}

}  // namespace fl::cli
