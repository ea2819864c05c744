#include "core/study/study_run_name.h"

#include "core/engine/config_diff.h"
#include "core/study/study_aggregate.h"

namespace fl::study {

namespace {

std::string axesText(const nlohmann::json& axes) {
  std::string out;
  for (const auto& [key, value] : axes.items())
    out += (out.empty() ? "" : " ") + key + "=" + settingText(value);
  return out;
}

}  // namespace

std::string cellLabel(const nlohmann::json& axes, int64_t seed) {
  const std::string out = axesText(axes);
  return out + (out.empty() ? "" : " ") + "seed=" + std::to_string(seed);
}

std::string settingLabel(const std::string& arm, const nlohmann::json& axes) {
  const std::string values = axesText(axes);
  if (arm.empty() && values.empty()) return "the study's one setting";
  return arm.empty() ? values : values.empty() ? arm : arm + " · " + values;
}

std::string cellLabel(const std::string& arm, const nlohmann::json& axes, int64_t seed) {
  return (arm.empty() ? "" : arm + " · ") + cellLabel(axes, seed);
}

std::string studyRunName(const std::string& study, const std::string& arm,
                         const nlohmann::json& axes, int64_t seed) {
  return (study.empty() ? "" : study + " · ") + cellLabel(arm, axes, seed);
}

bool isStudyRunName(const std::string& name) {
  const auto separator = name.find(" · ");
  return separator != std::string::npos && separator > 0 &&
         name.find(" seed=", separator) != std::string::npos;
}

}  // namespace fl::study
