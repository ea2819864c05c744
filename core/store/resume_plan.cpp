#include "core/store/resume_plan.h"

#include <filesystem>

#include "core/engine/system_metrics.h"
#include "core/optim/checkpoint_file.h"
#include "core/store/artifact_paths.h"

namespace fl::store {

namespace fs = std::filesystem;

ResumePlan prepareResume(const ExperimentRegistry& registry, RunStore& store, int64_t runId,
                         const std::string& device, const std::string& expectedExperiment) {
  ResumePlan plan;
  const std::string id = std::to_string(runId);
  auto run = store.run(runId);
  if (!run) {
    plan.error = "no run " + id + " in " + store.path();
    return plan;
  }
  // A failed run resumes too: from its last checkpoint after running out of memory or disk,
  // typically with another device or batch size.
  if (run->status != RunStatus::Interrupted && run->status != RunStatus::Cancelled &&
      run->status != RunStatus::Failed) {
    plan.error = "run " + id + " is " + toString(run->status) +
                 "; only interrupted, cancelled or failed runs resume";
    return plan;
  }
  if (!expectedExperiment.empty() && expectedExperiment != run->experiment) {
    plan.error =
        "run " + id + " is a '" + run->experiment + "' run, not '" + expectedExperiment + "'";
    return plan;
  }
  plan.experiment = registry.find(run->experiment);
  if (!plan.experiment) {
    plan.error = "run " + id + " is of experiment '" + run->experiment + "', unknown to this build";
    return plan;
  }
  plan.stepsBefore = run->lastStep;
  // A config a damaged page left unreadable reads as null, which validates as every default:
  // continued so, the run would train on with other settings than its own.
  if (!run->config.is_object()) {
    plan.error = "run " + id + "'s stored config is damaged (not a JSON object); it cannot be " +
                 "resumed with the settings it trained with";
    plan.storeProblem = true;
    return plan;
  }
  nlohmann::json values = run->config;
  if (!device.empty()) values["device"] = device;
  plan.config = validateRunConfig(*plan.experiment, values);
  if (!plan.config.ok()) {
    plan.error = "run " + id + "'s stored config no longer validates: " + plan.config.summary();
    return plan;
  }
  const CheckpointChoice choice = newestExistingCheckpoint(store, runId, /*checkContents=*/true);
  if (choice.recorded == 0) {
    // Killed before its first checkpoint: nothing to lose by training again from the start
    // (the same config and seed give the same run).
    store.truncateAfter(runId, 0);
    store.removeStrayFiles(runId);
    plan.runId = runId;
    plan.fromStart = true;
    plan.note = "run " + id +
                " has no checkpoint (it stopped before its first): training it again from step 0 "
                "with the same config and seed";
    return plan;
  }
  std::string unusable;
  if (!choice.missing.empty()) unusable = "missing: " + choice.missing;
  if (!choice.damaged.empty())
    unusable += (unusable.empty() ? "" : "; ") + std::string("damaged: ") + choice.damaged;
  if (!choice.chosen) {
    plan.error = "run " + id + " has no usable checkpoint (" + unusable + "); nothing was changed";
    // A store copied without the folder beside it that holds its runs' files.
    std::error_code ec;
    const fs::path files = store.path() + kFilesSuffix;
    if (!choice.missing.empty() && !fs::exists(files, ec))
      plan.error += ". This store has no folder of files beside it (" + files.string() +
                    "): a store copied or moved without it has no checkpoints; copy the "
                    "original's (its name ending in " +
                    kFilesSuffix + ") to that path, or resume the run in the original store";
    plan.storeProblem = true;
    return plan;
  }
  if (!unusable.empty())
    plan.note = "skipped checkpoint files (" + unusable + "); resuming from step " +
                std::to_string(choice.chosen->step);
  plan.runId = runId;
  plan.point = rewindTo(store, runId, *choice.chosen, plan.experiment->selectionMetric());
  store.removeStrayFiles(runId);
  return plan;
}

std::string describeResume(const ResumePlan& plan) {
  if (plan.fromStart)
    return "from step 0" + (plan.stepsBefore > 0 ? " (its " + std::to_string(plan.stepsBefore) +
                                                       " steps are trained again)"
                                                 : std::string());
  const int64_t from = plan.point.step;
  std::string again;
  if (plan.stepsBefore > from + 1)
    again = " (steps " + std::to_string(from + 1) + "-" + std::to_string(plan.stepsBefore) +
            " are trained again)";
  else if (plan.stepsBefore == from + 1)
    again = " (step " + std::to_string(plan.stepsBefore) + " is trained again)";
  return "from its checkpoint at step " + std::to_string(from) + again;
}

CheckpointChoice newestExistingCheckpoint(const RunStore& store, int64_t runId, bool checkContents,
                                          std::optional<int64_t> below) {
  // Newest first, the first whose file is really there: a file can be gone while its row stays
  // (deleted by hand, or a crash between the keep policy and the store). Nothing is dropped
  // before one is found, so a run that cannot resume stays exactly as it was.
  CheckpointChoice choice;
  const auto checkpoints = store.checkpoints(runId);
  choice.recorded = checkpoints.size();
  // A damaged file (its CRC says so) is passed over as a missing one is: chosen, it failed the
  // resume at its load, after the run's later metrics had been dropped, every time.
  for (auto it = checkpoints.rbegin(); it != checkpoints.rend() && !choice.chosen; ++it) {
    if (below && it->step >= *below) continue;
    std::error_code ec;
    if (!fs::is_regular_file(it->path, ec)) {
      choice.missing += (choice.missing.empty() ? "" : ", ") + it->path;
      continue;
    }
    try {
      if (checkContents) optim::verifyCheckpointFile(it->path);
      choice.chosen = *it;
    } catch (const std::exception& e) {
      choice.damaged += (choice.damaged.empty() ? "" : "; ") + std::string(e.what());
    }
  }
  return choice;
}

ResumePoint rewindTo(RunStore& store, int64_t runId, const Checkpoint& checkpoint,
                     const std::optional<SelectionMetric>& selection) {
  store.truncateAfter(runId, checkpoint.step);
  ResumePoint point{
      checkpoint.path, checkpoint.step, {}, store.wallSecondsAt(runId, checkpoint.step)};
  if (selection) {
    std::map<int64_t, double> scores;
    for (const auto& p : store.metric(runId, selection->key)) scores[p.step] = p.value;
    for (const auto& c : store.checkpoints(runId)) {
      if (c.step > checkpoint.step) continue;
      const auto score = scores.find(c.step);
      point.checkpointsBefore.push_back(
          {c.step, c.path,
           score == scores.end() ? std::nullopt : std::optional<double>(score->second)});
    }
  }
  bool evaluated = false;
  bool lossLogged = false;
  if (auto past = store.run(runId))  // its summaries now cover the steps up to the checkpoint
    for (const auto& m : past->metrics) {
      if (m.count > 0) point.lowestBefore[m.key] = m.min;
      if (m.count > 0 && m.key == "train/loss" && m.lastStep == checkpoint.step) lossLogged = true;
      // An evaluation's metric: neither the training loss nor a figure of the machine's.
      if (m.count > 0 && m.lastStep == checkpoint.step && m.key.rfind("train/", 0) != 0 &&
          !isSystemMetric(m.key))
        evaluated = true;
    }
  point.evaluatedAtStep = evaluated;
  point.lossLoggedAtStep = lossLogged;
  return point;
}

}  // namespace fl::store
