// Settings added after stores held runs without them, each with the value every earlier run
// had (the behaviour before the setting existed): a stored config that lacks one ran at that
// value. A run's identity (core/store/config_hash.h) leaves such a key out at that value, and
// comparisons (comparedValues, config_diff.h) read a missing one as that value, so an earlier
// run and a new one at the default are one setting, neither two runs nor "unset" against "true".
// A setting joins this list when it is added with the earlier behaviour as its default.
#pragma once

#include <map>
#include <string>

#include <nlohmann/json.hpp>

namespace fl {

inline const std::map<std::string, nlohmann::json>& settingsAddedLater() {
  // Where GPTs differ (transformer_settings.h): nanoGPT's choices, which every transformer had.
  static const std::map<std::string, nlohmann::json> earlier = {
      {"attn_out_dropout", true}, {"residual_init", "scaled"}, {"mlp_bias", false}};
  return earlier;
}

}  // namespace fl
