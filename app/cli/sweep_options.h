// Declares `fourierlab-cli sweep ...` and its options on the command-line parser.
#pragma once

#include <CLI/CLI.hpp>

#include "app/cli/commands.h"
#include "core/study/run_groups.h"

namespace fl::cli {

// Returns the `sweep` subcommand; after parsing, args.action names the chosen subcommand.
CLI::App* addSweepCommand(CLI::App& app, SweepArgs& args);

// The --batch given (checked by the parser), or auto where none was.
study::BatchMode askedBatchMode(const SweepArgs& args);

}  // namespace fl::cli
