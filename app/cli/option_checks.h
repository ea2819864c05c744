// Checks on what the user types that CLI11 does not make by itself. An empty value would
// otherwise read as "not given" (`--seeds ""` trained seed 42, `--study ''` the default run),
// and an id past int64 was clamped to its maximum instead of refused. Each refusal names the
// value and what is allowed; CLI11 turns it into exit code 2.
#pragma once

#include <string>

#include <CLI/CLI.hpp>

namespace fl::cli {

// Refuses an empty or blank value: "is empty; give <allowed>".
CLI::Validator nonEmpty(const std::string& allowed);

// A run or study id: a whole number from 1 to 2^63 - 1, written as one.
CLI::Validator storeId();

}  // namespace fl::cli
