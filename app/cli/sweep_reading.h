// The `sweep` subcommands that read or edit stored studies: list, show, table, plot, export,
// delete.
#pragma once

#include <cstdio>

#include "app/cli/commands.h"
#include "core/store/run_store.h"

namespace fl::cli {

int sweepReadingCommand(const ExperimentRegistry& registry, const std::string& dbPath,
                        const SweepArgs& args);

// `sweep table`: the aggregate as the study's table (md, csv or json) on `out`. Throws
// std::invalid_argument for a bad --rows, --cols, --metric or --format.
void printStudyTable(const ExperimentRegistry& registry, store::RunStore& runs, int64_t studyId,
                     const SweepArgs& args, std::FILE* out);

}  // namespace fl::cli
