#include "core/engine/run_name.h"

#include <algorithm>
#include <vector>

#include "core/engine/config_diff.h"

namespace fl {

namespace {

constexpr const char* kEdited = ", edited: ";

}  // namespace

std::string editsOf(const std::string& name) {
  const size_t at = name.find(kEdited);
  return at == std::string::npos ? std::string() : name.substr(at);
}

std::string withoutEdits(const std::string& name) { return name.substr(0, name.find(kEdited)); }

std::vector<std::string> editList(const std::string& name) {
  const size_t at = name.find(kEdited);
  if (at == std::string::npos) return {};
  std::vector<std::string> edits;
  std::string rest = name.substr(at + std::string(kEdited).size());
  // The last of more than three ends in " and N more": a setting and the count, apart.
  std::string more;
  if (const size_t andAt = rest.rfind(" and ");
      andAt != std::string::npos && rest.size() > 5 && rest.ends_with(" more")) {
    more = rest.substr(andAt + 1);
    rest = rest.substr(0, andAt);
  }
  for (size_t from = 0;;) {
    const size_t comma = rest.find(", ", from);
    edits.push_back(rest.substr(from, comma - from));
    if (comma == std::string::npos) break;
    from = comma + 2;
  }
  if (!more.empty()) edits.push_back(more);
  return edits;
}

std::string compactName(const std::string& name, const std::set<std::string>& dropped) {
  std::string compact = withoutEdits(name);
  bool first = true;
  for (const auto& edit : editList(name)) {
    if (dropped.count(edit)) continue;
    const bool more = edit.rfind("and ", 0) == 0;
    compact += first ? " · " + (more ? edit.substr(4) : edit) : (more ? " " : ", ") + edit;
    first = false;
  }
  return compact;
}

std::string settingsName(const std::string& preset, const nlohmann::json& startValues,
                         const nlohmann::json& values) {
  std::string name = preset.empty() ? "defaults" : preset;
  std::vector<std::string> keys = differingConfigKeys({&startValues, &values});
  keys.erase(std::remove(keys.begin(), keys.end(), "device"), keys.end());
  if (keys.empty()) return name;
  constexpr size_t kNamed = 3;  // the Runs table's name column stays readable
  name += kEdited;
  for (size_t i = 0; i < std::min(keys.size(), kNamed); ++i) {
    const nlohmann::json value = configValue(values, keys[i]);
    name += (i ? ", " : "") + keys[i] + " " +
            (value.is_string() ? value.get<std::string>() : value.dump());
  }
  if (keys.size() > kNamed) name += " and " + std::to_string(keys.size() - kNamed) + " more";
  return name;
}

}  // namespace fl
