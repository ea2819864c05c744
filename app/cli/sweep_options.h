// Declares `fourierlab-cli sweep ...` and its options on the command-line parser.
#pragma once

#include <CLI/CLI.hpp>

#include "app/cli/commands.h"

namespace fl::cli {

// Returns the `sweep` subcommand; after parsing, args.action names the chosen subcommand.
CLI::App* addSweepCommand(CLI::App& app, SweepArgs& args);

}  // namespace fl::cli
