#include "core/study/study_expansion.h"

#include <algorithm>
#include <functional>
#include <map>
#include <set>

#include "core/engine/config.h"
#include "core/engine/registry.h"
#include "core/engine/system_metrics.h"
#include "core/store/config_hash.h"
#include "core/store/run_store.h"
#include "core/study/axis_values.h"
#include "core/study/study_aggregate.h"
#include "core/study/study_claims.h"
#include "core/study/study_figure.h"
#include "core/study/study_run_name.h"
#include "core/text/utf8.h"

namespace fl::study {

namespace {

// One setting: axis values in declaration order.
using Setting = std::vector<std::pair<std::string, nlohmann::json>>;

std::string knownKeys(const std::vector<ParamSpec>& specs) {
  std::string out;
  for (const auto& s : specs)
    if (s.name != "seed" && !store::isPlacementKey(s.name))
      out += (out.empty() ? "" : ", ") + s.name;
  return out;
}

// Checks the axes of one scope (the study's own plus one arm's); returns false on an error.
// `zipped`: the axes of its zips, whose values may repeat (their settings may not).
void checkAxes(const Experiment& experiment, const std::vector<ParamSpec>& specs,
               const nlohmann::json& presetOverrides, const std::string& presetName,
               const nlohmann::json& overrides, const std::vector<const Axis*>& axes,
               const std::set<const Axis*>& zipped, std::vector<std::string>& errors) {
  std::set<std::string> seen;
  for (const Axis* axis : axes) {
    const std::string& key = axis->key;
    const std::string where = "axis '" + key + "'";
    if (!seen.insert(key).second) {
      errors.push_back(where + " is given twice (once per study: a grid or a zip, not both)");
      continue;
    }
    if (key == "seed") {
      errors.push_back(where + ": seeds are not an axis; use --seeds (\"seeds\" in a study file)");
      continue;
    }
    const ParamSpec* spec = findParam(specs, key);
    if (!spec) {
      errors.push_back(where + ": unknown parameter of '" + experiment.name() +
                       "' (known: " + knownKeys(specs) + ")");
      continue;
    }
    if (store::isPlacementKey(key)) {
      errors.push_back(where + ": '" + key +
                       "' says where or how often a run saves, not what "
                       "it learns; set it with --set");
      continue;
    }
    if (axis->values.empty()) errors.push_back(where + " has no values");
    std::set<std::string> values;
    for (const auto& value : axis->values) {
      if (auto problem = checkValue(*spec, value))
        errors.push_back(where + " value " + value.dump() + ": " + *problem);
      // Silently one setting trained once otherwise (10,000 copies collapsed to 1).
      if (!zipped.count(axis) && !values.insert(value.dump()).second) {
        errors.push_back(where + " value " + value.dump() +
                         " is given twice (each setting is trained once; list it once)");
        break;
      }
    }
    if (presetOverrides.contains(key))
      errors.push_back(where + " contradicts preset '" + presetName + "', which sets " + key +
                       " = " + presetOverrides.at(key).dump() + "; drop the preset or the axis");
    if (overrides.contains(key))
      // Fixed by a study file's "set" (or an arm's) as often as by --set: "--set" alone had
      // sent a reader of a file to an option they never typed.
      errors.push_back(where + " contradicts the fixed setting " + key + "=" +
                       overrides.at(key).dump() +
                       " (set by --set or a study file's \"set\"; a key is either fixed or an "
                       "axis)");
  }
}

// All settings of grid x zips, last grid axis fastest, zips after the grid.
std::vector<Setting> settingsOf(const std::vector<const Axis*>& grid,
                                const std::vector<const ZipGroup*>& zips) {
  std::vector<Setting> out{{}};
  for (const Axis* axis : grid) {
    std::vector<Setting> next;
    for (const auto& s : out)
      for (const auto& v : axis->values) {
        Setting t = s;
        t.emplace_back(axis->key, v);
        next.push_back(std::move(t));
      }
    out = std::move(next);
  }
  for (const ZipGroup* zip : zips) {
    std::vector<Setting> next;
    const size_t length = zip->axes.empty() ? 0 : zip->axes.front().values.size();
    for (const auto& s : out)
      for (size_t i = 0; i < length; ++i) {
        Setting t = s;
        for (const auto& axis : zip->axes) t.emplace_back(axis.key, axis.values[i]);
        next.push_back(std::move(t));
      }
    out = std::move(next);
  }
  return out;
}

}  // namespace

std::vector<std::string> figureAxesOf(const StudySpec& spec) {
  std::vector<std::string> axes = axisOrderOf(spec);
  if (!spec.arms.empty()) axes.insert(axes.begin(), kArmAxis);
  return axes;
}

std::vector<std::string> axisOrderOf(const StudySpec& spec) {
  std::vector<std::string> order;
  auto add = [&](const std::string& key) {
    if (std::find(order.begin(), order.end(), key) == order.end()) order.push_back(key);
  };
  for (const auto& a : spec.grid) add(a.key);
  for (const auto& z : spec.zips)
    for (const auto& a : z.axes) add(a.key);
  for (const auto& arm : spec.arms) {
    for (const auto& a : arm.grid) add(a.key);
    for (const auto& z : arm.zips)
      for (const auto& a : z.axes) add(a.key);
  }
  return order;
}

namespace {

// Each claim side's and reference row's `where`, with its place in the file and whether it is a
// claim's (a claim side reads runs as claimSideValues does; a reference row, their configs).
void forEachWhere(
    const StudySpec& spec,
    const std::function<void(const nlohmann::json&, const std::string&, bool claim)>& visit) {
  for (size_t i = 0; i < spec.claims.size(); ++i) {
    visit(spec.claims[i].a, "claims[" + std::to_string(i) + "].a", true);
    visit(spec.claims[i].b, "claims[" + std::to_string(i) + "].b", true);
  }
  if (spec.references)
    for (size_t i = 0; i < spec.references->rows.size(); ++i)
      visit(spec.references->rows[i].where, "references.rows[" + std::to_string(i) + "].where",
            false);
}

}  // namespace

std::optional<std::vector<std::string>> metricsRecordedBy(const Experiment& experiment,
                                                          const StudyExpansion& expansion) {
  // The Runner's own: the mean training loss, and the machine's series, as their panels list
  // them (system_metrics.h).
  std::vector<std::string> names{"train/loss"};
  for (const auto& panel : systemPanels(/*gpu=*/true))
    names.insert(names.end(), panel.series.begin(), panel.series.end());
  std::set<std::string> seen(names.begin(), names.end());
  std::set<std::string> settingsAsked;
  for (const auto& cell : expansion.cells) {
    // A setting's seeds record the same metrics: asked once per arm and axis values.
    if (!settingsAsked.insert(cell.arm + "\n" + cell.axes.dump()).second) continue;
    const auto declared = experiment.recordedMetrics(cell.config);
    if (!declared) return std::nullopt;
    for (const auto& name : *declared)
      if (seen.insert(name).second) names.push_back(name);
  }
  return names;
}

std::vector<std::string> unmatchedWheres(const StudySpec& spec, const StudyExpansion& expansion,
                                         const std::vector<ParamSpec>& params) {
  std::vector<std::string> unmatched;
  auto check = [&](const nlohmann::json& where, const std::string& at, bool claim) {
    for (const auto& cell : expansion.cells)
      if (matches(where, claim ? claimSideValues(cell.config, cell.arm, params) : cell.config))
        return;
    std::string said;
    for (const auto& [key, value] : where.items())
      said += (said.empty() ? "" : ", ") + key + " " + value.dump();
    unmatched.push_back(at + " (" + said + ")");
  };
  forEachWhere(spec, check);
  return unmatched;
}

std::vector<std::string> layoutProblems(const StudySpec& spec) {
  auto join = [](const std::vector<std::string>& parts) {
    std::string out;
    for (const auto& p : parts) out += (out.empty() ? "" : ", ") + p;
    return out;
  };
  const auto axes = axisOrderOf(spec);
  // The arm is an axis of a study with arms, said with the others.
  const auto named = figureAxesOf(spec);
  const std::string known = named.empty() ? std::string("none") : join(named);
  std::vector<std::string> problems;
  auto isAxis = [&](const std::string& name) {
    return std::find(axes.begin(), axes.end(), name) != axes.end() ||
           (name == kArmAxis && !spec.arms.empty());
  };
  auto checkAxis = [&](const std::string& where, const std::string& name) {
    if (!name.empty() && !isAxis(name))
      problems.push_back(where + ": '" + name + "' is not an axis of the study (axes: " + known +
                         ")");
  };
  // Two parts of one layout on one axis: the table or figure could never be drawn, and `sweep
  // table` then blamed options never given ("--rows and --cols are both 'dataset'").
  auto checkApart = [&](const std::string& at, const std::string& first, const std::string& a,
                        const std::string& second, const std::string& b) {
    if (!a.empty() && a == b)
      problems.push_back(at + "." + first + " and " + at + "." + second + " are both '" + a +
                         "': give them different axes");
  };
  if (spec.table) {
    checkAxis("table.rows", spec.table->rows);
    checkAxis("table.cols", spec.table->cols);
    checkApart("table", "rows", spec.table->rows, "cols", spec.table->cols);
  }
  // Every value an axis takes anywhere in the study (the grid, its zips, every arm's).
  std::map<std::string, std::vector<nlohmann::json>> values;
  auto collect = [&](const std::vector<Axis>& grid) {
    for (const auto& a : grid)
      values[a.key].insert(values[a.key].end(), a.values.begin(), a.values.end());
  };
  collect(spec.grid);
  for (const auto& z : spec.zips) collect(z.axes);
  for (const auto& arm : spec.arms) {
    collect(arm.grid);
    for (const auto& z : arm.zips) collect(z.axes);
  }
  for (const auto& arm : spec.arms) values[kArmAxis].push_back(arm.name);
  // A `where` value no setting takes matches no run: a reference row never used, a figure of
  // nothing.
  auto checkValues = [&](const std::string& at, const nlohmann::json& where) {
    for (const auto& [key, value] : where.items()) {
      const auto taken = values.find(key);
      if (taken == values.end()) continue;  // a fixed setting, or one the preset makes
      if (std::find(taken->second.begin(), taken->second.end(), value) != taken->second.end())
        continue;
      std::vector<std::string> shown;
      for (const auto& v : taken->second)
        shown.push_back(v.is_string() ? v.get<std::string>() : v.dump());
      problems.push_back(at + ": " + key + " " + value.dump() +
                         " is not among the study's values (" + join(shown) + ")");
    }
  };
  std::set<std::string> figureNames;
  for (size_t i = 0; i < spec.figures.size(); ++i) {
    const auto& f = spec.figures[i];
    const std::string at = "figures[" + std::to_string(i) + "]";
    // `sweep plot --figure` takes a name or a number: a name that is a number, or one given
    // twice, drew another figure than asked.
    if (!f.name.empty() && f.name.find_first_not_of("0123456789") == std::string::npos)
      problems.push_back(at + ".name: '" + f.name +
                         "' is a number, which `sweep plot --figure` reads as a figure's place; "
                         "give it a name with a letter");
    if (!f.name.empty() && !figureNames.insert(f.name).second)
      problems.push_back(at + ".name: '" + f.name + "' names an earlier figure too");
    if (f.x != kMetricSuffixX) checkAxis(at + ".x", f.x);
    for (const auto& metric : f.metrics)
      if (f.x == kMetricSuffixX && metric.find('@') == std::string::npos)
        problems.push_back(at + ".metrics: '" + metric +
                           "' has no number after an '@' to be drawn against (x '@')");
    checkAxis(at + ".group", f.group);
    checkAxis(at + ".panel", f.panel);
    checkApart(at, "x", f.x, "group", f.group);
    checkApart(at, "x", f.x, "panel", f.panel);
    checkApart(at, "group", f.group, "panel", f.panel);
    // A figure draws along axes only: a `where` on anything else was passed over.
    for (const auto& item : f.where.items())
      if (!isAxis(item.key()))
        problems.push_back(at + ".where: '" + item.key() +
                           "' is not an axis of the study (axes: " + known + ")");
    checkValues(at + ".where", f.where);
  }
  if (!spec.references) return problems;
  for (size_t i = 0; i < spec.references->rows.size(); ++i)
    checkValues("references.rows[" + std::to_string(i) + "].where", spec.references->rows[i].where);
  return problems;
}

namespace {

// The settings a claim's sides and a reference row's `where` name must be the experiment's, with
// values they can take: a misspelt "hed" (or "seed", or "arm") matched no setting, and the claim
// read "not measured" or the row was never used, without a word of why.
void refuseUnknownSettingKeys(const std::string& experimentName,
                              const std::vector<ParamSpec>& specs, const StudySpec& spec,
                              std::vector<std::string>& errors) {
  auto check = [&](const nlohmann::json& setting, const std::string& at, bool claim) {
    for (const auto& item : setting.items()) {
      // A claim side may name an arm of the study (a reference row's `where` reads settings).
      if (item.key() == kArmAxis && claim && !spec.arms.empty()) {
        std::string arms;
        bool known = false;
        for (const auto& arm : spec.arms) {
          arms += (arms.empty() ? "" : ", ") + arm.name;
          known = known || item.value() == arm.name;
        }
        if (!known)
          errors.push_back(at + ".arm: " + item.value().dump() +
                           " is not an arm of the study (arms: " + arms + ")");
        continue;
      }
      const ParamSpec* param = findParam(specs, item.key());
      if (item.key() == kArmAxis && claim)
        errors.push_back(at + ".arm: the study has no arms to name (\"arms\" declares them)");
      else if (item.key() == "seed" || !param)
        errors.push_back(at + ": '" + item.key() + "' is not a setting of '" + experimentName +
                         "' (known: " + knownKeys(specs) + ")");
      // A value no run can take ("4" for the number 4, "GMM2") matched none, read "not
      // measured" and was printed as if it were that number; refused as an arm's value is.
      else if (const auto problem = checkValue(*param, item.value()))
        errors.push_back(at + "." + item.key() + ": " + *problem);
    }
  };
  forEachWhere(spec, check);
}

// Two reference rows that both give a metric for one setting: the first listed was taken, so a
// verdict turned on the rows' order ("1.000 DIFFERS" one way, "1.200 agrees" the other).
void refuseOverlappingReferences(const StudyReferences& references, StudyExpansion& out) {
  std::set<std::pair<size_t, size_t>> said;
  for (const auto& cell : out.cells)
    for (size_t a = 0; a < references.rows.size(); ++a)
      for (size_t b = a + 1; b < references.rows.size(); ++b) {
        const auto& first = references.rows[a];
        const auto& second = references.rows[b];
        if (!matches(first.where, cell.config) || !matches(second.where, cell.config)) continue;
        for (const auto& [metric, value] : first.values)
          if (second.values.count(metric) && said.insert({a, b}).second)
            out.errors.push_back("references.rows[" + std::to_string(a) + "] and rows[" +
                                 std::to_string(b) + "] both give " + metric + " for the setting " +
                                 settingLabel(cell.arm, cell.axes) +
                                 "; make their \"where\" tell the settings apart");
      }
}

// The preset's overrides, or nullopt (and an error naming the known presets) when it is unknown.
std::optional<nlohmann::json> presetOverridesOf(const Experiment& experiment, const StudySpec& spec,
                                                std::vector<std::string>& errors) {
  if (spec.preset.empty()) return nlohmann::json::object();
  const auto preset = experiment.findPreset(spec.preset);
  if (preset) return preset->overrides;
  std::string known;
  for (const auto& p : experiment.presets()) known += (known.empty() ? "" : ", ") + p.name;
  errors.push_back("unknown preset '" + spec.preset + "' for experiment '" + experiment.name() +
                   "' (known: " + known + ")");
  return std::nullopt;
}

// Whether the study has at least one run and no more than the limit.
bool checkRunCount(const StudySpec& spec, std::vector<std::string>& errors) {
  const uint64_t runs = countRuns(spec);
  if (runs > kMaxStudyRuns) {
    errors.push_back("the study expands to " +
                     (runs == UINT64_MAX ? std::string("more than 18446744073709551615")
                                         : std::to_string(runs)) +
                     " runs, over the limit of " + std::to_string(kMaxStudyRuns) +
                     "; narrow an axis or use fewer seeds");
    return false;
  }
  if (runs == 0) {
    errors.push_back("the study has no runs");
    return false;
  }
  return true;
}

// The study's fixed settings with the arm's on top; an arm may not change what the study fixes.
nlohmann::json fixedSettingsOf(const StudySpec& spec, const StudyArm& arm,
                               std::vector<std::string>& errors) {
  nlohmann::json fixed = spec.overrides;
  for (const auto& [key, value] : arm.overrides.items()) {
    if (spec.overrides.contains(key) && spec.overrides.at(key) != value)
      errors.push_back("arm '" + arm.name + "' sets " + key + " = " + value.dump() +
                       ", which the study fixes at " + spec.overrides.at(key).dump());
    fixed[key] = value;
  }
  return fixed;
}

// "at lr=0.001, head=\"fourier\": " before a cell's config problems ("" without axes).
std::string settingPrefix(const Setting& setting) {
  std::string at;
  for (const auto& [key, value] : setting)
    at += (at.empty() ? "" : ", ") + key + "=" + value.dump();
  return at.empty() ? "" : "at " + at + ": ";
}

// What one arm adds to the expansion: a cell per setting of its grid and zips and per seed,
// each validated as a single run is; a run already expanded is dropped: the same config (two
// arms set it alike), or one that differs only in values the run does not use (a grid of
// head=linear,fourier x frequencies=4,8 trained the linear head twice).
class ArmExpansion {
 public:
  ArmExpansion(const Experiment& experiment, const std::vector<ParamSpec>& params,
               const StudySpec& spec, StudyExpansion& out, std::set<std::string>& hashes)
      : m_experiment(experiment), m_params(params), m_spec(spec), m_out(out), m_hashes(hashes) {}

