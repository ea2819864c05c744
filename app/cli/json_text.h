// The CLI's JSON output. JSON holds UTF-8 only, and nlohmann::json throws on other bytes: a
// store path or a name of other bytes (a Latin-1 folder) aborted the process after its work
// was done, with no output. Such bytes are written as U+FFFD instead.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace fl::cli {

// Either kind of nlohmann JSON: an ordered_json (a study's spec) keeps its order.
template <class Json>
std::string jsonText(const Json& value, int indent = -1) {
  return value.dump(indent, ' ', false, Json::error_handler_t::replace);
}

}  // namespace fl::cli
