#include "core/engine/export_values.h"

#include <cmath>

namespace fl {

std::string csvField(const std::string& text) {
  if (text.find_first_of(",\"\n\r") == std::string::npos) return text;
  std::string out = "\"";
  for (char c : text) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

nlohmann::json finiteOrNull(double value) {
  return std::isfinite(value) ? nlohmann::json(value) : nlohmann::json();
}

nlohmann::json verdictsJson(const std::vector<Verdict>& verdicts) {
  nlohmann::json all = nlohmann::json::array();
  for (const auto& v : verdicts) {
    nlohmann::json j = {{"source", toString(v.source)},
                        {"subject", v.subject},
                        {"label", v.label},
                        {"passed", v.passed ? nlohmann::json(*v.passed) : nlohmann::json()},
                        {"detail", v.detail}};
    if (v.source == VerdictSource::Paper) {
      j["value"] = finiteOrNull(v.value);
      j["paper_mean"] = finiteOrNull(v.paperMean);
      j["paper_std"] = v.paperStd ? finiteOrNull(*v.paperStd) : nlohmann::json();
      j["preset"] = v.preset;
    }
    all.push_back(std::move(j));
  }
  return all;
}

}  // namespace fl
