#include "core/store/resume_plan.h"

namespace fl::store {

ResumePlan prepareResume(const ExperimentRegistry& registry, RunStore& store, int64_t runId,
                         const std::string& device, const std::string& expectedExperiment) {
  ResumePlan plan;
  const std::string id = std::to_string(runId);
  auto run = store.run(runId);
  if (!run) {
    plan.error = "no run " + id + " in " + store.path();
    return plan;
  }
  if (run->status != RunStatus::Interrupted && run->status != RunStatus::Cancelled) {
    plan.error = "run " + id + " is " + toString(run->status) +
                 "; only interrupted or cancelled runs resume";
    return plan;
  }
  if (!expectedExperiment.empty() && expectedExperiment != run->experiment) {
    plan.error = "run " + id + " is a '" + run->experiment + "' run, not '" + expectedExperiment + "'";
    return plan;
  }
  plan.experiment = registry.find(run->experiment);
  if (!plan.experiment) {
    plan.error = "run " + id + " is of experiment '" + run->experiment + "', unknown to this build";
    return plan;
  }
  nlohmann::json values = run->config;
  if (!device.empty()) values["device"] = device;
  plan.config = validateConfig(plan.experiment->allParams(), values);
  if (!plan.config.ok()) {
    plan.error = "run " + id + "'s stored config no longer validates: " + plan.config.summary();
    return plan;
  }
  const auto checkpoints = store.checkpoints(runId);
  if (checkpoints.empty()) {
    plan.error = "run " + id + " has no checkpoint to resume from";
    return plan;
  }
  const auto& last = checkpoints.back();
  store.truncateAfter(runId, last.step);
  plan.runId = runId;
  plan.point = ResumePoint{last.path, last.step};
  return plan;
}

}  // namespace fl::store
