#include "core/study/paper_departure.h"

#include <algorithm>
#include <optional>

#include "core/engine/reference_check.h"
#include "core/study/study_expansion.h"

namespace fl::study {

namespace {

// Values are compared as the settings they are: 0 and 0.0 are one value.
bool sameValue(const nlohmann::json& a, const nlohmann::json& b) {
  return a.is_number() && b.is_number() ? a.get<double>() == b.get<double>() : a == b;
}

// The declared study's cell that a run of `arm` with `config` reproduces: the same arm, and the
// value of each of that cell's axes in `config`. Matched on the config, not on our axes: a
// study with an axis of its own (lr over three values) still has each run matched, its lr
// then named among the departures (it said only "settings it does not have", and the
// shortened training went unsaid); an axis fixed with --set matches as the value it is.
const StudyCell* sameSetting(const std::vector<StudyCell>& cells, const std::string& arm,
                             const nlohmann::json& config) {
  for (const auto& cell : cells) {
    if (cell.arm != arm || !cell.axes.is_object() || !config.is_object()) continue;
    bool same = true;
    for (const auto& [key, value] : cell.axes.items())
      same = same && config.contains(key) && sameValue(config.at(key), value);
    if (same) return &cell;
  }
  return nullptr;
}

void addOnce(std::vector<std::string>& list, const std::vector<std::string>& items) {
  for (const auto& item : items)
    if (std::find(list.begin(), list.end(), item) == list.end()) list.push_back(item);
}

std::string join(const std::vector<std::string>& items, const char* separator) {
  std::string out;
  for (const auto& item : items) out += (out.empty() ? "" : separator) + item;
  return out;
}

std::string seedList(const std::vector<int64_t>& seeds) {
  std::vector<std::string> texts;
  for (auto seed : seeds) texts.push_back(std::to_string(seed));
  return join(texts, ", ");
}

}  // namespace

std::optional<DeclaredStudy> declaredStudyOf(const Experiment& experiment, const StudySpec& spec) {
  // A spec without references or claims writes no such key: read them with .value().
  const auto json = spec.toJson();
  const nlohmann::ordered_json none;
  for (const auto& builtin : experiment.studies()) {
    const auto declared = builtin.toJson();
    if (spec.references && builtin.references &&
        declared.value("references", none) == json.value("references", none))
      return DeclaredStudy{builtin, "the paper"};
    if (!spec.references && !builtin.references && !spec.claims.empty() &&
        declared.value("claims", none) == json.value("claims", none))
      return DeclaredStudy{builtin, "the study"};
  }
  // A built-in study with neither figures nor claims (addition's `embeddings`) is known by its
  // name and title, which a study made from it keeps: shortened, it said "3000 steps" above
  // runs of 400, and nothing said otherwise.
  for (const auto& builtin : experiment.studies())
    if (!spec.references && !builtin.references && spec.claims.empty() && builtin.claims.empty() &&
        spec.name == builtin.name && spec.title == builtin.title)
      return DeclaredStudy{builtin, "the study"};
  return std::nullopt;
}

void markDepartures(const Experiment& experiment, const StudySpec& spec,
                    std::vector<AggregateCell>& cells) {
  const auto declared = declaredStudyOf(experiment, spec);
  if (!declared) return;
  const auto expansion = expandStudy(experiment, declared->spec);
  const auto params = experiment.allParams();
  for (auto& cell : cells) {
    const StudyCell* same = sameSetting(expansion.cells, cell.arm, cell.config);
    cell.departures =
        same ? departuresFromPaper(params, same->config, "", cell.config, declared->whose())
             : std::vector<std::string>{"a setting " + declared->owner + " does not have"};
  }
}

std::string departureNote(const Experiment& experiment, const StudySpec& spec) {
  const auto declared = declaredStudyOf(experiment, spec);
  if (!declared) return "";
  const auto ours = expandStudy(experiment, spec);
  const auto theirs = expandStudy(experiment, declared->spec);
  if (!ours.ok() || !theirs.ok()) return "";
  const auto params = experiment.allParams();
  std::vector<std::string> training, evaluation;
  bool unknownSetting = false;
  for (const auto& cell : ours.cells) {
    const StudyCell* same = sameSetting(theirs.cells, cell.arm, cell.config);
    if (!same) {
      unknownSetting = true;
      continue;
    }
    addOnce(training,
            departuresFromPaper(params, same->config, "", cell.config, declared->whose()));
    addOnce(evaluation,
            evaluationDifferences(params, same->config, cell.config, declared->whose()));
  }
  std::vector<std::string> parts;
  if (!training.empty()) parts.push_back(join(training, ", "));
  if (unknownSetting) parts.push_back("settings it does not have");
  if (!evaluation.empty()) parts.push_back("evaluation: " + join(evaluation, ", "));
  auto sorted = [](std::vector<int64_t> seeds) {
    std::sort(seeds.begin(), seeds.end());
    return seeds;
  };
  if (sorted(spec.seeds) != sorted(declared->spec.seeds))  // the same seeds in another order
    parts.push_back("seeds " + seedList(spec.seeds) + " (" + declared->whose() + " " +
                    seedList(declared->spec.seeds) + ")");
  if (ours.cells.size() != theirs.cells.size())
    parts.push_back(std::to_string(ours.cells.size()) + " runs (" + declared->whose() + " " +
                    std::to_string(theirs.cells.size()) + ")");
  if (parts.empty()) return "";
  return "Departs from " + declared->whose() + " settings: " + join(parts, "; ") + ".";
}

}  // namespace fl::study
