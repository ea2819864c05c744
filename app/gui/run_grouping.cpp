#include "app/gui/run_grouping.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "core/engine/config_diff.h"

namespace fl::gui {

namespace {

constexpr const char* kKeyPrefix = "key:";

// A value as one text for all its spellings: numbers as doubles, so 12 and 12.0 (one setting,
// as differingConfigKeys compares them) fall in one group.
nlohmann::json canonical(const nlohmann::json& value) {
  if (value.is_number()) return value.get<double>();
  if (value.is_structured()) {
    nlohmann::json out = value;
    for (auto& item : out) item = canonical(item);
    return out;
  }
  return value;
}

// The config without its seed: runs that differ only by seed are one setting.
nlohmann::json settingOf(const nlohmann::json* config) {
  if (!config || !config->is_object()) return nlohmann::json::object();
  nlohmann::json setting = *config;
  setting.erase("seed");
  return setting;
}

std::string settingLabel(const nlohmann::json* config, const std::vector<std::string>& keys) {
  std::string label;
  for (const auto& key : keys) {
    if (key == "seed") continue;
    const nlohmann::json value = configValue(config ? *config : nlohmann::json(), key);
    // A value the group does not use is not what sets it apart ("frequencies=(not used)
    // head=linear" was cut to "frequenc… head=linear" in a legend), nor one its experiment
    // lacks (another experiment's parameter had read "corpus=unset d_model=unset ...").
    if (isUnusedValue(value) || value.is_null()) continue;
    if (!label.empty()) label += " ";
    label += key + "=" + configValueText(value);
  }
  return label;
}

// A group's label names its experiment where the shown runs span several (a setting of FoPE and
// one of FourierQK both read "lr=0.001"), and where nothing else names it: seeds of one setting
// alone had read "all runs", which said neither what they are nor that they are one setting.
std::string withExperiment(const std::string& label, const std::string& experiment,
                           bool severalExperiments) {
  if (label.empty()) return experiment.empty() ? "one setting" : experiment;
  if (!severalExperiments || experiment.empty()) return label;
  return experiment + " " + label;
}

}  // namespace

std::string GroupBy::name() const {
  switch (kind) {
    case Kind::None:
      return "none";
    case Kind::Study:
      return "study";
    case Kind::Setting:
      return "setting";
    case Kind::Key:
      return kKeyPrefix + key;
  }
  return "none";
}

GroupBy GroupBy::parse(const std::string& name) {
  if (name == "study") return {Kind::Study, {}};
  if (name == "setting") return {Kind::Setting, {}};
  if (name.starts_with(kKeyPrefix) && name.size() > std::string(kKeyPrefix).size())
    return {Kind::Key, name.substr(std::string(kKeyPrefix).size())};
  return {};
}

std::string GroupBy::label() const {
  switch (kind) {
    case Kind::None:
      return "No grouping";
    case Kind::Study:
      return "Study";
    case Kind::Setting:
      return "Setting (seeds)";
    case Kind::Key:
      return key;
  }
  return "No grouping";
}

std::string configValueText(const nlohmann::json& value) {
  if (value.is_string()) return value.get<std::string>();
  if (value.is_null()) return "unset";
  return settingText(value);
}

std::vector<RunGroup> groupRuns(const std::vector<GroupedRun>& runs, const GroupBy& by) {
  std::vector<const nlohmann::json*> configs;
  std::vector<std::string> experiments;
  const nlohmann::json none;
  for (const auto& run : runs) {
    configs.push_back(run.config ? run.config : &none);
    experiments.push_back(run.experiment);
  }
  // Within each experiment's runs: across experiments, each parameter one lacks had differed.
  const std::vector<std::string> differing =
      differingKeysWithinExperiments(experiments, configs, {});
  const bool severalExperiments = std::any_of(runs.begin(), runs.end(), [&](const GroupedRun& run) {
    return run.experiment != runs.front().experiment;
  });
  std::vector<RunGroup> groups;
  std::map<std::string, size_t> groupOfIdentity;
  for (const auto& run : runs) {
    std::string identity, label;
    switch (by.kind) {
      case GroupBy::Kind::None:
        identity = "run " + std::to_string(run.id);
        break;
      case GroupBy::Kind::Study:
        if (run.study) {
          identity = "study " + std::to_string(run.study->first);
          label = identity + (run.study->second.empty() ? "" : " " + run.study->second);
        } else {
          identity = "run " + std::to_string(run.id);
          label = "#" + std::to_string(run.id) + " (in no study)";
        }
        break;
      case GroupBy::Kind::Setting:
        identity = run.experiment + " " + canonical(settingOf(run.config)).dump();
        label =
            withExperiment(settingLabel(run.config, differing), run.experiment, severalExperiments);
        break;
      case GroupBy::Kind::Key: {
        const nlohmann::json value =
            configValue(run.config ? *run.config : nlohmann::json(), by.key);
        if (value.is_null() || isUnusedValue(value)) {
          // A run without the key (another experiment's, a linear head's frequencies) is in no
          // group of it: "head" chosen for FourierQK's arms averaged all three into one curve.
          identity = "run " + std::to_string(run.id);
          label = "#" + std::to_string(run.id) + " (no " + by.key + ")";
        } else {
          identity = run.experiment + " " + canonical(value).dump();
          label = withExperiment(by.key + "=" + configValueText(value), run.experiment,
                                 severalExperiments);
        }
        break;
      }
    }
    auto [it, fresh] = groupOfIdentity.emplace(identity, groups.size());
    if (fresh) groups.push_back({label, {}});
    groups[it->second].members.push_back(run.id);
  }
  return groups;
}

MeanBand meanBand(const std::vector<CurveRef>& curves) {
  // Each member's finite points, and every x any member has one at.
  std::vector<std::vector<std::pair<double, double>>> points;
  std::set<double> xs;
  for (const auto& [x, y] : curves) {
    auto& member = points.emplace_back();
    if (!x || !y) continue;
    for (size_t i = 0; i < std::min(x->size(), y->size()); ++i)
      if (std::isfinite((*x)[i]) && std::isfinite((*y)[i])) {
        member.push_back({(*x)[i], (*y)[i]});
        xs.insert((*x)[i]);
      }
  }
  MeanBand band;
  for (const auto& member : points) band.members += !member.empty();
  std::vector<double> values;
  for (double x : xs) {
    values.clear();
    for (const auto& member : points) {
      if (member.empty() || x < member.front().first || x > member.back().first) continue;
      const auto after =
          std::lower_bound(member.begin(), member.end(), x,
                           [](const auto& point, double at) { return point.first < at; });
      if (after->first == x) {
        values.push_back(after->second);
        continue;
      }
      const auto& [x0, y0] = *(after - 1);
      values.push_back(y0 + (after->second - y0) * (x - x0) / (after->first - x0));
    }
    double sum = 0;
    for (double v : values) sum += v;
    const double mean = sum / static_cast<double>(values.size());
    double squares = 0;
    for (double v : values) squares += (v - mean) * (v - mean);
    const double sd =
        values.size() > 1 ? std::sqrt(squares / static_cast<double>(values.size() - 1)) : 0.0;
    band.x.push_back(x);
    band.mean.push_back(mean);
    band.low.push_back(mean - sd);
    band.high.push_back(mean + sd);
    band.lowest.push_back(*std::min_element(values.begin(), values.end()));
    band.count.push_back(static_cast<int>(values.size()));
  }
  return band;
}

MeanBand commonSpan(MeanBand band) {
  MeanBand kept;
  kept.members = band.members;
  for (size_t i = 0; i < band.x.size(); ++i)
    if (band.count[i] == band.members) {
      kept.x.push_back(band.x[i]);
      kept.mean.push_back(band.mean[i]);
      kept.low.push_back(band.low[i]);
      kept.high.push_back(band.high[i]);
      kept.lowest.push_back(band.lowest[i]);
      kept.count.push_back(band.members);
    }
  return kept.x.empty() ? band : kept;
}

}  // namespace fl::gui
