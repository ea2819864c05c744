#include "core/engine/run_name.h"

#include <algorithm>
#include <map>
#include <vector>

#include "core/engine/config_diff.h"

namespace fl {

namespace {

constexpr const char* kEdited = ", edited: ";

// One edit as a name writes it: the key and the config's value ("head linear", "lr 0.003").
std::string editText(const nlohmann::json& config, const std::string& key) {
  const nlohmann::json value = configValue(config, key);
  return key + " " + (value.is_string() ? value.get<std::string>() : value.dump());
}

}  // namespace

std::string withoutEdits(const std::string& name) { return name.substr(0, name.find(kEdited)); }

std::vector<std::string> editList(const std::string& name, const nlohmann::json& config) {
  const size_t at = name.find(kEdited);
  if (at == std::string::npos) return {};
  std::string rest = name.substr(at + std::string(kEdited).size());
  // The last of more than three ends in " and N more": a setting and the count, apart.
  std::string more;
  if (const size_t andAt = rest.rfind(" and ");
      andAt != std::string::npos && rest.size() > 5 && rest.ends_with(" more")) {
    more = rest.substr(andAt + 1);
    rest = rest.substr(0, andAt);
  }
  // Each edit is a key and its value as settingsName wrote it (editText): matched against the
  // config's values, a value holding ", " stays whole, even one that reads like a next edit.
  const auto endsAnEdit = [&](size_t at) {
    return at == rest.size() || rest.compare(at, 2, ", ") == 0;
  };
  std::vector<std::string> edits;
  size_t start = 0;
  while (start < rest.size()) {
    size_t length = 0;
    if (config.is_object())
      for (const auto& item : config.items())
        if (const std::string edit = editText(config, item.key());
            edit.size() > length && rest.compare(start, edit.size(), edit) == 0 &&
            endsAnEdit(start + edit.size()))
          length = edit.size();
    if (length == 0) {
      // Not as the config reads (a name typed by hand): up to the next ", ".
      const size_t comma = rest.find(", ", start);
      length = (comma == std::string::npos ? rest.size() : comma) - start;
    }
    edits.push_back(rest.substr(start, length));
    start += length + 2;
  }
  if (!more.empty()) edits.push_back(more);
  return edits;
}

std::string compactName(const std::string& name, const nlohmann::json& config,
                        const std::map<std::string, int>& holders, int runs, bool nameTellsApart,
                        const std::vector<std::string>& apart) {
  const auto heldBy = [&](const std::string& edit) {
    auto it = holders.find(edit);
    return it == holders.end() ? 0 : it->second;
  };
  const std::vector<std::string> edits = editList(name, config);
  const auto names = [&](const std::string& key) {
    return std::any_of(edits.begin(), edits.end(),
                       [&](const std::string& e) { return e.rfind(key + " ", 0) == 0; });
  };
  std::vector<std::string> kept;
  std::string more;
  for (const auto& edit : edits) {
    if (heldBy(edit) >= runs) continue;  // every run has it: it tells none apart
    if (edit.rfind("and ", 0) != 0) {
      kept.push_back(edit);
      continue;
    }
    more = edit.substr(4);  // "2 more"
    // What may hide there and tells the runs apart, named instead.
    for (const auto& key : apart) {
      if (key == "device" || configValue(config, key).is_null() || names(key)) continue;
      kept.push_back(editText(config, key));
      more.clear();
    }
  }
  std::stable_sort(kept.begin(), kept.end(), [&](const std::string& a, const std::string& b) {
    return heldBy(a) > heldBy(b);
  });
  if (kept.empty() && !more.empty() && !nameTellsApart) kept.push_back(more);
  std::string compact = withoutEdits(name);
  for (size_t i = 0; i < kept.size(); ++i) compact += (i == 0 ? " · " : ", ") + kept[i];
  return compact;
}

void nameWhatNamesakesName(std::vector<LegendRun>& runs) {
  std::vector<std::string> legends;  // as compactName left them: a run's additions are its own
  for (const auto& run : runs) legends.push_back(run.legend);
  constexpr const char* kSeparator = " · ";
  for (auto& run : runs) {
    if (run.name.find(kEdited) != std::string::npos || !run.config) continue;
    std::vector<std::string> keys;
    std::map<std::string, int> namedBy;  // how many namesakes' legends name each key
    for (size_t i = 0; i < runs.size(); ++i) {
      if (&runs[i] == &run || withoutEdits(runs[i].name) != run.name || !runs[i].config) continue;
      const size_t at = legends[i].find(kSeparator);
      if (at == std::string::npos) continue;
      // The legend's settings read as a name's edits are (a value holding ", " stays whole).
      const std::string named =
          run.name + kEdited + legends[i].substr(at + std::string(kSeparator).size());
      for (const auto& edit : editList(named, *runs[i].config)) {
        const std::string key = edit.substr(0, edit.find(' '));
        ++namedBy[key];
        if (key != "device" &&
            std::find(run.apart.begin(), run.apart.end(), key) != run.apart.end() &&
            std::find(keys.begin(), keys.end(), key) == keys.end() &&
            !configValue(*run.config, key).is_null())
          keys.push_back(key);
      }
    }
    // What tells it from the most namesakes last: a legend cut to its width keeps its end.
    std::stable_sort(keys.begin(), keys.end(), [&](const std::string& a, const std::string& b) {
      return namedBy[a] < namedBy[b];
    });
    for (const auto& key : keys)
      run.legend += (run.legend.find(kSeparator) == std::string::npos ? kSeparator : ", ") +
                    editText(*run.config, key);
  }
}

namespace {

std::string nameWithEdits(const std::string& preset, std::vector<std::string> keys,
                          const nlohmann::json& values) {
  std::string name = preset.empty() ? "defaults" : preset;
  keys.erase(std::remove(keys.begin(), keys.end(), "device"), keys.end());
  if (keys.empty()) return name;
  constexpr size_t kNamed = 3;  // the Runs table's name column stays readable
  name += kEdited;
  for (size_t i = 0; i < std::min(keys.size(), kNamed); ++i)
    name += (i ? ", " : "") + editText(values, keys[i]);
  if (keys.size() > kNamed) name += " and " + std::to_string(keys.size() - kNamed) + " more";
  return name;
}

}  // namespace

std::string settingsName(const std::string& preset, const nlohmann::json& startValues,
                         const nlohmann::json& values) {
  return nameWithEdits(preset, differingConfigKeys({&startValues, &values}), values);
}

std::string settingsName(const std::string& preset, const nlohmann::json& startValues,
                         const nlohmann::json& values, const std::vector<ParamSpec>& specs) {
  // The run's unused values read kUnusedValue, which matches any value: they differ in nothing.
  const nlohmann::json compared = comparedValues(specs, values);
  return nameWithEdits(
      preset, inDeclarationOrder(differingConfigKeys({&startValues, &compared}), {specs}), values);
}

std::string nameRunIds(const std::vector<int64_t>& ids) {
  constexpr size_t kNamed = 3;
  if (ids.size() == 1) return "run " + std::to_string(ids.front());
  std::string text = "runs ";
  const size_t named = ids.size() <= kNamed + 1 ? ids.size() : kNamed;
  for (size_t i = 0; i < named; ++i) {
    if (i > 0) text += i + 1 == named && named == ids.size() ? " and " : ", ";
    text += std::to_string(ids[i]);
  }
  if (named < ids.size()) text += " and " + std::to_string(ids.size() - named) + " more";
  return text;
}

}  // namespace fl
