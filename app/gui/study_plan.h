// What "Run study" would launch, from the Configure panel's state: a built-in study of the
// experiment (its axes, seeds and the paper's values) with the form's settings on top, or a
// study made in the form (its varied parameters as grid axes, a varied seed as the seeds).
// Expanded with the engine's expandStudy, so the count shown before launching is exactly the
// number of runs, and every mistake is said with the key and the value before anything is
// stored.
//
//   StudyPlan plan = planStudy({experiment, form.values(), form.axes(), "1,2,3", ""});
//   if (plan.ok()) label->setText(plan.summary);   // "40 runs: 10 settings x 4 seeds"
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/engine/experiment.h"
#include "core/engine/study_spec.h"
#include "core/study/metric_names.h"
#include "core/study/study_expansion.h"

namespace fl::store {
class RunStore;
}

namespace fl::gui {

struct StudyRequest {
  std::shared_ptr<const Experiment> experiment;
  nlohmann::json values = nlohmann::json::object();  // the form's values (device included)
  std::vector<study::Axis> axes;                     // the varied parameters (seed included)
  std::string builtin;                               // a built-in study's name, or ""
};

struct StudyPlan {
  study::StudySpec spec;
  int64_t runs = 0;
  int64_t settings = 0;
  int64_t seeds = 0;
  std::string summary;              // "40 runs: 10 settings x 4 seeds"
  std::vector<std::string> errors;  // nothing to launch when not empty
  // The study's metrics these settings' runs never record (study/metric_names.h): the form
  // may have turned off what a claim or the table reads (passkey_samples 0), which then
  // reads "not measured". Said before it runs; not a refusal.
  std::vector<study::UnrecordedMetric> unrecordedMetrics;
  std::string recordedMetrics;  // what they do record, where some are not (recordedMetricsText)
  bool ok() const { return errors.empty() && runs > 0; }
};

// A request with neither a built-in study nor a varied parameter plans no study (an error).
StudyPlan planStudy(const StudyRequest& request);

// The form's values that differ from the experiment's defaults: what a study sets on top of
// its own config ("set").
nlohmann::json differingFromDefaults(const Experiment& experiment, const nlohmann::json& values);

// Stores the planned study (the same spec stored before is that study: running it again
// resumes it); its id, or 0 and `error`.
int64_t storeStudy(store::RunStore& store, const Experiment& experiment,
                   const study::StudySpec& spec, std::string* error);

}  // namespace fl::gui
