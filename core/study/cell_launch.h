// What a claimed cell of a study trains: its stored config (validated again, the device
// optionally replaced) and how it starts: fresh, resumed from its newest checkpoint (the store
// rewound to it) or restarted from step 0 (the store emptied). Shared by StudyScheduler and the
// GUI's run queue, so a cell is treated the same way whoever trains it.
//
//   CellClaim claim = studies.claim(studyId, cell);
//   if (claim.kind is Fresh / Resume / Restart) {
//     CellLaunch launch = prepareCellLaunch(runs, studies, experiment, studyId, cell, claim, "");
//     if (launch.ok()) start a Runner with launch.config and launch.resume;
//   }
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "core/engine/experiment.h"
#include "core/engine/runner.h"
#include "core/study/run_groups.h"
#include "core/study/study_store.h"

namespace fl::study {

struct CellLaunch {
  nlohmann::json config;  // validated and complete
  std::optional<ResumePoint> resume;
  std::string how;  // "new", "resumed from step 31250", "restarted (was failed)"
  // Its stored config no longer validates (its corpus moved away, say): the run is recorded
  // `refusedAs`, interrupted where it had a checkpoint to resume from (it stays resumable as
  // it was: it had been failed, though nothing of it was wrong), failed otherwise.
  std::string error;
  RunStatus refusedAs = RunStatus::Failed;
  bool ok() const { return error.empty(); }
};

// `device`, when not empty, replaces the cell's configured device. Writes to the store: the
// rewind of a resumed run, the truncation of a restarted one, the failure of an invalid one.
CellLaunch prepareCellLaunch(store::RunStore& runs, const StudyStore& studies,
                             const Experiment& experiment, int64_t studyId, int64_t cell,
                             const CellClaim& claim, const std::string& device);

// The groups `cells` train in (formRunGroups over their validated configs, `device` applied as
// prepareCellLaunch applies it); one cell a group when `mode` is off.
std::vector<std::vector<int64_t>> planCellGroups(const StudyStore& studies,
                                                 const Experiment& experiment, int64_t studyId,
                                                 const std::vector<int64_t>& cells, BatchMode mode,
                                                 int workers, const std::string& device);

// Why no two of `cells` can train in one group, as planCellGroups judges them: the
// experiment's groupDifference of the first two (`device` applied), e.g. a device its batched
// trainer does not run on. Empty when some can group, or with fewer than two cells.
std::string groupingObstacle(const StudyStore& studies, const Experiment& experiment,
                             int64_t studyId, const std::vector<int64_t>& cells,
                             const std::string& device);

}  // namespace fl::study
