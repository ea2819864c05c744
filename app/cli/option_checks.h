// Checks on what the user types that CLI11 does not make by itself. An empty value would
// otherwise read as "not given" (`--seeds ""` trained seed 42, `--study ''` the default run),
// and an id past int64 was clamped to its maximum instead of refused. Each refusal names the
// value and what is allowed; CLI11 turns it into exit code 2.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include <CLI/CLI.hpp>

namespace fl::cli {

// Refuses an empty or blank value: "is empty; give <allowed>".
CLI::Validator nonEmpty(const std::string& allowed);

// The run store's option, --db: a file, or left out for the default store. Given empty, it had
// read as left out: `runs delete 3 --yes --db "$SCRATCH"` with the variable unset deleted run 3
// of the researcher's own store.
void addStoreOption(CLI::App* command, std::string& db);

// An option written "--db=" with nothing after the '=': CLI11 took the next word as its value
// (`--db= --json` made a store named "--json"). The message refusing it, or nullopt.
std::optional<std::string> emptyAfterEquals(int argc, const char* const* argv);

// A count (threads, parallel runs, a size): a whole number from `lowest` to `highest`, written
// in decimal digits. CLI11's Range said "Value abc not in range 0 to 1024" of a word.
CLI::Validator wholeNumberIn(int64_t lowest, int64_t highest);

// A run or study id: a whole number from 1 to 2^63 - 1, written as one.
CLI::Validator storeId();

}  // namespace fl::cli
