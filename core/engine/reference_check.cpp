#include "core/engine/reference_check.h"

#include <cmath>
#include <cstdio>

namespace fl {

std::vector<ReferenceVerdict> checkAgainstReference(const nlohmann::json& reference,
                                                    const nlohmann::json& config,
                                                    const std::map<std::string, double>& metrics) {
  std::vector<ReferenceVerdict> out;
  if (!reference.is_object() || !reference.contains("values")) return out;
  const std::string by = reference.value("by", "");
  if (by.empty() || !config.contains(by) || !config[by].is_string()) return out;
  const auto& values = reference["values"];
  const std::string row = config[by].get<std::string>();
  if (!values.contains(row)) return out;
  for (const auto& [metric, figure] : values[row].items()) {
    auto it = metrics.find(metric);
    if (it == metrics.end() || !figure.is_array() || figure.empty() || !figure[0].is_number()) continue;
    ReferenceVerdict v;
    v.metric = metric;
    v.paperMean = figure[0].get<double>();
    if (figure.size() > 1 && figure[1].is_number()) v.paperStd = figure[1].get<double>();
    v.value = it->second;
    char buf[200];
    if (v.paperStd) {
      v.withinSpread = std::abs(v.value - v.paperMean) <= *v.paperStd;
      std::snprintf(buf, sizeof(buf), "%s %.3f vs paper %.3f ± %.3f: %s", metric.c_str(), v.value,
                    v.paperMean, *v.paperStd,
                    *v.withinSpread ? "within the paper's spread" : "outside the paper's spread");
    } else {
      std::snprintf(buf, sizeof(buf), "%s %.3f vs paper %.3f", metric.c_str(), v.value, v.paperMean);
    }
    v.text = buf;
    out.push_back(std::move(v));
  }
  return out;
}

}  // namespace fl
