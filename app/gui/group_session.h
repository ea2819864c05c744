// Group sessions: the runs of one batched group (#12, core/engine/group_runner.h) training for
// the window, one TrainingSession per member. The members share one GroupRunner thread and one
// worker of the thread budget; each keeps its own StoreSink, its own events for its RunView,
// and is cancelled and probed alone. The group lives while any member's session does.
//
//   auto sessions = startGroupSessions(experiment, store.path(), {{id1, config1, {}}, ...}, 1);
//   sessions[i]->takeEvents();  // member i's events, on the window's tick
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "app/gui/training_session.h"
#include "core/engine/experiment.h"
#include "core/engine/run_reporter.h"

namespace fl::gui {

struct GroupMemberLaunch {
  int64_t runId = 0;
  nlohmann::json config;  // validated
  std::optional<ResumePoint> resume;
};

// Starts the group at once; the sessions come in the order of `members`. Checkpoints go to the
// store's folder of each run, as a single run's.
std::vector<std::unique_ptr<TrainingSession>> startGroupSessions(
    std::shared_ptr<const Experiment> experiment, const std::string& storePath,
    std::vector<GroupMemberLaunch> members, int threads);

}  // namespace fl::gui