  // False when there are too many errors to go on.
  bool expand(const StudyArm& arm, const nlohmann::json& presetOverrides) {
    const nlohmann::json fixed = fixedSettingsOf(m_spec, arm, m_out.errors);
    // Each cell's seed is one of the study's: a seed set beside them was shown in the study's
    // settings and trained by none of its runs.
    if (!m_spec.seeds.empty() && fixed.contains("seed")) {
      m_out.errors.push_back("seed " + fixed["seed"].dump() +
                             " is set beside the study's seeds, which decide every run's seed: "
                             "give it as a seed (--seeds " +
                             fixed["seed"].dump() + ", \"seeds\" in a study file) instead");
      return true;
    }
    std::vector<const Axis*> grid, axes;
    std::vector<const ZipGroup*> zips;
    for (const auto& a : m_spec.grid) grid.push_back(&a);
    for (const auto& a : arm.grid) grid.push_back(&a);
    for (const auto& z : m_spec.zips) zips.push_back(&z);
    for (const auto& z : arm.zips) zips.push_back(&z);
    axes = grid;
    std::set<const Axis*> zipped;
    for (const ZipGroup* z : zips) {
      for (const auto& a : z->axes) axes.push_back(&a), zipped.insert(&a);
      if (const auto repeated = repeatedZipSetting(*z)) m_out.errors.push_back("zip: " + *repeated);
    }
    checkAxes(m_experiment, m_params, presetOverrides, m_spec.preset, fixed, axes, zipped,
              m_out.errors);
    if (!m_out.errors.empty()) return true;
    for (const auto& setting : settingsOf(grid, zips)) {
      nlohmann::json overrides = presetOverrides;
      for (const auto& [key, value] : fixed.items()) overrides[key] = value;
      for (const auto& [key, value] : setting) overrides[key] = value;
      const std::vector<int64_t> seeds =
          m_spec.seeds.empty() ? std::vector<int64_t>{-1} : m_spec.seeds;  // -1: the config's own
      for (int64_t seed : seeds)
        if (!addCell(arm, setting, overrides, seed)) return false;  // enough to see the pattern
    }
    return true;
  }

