#include "core/engine/strict_json.h"

#include <set>
#include <stdexcept>
#include <vector>

namespace fl {

namespace {

// One open object or array while the parser walks the text: the keys an object has had, the
// key whose value is being read, or the index of an array's next element.
struct OpenContainer {
  bool isArray = false;
  std::set<std::string> keys;
  std::string key;
  size_t index = 0;
};

std::string pathOf(const std::vector<OpenContainer>& open) {
  std::string path;
  // The innermost container is the one holding the repeated key: the path leads to it.
  for (size_t i = 0; i + 1 < open.size(); ++i) {
    if (open[i].isArray)
      path += "[" + std::to_string(open[i].index) + "]";
    else
      path += (path.empty() ? "" : ".") + open[i].key;
  }
  return path.empty() ? "the top level" : path;
}

// An element of the innermost array is complete: the next one has the next index.
void elementDone(std::vector<OpenContainer>& open) {
  if (!open.empty() && open.back().isArray) ++open.back().index;
}

}  // namespace

template <typename Json>
Json parseStrictJson(const std::string& text) {
  std::vector<OpenContainer> open;
  auto callback = [&open](int, nlohmann::json::parse_event_t event, Json& parsed) {
    using Event = nlohmann::json::parse_event_t;
    switch (event) {
      case Event::object_start:
      case Event::array_start:
        open.push_back({event == Event::array_start, {}, {}, 0});
        break;
      case Event::key: {
        const std::string key = parsed.template get<std::string>();
        if (!open.back().keys.insert(key).second)
          throw std::invalid_argument("\"" + key + "\" is given twice in " + pathOf(open) +
                                      " (only the last would count; give it once)");
        open.back().key = key;
        break;
      }
      case Event::object_end:
      case Event::array_end:
        open.pop_back();
        elementDone(open);
        break;
      case Event::value:
        elementDone(open);
        break;
    }
    return true;
  };
  try {
    return Json::parse(text, callback);
  } catch (const nlohmann::json::exception& e) {
    // Not only parse_error: a number beyond double's range (1e705) is an out_of_range.
    throw std::invalid_argument(std::string("not valid JSON: ") + e.what());
  }
}

template nlohmann::json parseStrictJson<nlohmann::json>(const std::string&);
template nlohmann::ordered_json parseStrictJson<nlohmann::ordered_json>(const std::string&);

}  // namespace fl
