// A mistyped command word said as one: CLI11 answers `runs lst` with "A subcommand is
// required", which names neither the typo nor what the command has.
#pragma once

#include <string>

#include <CLI/CLI.hpp>

namespace fl::cli {

// After a failed parse: "'lst' is not a command of `fourierlab-cli runs` (did you mean
// list?); it has: list, show, ..." for the deepest command given whose subcommand is a word it
// does not have; "" where the failure was another.
std::string unknownSubcommand(const CLI::App& app);

}  // namespace fl::cli
