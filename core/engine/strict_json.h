// JSON read from a file a person wrote (a study file, a preset): a key given twice in one object
// is refused, naming it and where it is. nlohmann's parser keeps the last value silently, so
// `"set": {"epochs": 2, ..., "epochs": 500}` trained 500 epochs while the file seemed to say 2.
//
//   auto j = parseStrictJson<nlohmann::ordered_json>(text);  // throws std::invalid_argument
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace fl {

// `text` parsed; std::invalid_argument "not valid JSON: ..." where it is not JSON (a number
// beyond double's range included), or "KEY is given twice in PATH" where an object repeats a
// key (PATH like `arms[1].set`, or "the top level").
template <typename Json>
Json parseStrictJson(const std::string& text);

extern template nlohmann::json parseStrictJson<nlohmann::json>(const std::string&);
extern template nlohmann::ordered_json parseStrictJson<nlohmann::ordered_json>(const std::string&);

}  // namespace fl
