#include "app/gui/study_plan.h"

#include <set>

#include "core/engine/config.h"
#include "core/study/metric_names.h"
#include "core/study/study_store.h"

namespace fl::gui {

namespace {

bool sameValue(const nlohmann::json& a, const nlohmann::json& b) {
  if (a.is_number() && b.is_number()) return a.get<double>() == b.get<double>();
  return a == b;
}

// Every key a spec varies or that its arms set: the form must not set those on top.
std::set<std::string> keysTheStudyOwns(const study::StudySpec& spec) {
  std::set<std::string> keys;
  auto addAxes = [&](const std::vector<study::Axis>& grid,
                     const std::vector<study::ZipGroup>& zips) {
    for (const auto& a : grid) keys.insert(a.key);
    for (const auto& z : zips)
      for (const auto& a : z.axes) keys.insert(a.key);
  };
  addAxes(spec.grid, spec.zips);
  for (const auto& arm : spec.arms) {
    addAxes(arm.grid, arm.zips);
    for (const auto& [k, v] : arm.overrides.items()) keys.insert(k);
  }
  if (!spec.seeds.empty()) keys.insert("seed");
  return keys;
}

}  // namespace

nlohmann::json differingFromDefaults(const Experiment& experiment, const nlohmann::json& values) {
  nlohmann::json out = nlohmann::json::object();
  const auto defaults = validateConfig(experiment.allParams(), nlohmann::json::object()).values;
  for (const auto& [key, value] : values.items())
    if (!defaults.contains(key) || !sameValue(defaults[key], value)) out[key] = value;
  return out;
}

StudyPlan planStudy(const StudyRequest& request) {
  StudyPlan plan;
  if (!request.experiment) {
    plan.errors.push_back("no experiment selected");
    return plan;
  }
  const Experiment& experiment = *request.experiment;
  auto& spec = plan.spec;
  std::vector<study::Axis> axes;
  std::vector<int64_t> seeds;
  for (const auto& axis : request.axes) {
    if (axis.key != "seed") {
      axes.push_back(axis);
      continue;
    }
    for (const auto& v : axis.values) seeds.push_back(v.get<int64_t>());
  }
  if (!request.builtin.empty()) {
    auto builtin = experiment.findStudy(request.builtin);
    if (!builtin) {
      plan.errors.push_back("'" + request.builtin + "' is not a study of " + experiment.name());
      return plan;
    }
    spec = *builtin;
    if (!seeds.empty()) spec.seeds = seeds;
    for (auto& axis : axes) {
      // A varied parameter the study has as an axis takes the form's values instead.
      bool replaced = false;
      for (auto& own : spec.grid)
        if (own.key == axis.key) {
          own.values = axis.values;
          replaced = true;
        }
      if (!replaced) spec.grid.push_back(axis);
    }
  } else {
    if (axes.empty() && seeds.empty()) {
      plan.errors.push_back(
          "nothing varies: give a parameter several values (its ⋯ button), the seeds, or pick a "
          "built-in study");
      return plan;
    }
    spec.experiment = experiment.name();
    spec.grid = axes;
    spec.seeds = seeds;
    std::string varied;
    for (const auto& a : axes) varied += (varied.empty() ? "" : " x ") + a.key;
    // "frequencies sweep", not "frequencies": a study of the form is not the built-in study of
    // that name, which History listed beside it under the same name.
    spec.name = (varied.empty() ? std::string("seeds") : varied) + " sweep";
  }
  // The form's settings on top (as `sweep run --set`), except what the study varies or its
  // arms set; a setting the form leaves at its default keeps the study's own.
  const auto owned = keysTheStudyOwns(spec);
  // Held by name: a range-for over items() of a temporary reads it after it is destroyed.
  const nlohmann::json changed = differingFromDefaults(experiment, request.values);
  for (const auto& [key, value] : changed.items())
    if (!owned.count(key)) spec.overrides[key] = value;

  const auto expansion = study::expandStudy(experiment, spec);
  plan.errors = expansion.errors;
  if (expansion.ok())
    if (const auto recorded = study::metricsRecordedBy(experiment, expansion)) {
      plan.unrecordedMetrics = study::unrecordedMetrics(spec, *recorded);
      if (!plan.unrecordedMetrics.empty())
        plan.recordedMetrics = study::recordedMetricsText(*recorded);
    }
  plan.runs = static_cast<int64_t>(expansion.cells.size());
  plan.seeds = spec.seeds.empty() ? 1 : static_cast<int64_t>(spec.seeds.size());
  plan.settings = plan.seeds > 0 ? plan.runs / plan.seeds : plan.runs;
  if (plan.errors.empty())
    plan.summary = std::to_string(plan.runs) + (plan.runs == 1 ? " run: " : " runs: ") +
                   std::to_string(plan.settings) + (plan.settings == 1 ? " setting" : " settings") +
                   " x " + std::to_string(plan.seeds) + (plan.seeds == 1 ? " seed" : " seeds");
  return plan;
}

int64_t storeStudy(store::RunStore& store, const Experiment& experiment,
                   const study::StudySpec& spec, std::string* error) {
  try {
    study::StudyStore studies(store);
    if (const auto same = studies.findSameSpec(spec)) return *same;
    return studies.create(spec, study::expandStudy(experiment, spec));
  } catch (const std::exception& e) {
    if (error) *error = std::string("cannot store the study: ") + e.what();
    return 0;
  }
}

}  // namespace fl::gui
