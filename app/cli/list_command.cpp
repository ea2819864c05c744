#include <cstdio>

#include <nlohmann/json.hpp>

#include "app/cli/commands.h"
#include "core/engine/study_spec.h"

namespace fl::cli {

namespace {

nlohmann::json paramToJson(const ParamSpec& p) {
  nlohmann::json j = {{"name", p.name},
                      {"type", toString(p.type)},
                      {"default", p.defaultValue},
                      {"allowed", p.allowedDescription()},
                      {"help", p.help},
                      {"group", p.group},
                      {"live", p.mutability == Mutability::Live}};
  if (!p.choices.empty()) j["choices"] = p.choices;
  if (p.condition)
    j["used_only_when"] = {{"key", p.condition->key}, {"values", p.condition->values}};
  return j;
}

nlohmann::json experimentToJson(const Experiment& e) {
  nlohmann::json params = nlohmann::json::array();
  for (const auto& p : e.allParams()) params.push_back(paramToJson(p));
  nlohmann::json presets = nlohmann::json::array();
  for (const auto& p : e.presets())
    presets.push_back({{"name", p.name},
                       {"description", p.description},
                       {"set", p.overrides},
                       {"reference", p.reference}});
  nlohmann::json panels = nlohmann::json::array();
  for (const auto& p : e.panels())
    panels.push_back(
        {{"id", p.id}, {"title", p.title}, {"kind", toString(p.kind)}, {"series", p.series}});
  nlohmann::json studies = nlohmann::json::array();
  for (const auto& s : e.studies())
    studies.push_back({{"name", s.name},
                       {"title", s.title},
                       {"description", s.description},
                       {"runs", study::countRuns(s)},
                       {"has_references", s.references.has_value()}});
  return {{"name", e.name()},  {"title", e.title()}, {"description", e.description()},
          {"params", params},  {"presets", presets}, {"panels", panels},
          {"studies", studies}};
}

void printText(const Experiment& e) {
  std::printf("%s  -  %s\n  %s\n\n  parameters:\n", e.name().c_str(), e.title().c_str(),
              e.description().c_str());
  for (const auto& p : e.allParams()) {
    std::printf("    %-16s %-10s default %-10s %s\n%29s%s\n", p.name.c_str(),
                toString(p.type).c_str(), p.defaultValue.dump().c_str(),
                p.allowedDescription().c_str(), "", p.help.c_str());
    if (p.condition) std::printf("%29s(%s)\n", "", p.conditionDescription().c_str());
  }
  std::printf("\n  presets:\n");
  for (const auto& p : e.presets())
    std::printf("    %-20s %s\n%25s%s\n", p.name.c_str(), p.description.c_str(), "",
                p.overrides.dump().c_str());
  const auto studies = e.studies();
  if (!studies.empty()) {
    std::printf("\n  studies (fourierlab-cli sweep run %s --study NAME):\n", e.name().c_str());
    for (const auto& s : studies)
      std::printf("    %-20s %llu runs%s\n%25s%s\n", s.name.c_str(),
                  static_cast<unsigned long long>(study::countRuns(s)),
                  s.references ? ", with the paper's values" : "", "", s.title.c_str());
  }
  std::printf("\n");
}

}  // namespace

int listCommand(const ExperimentRegistry& registry, bool json) {
  if (json) {
    nlohmann::json all = nlohmann::json::array();
    for (const auto& e : registry.all()) all.push_back(experimentToJson(*e));
    std::printf("%s\n", all.dump(2).c_str());
  } else {
    for (const auto& e : registry.all()) printText(*e);
  }
  return kExitOk;
}

}  // namespace fl::cli
