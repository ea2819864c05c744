// Values as the exports write them: a text as one CSV field, a number as JSON. The run store's
// exports, `runs show --json`, and the study tables and exports all write runs' values, so they
// quote and encode them one way.
//
//   out << csvField(run.name) << ',' << step << '\n';
//   j["last"] = finiteOrNull(summary.last);
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/engine/verdict.h"

namespace fl {

// RFC 4180: a field holding a comma, a quote or a line break (\n or \r) is quoted, its quotes
// doubled; any other text is written as it is.
std::string csvField(const std::string& text);

// A value that is not finite is null: JSON has no NaN or infinity, and a null says "no value"
// to whoever checks is_null() before the object is written, where a NaN still claims a number.
nlohmann::json finiteOrNull(double value);

// A run's verdicts as the exports write them: one object each, {source, subject, label, passed
// (true, false or null: nothing to judge by), detail, and for the paper's value, paper_mean,
// paper_std (null without a spread), preset}. `runs list --json` had none, though its table
// says "finished:outside paper".
nlohmann::json verdictsJson(const std::vector<Verdict>& verdicts);

}  // namespace fl
