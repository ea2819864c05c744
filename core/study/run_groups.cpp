#include "core/study/run_groups.h"

#include <algorithm>
#include <map>

#include "core/engine/device.h"

namespace fl::study {

std::string BatchMode::describe() const {
  if (isAuto()) return "auto";
  if (isOff()) return "off";
  return "at most " + std::to_string(maxGroupSize) + " runs per group";
}

std::string BatchMode::argument() const {
  if (isAuto()) return "auto";
  if (isOff()) return "off";
  return std::to_string(maxGroupSize);
}

std::optional<BatchMode> parseBatchMode(const std::string& text, std::string* error) {
  if (text == "auto") return BatchMode{0};
  if (text == "off") return BatchMode{1};
  const bool digits =
      !text.empty() && text.size() <= 6 &&
      std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
  if (digits && std::stoi(text) >= 1) return BatchMode{std::stoi(text)};
  if (error)
    *error =
        "--batch must be auto, off or a number of runs per group (1 to 999999), not '" + text + "'";
  return std::nullopt;
}

BatchMode studyBatchMode(const std::string& recorded, const BatchMode& asked,
                         bool askedExplicitly) {
  if (askedExplicitly || recorded.empty()) return asked;
  // A mode this build cannot read (written by a newer one) is not a reason to refuse: asked.
  return parseBatchMode(recorded).value_or(asked);
}

namespace {

// `cells` dealt into `parts` groups of near-equal size, in order.
std::vector<std::vector<int64_t>> split(const std::vector<int64_t>& cells, size_t parts) {
  std::vector<std::vector<int64_t>> out;
  size_t begin = 0;
  for (size_t p = 0; p < parts; ++p) {
    const size_t end = begin + (cells.size() - begin) / (parts - p);
    out.emplace_back(cells.begin() + static_cast<std::ptrdiff_t>(begin),
                     cells.begin() + static_cast<std::ptrdiff_t>(end));
    begin = end;
  }
  return out;
}

bool compatible(const Experiment& experiment, const nlohmann::json& a, const nlohmann::json& b) {
  try {
    return experiment.groupDifference(a, b).empty();
  } catch (const std::exception&) {
    return false;  // a config the rule cannot read trains alone (and fails there, with its reason)
  }
}

}  // namespace

std::vector<std::vector<int64_t>> formRunGroups(
    const std::vector<int64_t>& cells, const std::function<nlohmann::json(int64_t)>& configOf,
    const Experiment& experiment, BatchMode mode, int workers) {
  std::vector<std::vector<int64_t>> groups;
  if (mode.isOff()) {
    for (int64_t cell : cells) groups.push_back({cell});
    return groups;
  }
  // Compatible sets: each cell joins the first set whose first config agrees with its own, found
  // by the experiment's group key where it has one.
  std::vector<std::vector<int64_t>> sets;
  std::vector<nlohmann::json> firstConfigs;
  std::map<std::string, size_t> setOfKey;
  for (int64_t cell : cells) {
    const nlohmann::json config = configOf(cell);
    std::optional<std::string> key;
    try {
      key = experiment.groupKey(config);
    } catch (const std::exception&) {
      // Unreadable for the rule: weighed one by one below, where it trains alone.
    }
    size_t s = 0;
    if (key) {
      const auto found = setOfKey.find(*key);
      s = found == setOfKey.end() ? sets.size() : found->second;
      if (found == setOfKey.end()) setOfKey.emplace(*key, s);
    } else {
      while (s < sets.size() && !compatible(experiment, firstConfigs[s], config)) ++s;
    }
    if (s == sets.size()) {
      sets.emplace_back();
      firstConfigs.push_back(config);
    }
    sets[s].push_back(cell);
  }
  // On an accelerator a group's step costs about one member's (a launch of a few dozen kernels;
  // bench_fourier_head: 225 us for 24 members, 363 us for 240 on an H200), and groups share the
  // device rather than each having a core: there auto neither caps groups nor splits them.
  bool anyOnAccelerator = false;
  for (size_t s = 0; s < sets.size(); ++s) {
    const bool accelerated = mode.isAuto() && onAccelerator(firstConfigs[s].value("device", "cpu"));
    anyOnAccelerator = anyOnAccelerator || accelerated;
    const size_t limit = accelerated     ? sets[s].size()
                         : mode.isAuto() ? BatchMode::kAutoGroupSize
                                         : mode.maxGroupSize;
    for (auto& group : split(sets[s], (sets[s].size() + limit - 1) / limit))
      groups.push_back(group);
  }
  // Auto on the CPU: no worker idles while a group could be halved (the largest first).
  while (mode.isAuto() && !anyOnAccelerator && !groups.empty() &&
         static_cast<int>(groups.size()) < workers) {
    auto largest = std::max_element(groups.begin(), groups.end(),
                                    [](auto& a, auto& b) { return a.size() < b.size(); });
    if (largest->size() < 2) break;
    auto halves = split(*largest, 2);
    *largest = std::move(halves[0]);
    groups.push_back(std::move(halves[1]));
  }
  std::sort(groups.begin(), groups.end(), [](auto& a, auto& b) { return a.front() < b.front(); });
  return groups;
}

}  // namespace fl::study
