#include "core/study/cell_launch.h"

#include "core/engine/config.h"
#include "core/engine/registry.h"
#include "core/store/resume_plan.h"

namespace fl::study {

CellLaunch prepareCellLaunch(store::RunStore& runs, const StudyStore& studies,
                             const Experiment& experiment, int64_t studyId, int64_t cell,
                             const CellClaim& claim, const std::string& device) {
  CellLaunch launch;
  nlohmann::json config = studies.cellConfig(studyId, cell);
  if (!device.empty()) config["device"] = device;
  const ValidatedConfig validated = validateRunConfig(experiment, config);
  if (!validated.ok()) {
    launch.error = validated.summary();
    runs.finishRun(claim.runId, RunStatus::Failed,
                   "its stored config no longer validates: " + launch.error);
    return launch;
  }
  launch.config = validated.values;
  if (claim.kind == CellClaim::Kind::Resume && claim.checkpoint) {
    launch.resume =
        store::rewindTo(runs, claim.runId, *claim.checkpoint, experiment.selectionMetric());
    launch.how = "resumed from step " + std::to_string(claim.checkpoint->step);
  } else if (claim.kind == CellClaim::Kind::Restart) {
    runs.truncateAfter(claim.runId, 0);
    launch.how = "restarted (was " +
                 (claim.previousStatus ? toString(*claim.previousStatus) : std::string()) + ")";
  } else {
    launch.how = "new";
  }
  return launch;
}

std::vector<std::vector<int64_t>> planCellGroups(const StudyStore& studies,
                                                 const Experiment& experiment, int64_t studyId,
                                                 const std::vector<int64_t>& cells, BatchMode mode,
                                                 int workers, const std::string& device) {
  if (mode.isOff()) return formRunGroups(cells, {}, experiment, mode, workers);
  auto configOf = [&](int64_t cell) {
    nlohmann::json stored = studies.cellConfig(studyId, cell);
    if (!device.empty()) stored["device"] = device;
    const ValidatedConfig validated = validateRunConfig(experiment, stored);
    return validated.ok() ? validated.values : stored;
  };
  return formRunGroups(cells, configOf, experiment, mode, workers);
}

}  // namespace fl::study