 private:
  // False once there are too many errors to go on.
  bool addCell(const StudyArm& arm, const Setting& setting, nlohmann::json overrides,
               int64_t seed) {
    if (seed >= 0) overrides["seed"] = seed;
    // The check a single run gets (clashing keys, the corpus): a study refuses a bad cell
    // before any of its runs exist.
    ValidatedConfig config = validateRunConfig(m_experiment, overrides);
    if (!config.ok()) {
      for (const auto& issue : config.issues)
        m_out.errors.push_back(settingPrefix(setting) + issue.message);
      return m_out.errors.size() <= 20;
    }
    StudyCell cell;
    cell.arm = arm.name;
    cell.axes = nlohmann::json::object();
    // Axis values as the validated config holds them (0 given for a float reads 0.0). A value
    // the run does not use is none of its axes: a linear head in a grid over frequencies is
    // drawn and tabled as a baseline, not as the linear head "at N = 4".
    for (const auto& [key, value] : setting) {
      const ParamSpec* param = findParam(m_params, key);
      if (!param || isUsed(*param, config.values)) cell.axes[key] = config.values.at(key);
    }
    cell.seed = config.values.at("seed").get<int64_t>();
    cell.config = config.values;
    // Cells that differ only in values their runs do not use are one run.
    cell.hash = store::identityHash(m_experiment.name(), m_params, config.values);
    if (!m_hashes.insert(cell.hash).second) {
      ++m_out.duplicatesDropped;
      return true;
    }
    cell.index = static_cast<int64_t>(m_out.cells.size());
    m_out.cells.push_back(std::move(cell));
    return true;
  }

