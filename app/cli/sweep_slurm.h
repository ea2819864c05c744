// The `sweep` subcommands for Slurm clusters: run --slurm, resume --slurm, work (one array
// task), status and collect. The engine side is core/cluster/slurm_job.h, shard_task.h and
// shard_merge.h, which the GUI shares.
#pragma once

#include <string>

#include "app/cli/commands.h"
#include "core/engine/study_spec.h"
#include "core/study/study_expansion.h"

namespace fl::cli {

// `sweep run ... --slurm`: stores the study (or finds the one with this spec) and submits its
// unfinished runs; with --dry-run prints the batch script and stores and submits nothing.
// The tasks batch as --batch says (their cells dealt so that each group stays in one task).
int sweepRunOnSlurm(const ExperimentRegistry& registry, const std::string& dbPath,
                    const study::StudySpec& spec, const study::StudyExpansion& expansion,
                    const SweepArgs& args);
// `sweep resume ID --slurm`: collects what the tasks published, then resubmits only the runs
// that are missing, failed or stopped (these continue from their checkpoints).
int sweepResumeOnSlurm(const ExperimentRegistry& registry, const std::string& dbPath,
                       const SweepArgs& args);
// `sweep work WORK --task I`: one array task.
int sweepWork(const ExperimentRegistry& registry, const SweepArgs& args);
// `sweep status ID`, `sweep collect ID`.
int sweepSlurmCommand(const std::string& dbPath, const SweepArgs& args);

}  // namespace fl::cli
