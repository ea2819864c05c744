#include "core/study/cell_launch.h"

#include "core/engine/config.h"
#include "core/engine/registry.h"
#include "core/engine/resume_refused.h"
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
    const bool resumable = claim.kind == CellClaim::Kind::Resume && claim.checkpoint;
    launch.refusedAs = resumable ? RunStatus::Interrupted : RunStatus::Failed;
    runs.finishRun(claim.runId, launch.refusedAs,
                   (resumable ? std::string(kNotResumed) : std::string()) +
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

namespace {

// A cell's config as it will train: validated, `device` applied (the stored one if invalid:
// such a cell trains alone and fails there, with its reason).
nlohmann::json trainingConfig(const StudyStore& studies, const Experiment& experiment,
                              int64_t studyId, int64_t cell, const std::string& device) {
  nlohmann::json stored = studies.cellConfig(studyId, cell);
  if (!device.empty()) stored["device"] = device;
  const ValidatedConfig validated = validateRunConfig(experiment, stored);
  return validated.ok() ? validated.values : stored;
}

}  // namespace

std::vector<std::vector<int64_t>> planCellGroups(const StudyStore& studies,
                                                 const Experiment& experiment, int64_t studyId,
                                                 const std::vector<int64_t>& cells, BatchMode mode,
                                                 int workers, const std::string& device) {
  if (mode.isOff()) return formRunGroups(cells, {}, experiment, mode, workers);
  auto configOf = [&](int64_t cell) {
    return trainingConfig(studies, experiment, studyId, cell, device);
  };
  return formRunGroups(cells, configOf, experiment, mode, workers);
}

std::string groupingObstacle(const StudyStore& studies, const Experiment& experiment,
                             int64_t studyId, const std::vector<int64_t>& cells,
                             const std::string& device) {
  if (cells.size() < 2) return {};
  // Unsplit (one worker), the groups are the compatible sets: any of two or more, and the runs
  // alone are alone only to keep cores busy.
  for (const auto& set : planCellGroups(studies, experiment, studyId, cells, BatchMode{0},
                                        /*workers=*/1, device))
    if (set.size() > 1) return {};
  try {
    return experiment.groupDifference(
        trainingConfig(studies, experiment, studyId, cells[0], device),
        trainingConfig(studies, experiment, studyId, cells[1], device));
  } catch (const std::exception& e) {
    return e.what();
  }
}

}  // namespace fl::study