  const Experiment& m_experiment;
  const std::vector<ParamSpec>& m_params;
  const StudySpec& m_spec;
  StudyExpansion& m_out;
  std::set<std::string>& m_hashes;
};

}  // namespace

StudyExpansion expandStudy(const Experiment& experiment, const StudySpec& spec) {
  StudyExpansion out;
  out.axisOrder = axisOrderOf(spec);
  // The study's and its arms' names name its runs ("table1 · gmm2 seed=1"): one the store
  // refuses for a run (not UTF-8, a control character) was refused for each run once the study
  // was stored, every resume failing the same way.
  if (auto problem = store::textProblem(spec.name, "study's name")) out.errors.push_back(*problem);
  // A name of spaces alone listed as a blank, as `--name '  '` is refused.
  if (!spec.name.empty() && fl::text::isBlank(spec.name))
    out.errors.push_back("the study's name '" + spec.name + "' is blank: give it a name");
  for (const auto& arm : spec.arms)
    if (auto problem = store::textProblem(arm.name, "arm's name"))
      out.errors.push_back("arm: " + *problem);
  const auto presetOverrides = presetOverridesOf(experiment, spec, out.errors);
  if (!presetOverrides || !checkRunCount(spec, out.errors)) return out;
  const auto specs = experiment.allParams();
  const ParamSpec* seedSpec = findParam(specs, "seed");
  for (int64_t seed : spec.seeds)
    if (auto problem = checkValue(*seedSpec, seed)) out.errors.push_back("--seeds: " + *problem);

  // The arms; a study without arms is one arm without a name.
  std::vector<StudyArm> arms = spec.arms;
  if (arms.empty()) arms.push_back(StudyArm{});
  std::set<std::string> hashes;
  ArmExpansion expansion(experiment, specs, spec, out, hashes);
  for (const auto& arm : arms)
    if (!expansion.expand(arm, *presetOverrides)) break;
  refuseUnknownSettingKeys(experiment.name(), specs, spec, out.errors);
  if (out.errors.empty() && spec.references) refuseOverlappingReferences(*spec.references, out);
  if (!out.errors.empty()) out.cells.clear();
  return out;
}

}  // namespace fl::study
