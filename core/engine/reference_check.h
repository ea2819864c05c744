// Compares a finished run's metrics with the published figures a preset carries
// (Preset::reference): {"source": "...", "by": "dataset", "values": {"gmm2": {"test/kl":
// [mean, std]}}}. "by" names the config key that selects the row.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace fl {

struct ReferenceVerdict {
  std::string metric;
  double paperMean = 0;
  std::optional<double> paperStd;  // absent when the paper gives no spread
  double value = 0;
  // Within mean ± std; without a spread, no verdict.
  std::optional<bool> withinSpread;
  std::string text;  // "test/kl 0.143 vs paper 0.146 ± 0.033: within the paper's spread"
};

std::vector<ReferenceVerdict> checkAgainstReference(const nlohmann::json& reference,
                                                    const nlohmann::json& config,
                                                    const std::map<std::string, double>& metrics);

}  // namespace fl
