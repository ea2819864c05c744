#include "core/study/study_claims.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <tuple>

#include "core/engine/config_diff.h"
#include "core/store/config_hash.h"
#include "core/study/agreement.h"
#include "core/study/study_table.h"

namespace fl::study {

namespace {

// One setting a side's `where` picks: its config as comparisons read it (a value its runs do
// not use is kUnusedValue), less the `where`, the seed and where it ran; what of that tells it
// from the side's other settings (with its arm, where the side spans several); its cell.
struct SideSetting {
  nlohmann::json set = nlohmann::json::object();
  nlohmann::json open = nlohmann::json::object();
  std::vector<const AggregateCell*> cells;
};

bool sameSetting(const std::string& key, const nlohmann::json& value, const nlohmann::json& in) {
  return matches(nlohmann::json::object({{key, value}}), in);
}

// A value that takes part in a comparison: kUnusedValue (a linear head's frequencies) matches
// any value, as in differingConfigKeys.
bool comparable(const nlohmann::json& a, const nlohmann::json& b, const std::string& key) {
  return isUnusedValue(a) || isUnusedValue(b) ||
         sameSetting(key, a, nlohmann::json::object({{key, b}}));
}

// The settings `where` picks, told apart by what it leaves open. A side that left `dataset`
// open had pooled both datasets' runs as seeds of one setting (n 6 for 3 seeds), and its
// spread, between datasets, was read as the seeds'. A value a run does not use never matches:
// `gamma 0` had picked the linear head, whose unused gamma is stored at its default.
std::vector<SideSetting> settingsOf(const nlohmann::json& where,
                                    const std::vector<AggregateCell>& cells,
                                    const std::vector<ParamSpec>& params) {
  std::vector<const AggregateCell*> matched;
  std::vector<nlohmann::json> sets;
  std::set<std::string> armsMatched;
  for (const auto& cell : cells) {
    const nlohmann::json compared = claimSideValues(cell.config, cell.arm, params);
    if (!matches(where, compared)) continue;
    matched.push_back(&cell);
    armsMatched.insert(cell.arm);
    nlohmann::json set = nlohmann::json::object();
    // The arm is no setting the sides must share: what it fixes is, key by key.
    for (const auto& [key, value] : compared.items())
      if (!where.contains(key) && key != "seed" && key != kArmAxis && !store::isPlacementKey(key))
        set[key] = value;
    sets.push_back(std::move(set));
  }
  // Only what differs between the picked settings tells them apart.
  std::set<std::string> differing;
  for (const auto& mine : sets)
    for (const auto& [key, value] : mine.items())
      for (const auto& theirs : sets)
        if (!sameSetting(key, value, theirs)) differing.insert(key);
  // Where the side spans arms, a key each arm holds at one value is the arm's, said by its
  // name: "arm L, frequencies (not used), gamma (not used), head linear" had listed what
  // the arm "L" already says.
  if (armsMatched.size() > 1) {
    std::map<std::string, std::map<std::string, std::set<std::string>>> valuesByArm;
    for (size_t i = 0; i < matched.size(); ++i)
      for (const auto& [key, value] : sets[i].items())
        if (differing.count(key)) valuesByArm[key][matched[i]->arm].insert(value.dump());
    for (const auto& [key, byArm] : valuesByArm)
      if (std::all_of(byArm.begin(), byArm.end(),
                      [](const auto& arm) { return arm.second.size() == 1; }))
        differing.erase(key);
  }
  std::vector<SideSetting> settings;
  for (size_t i = 0; i < matched.size(); ++i) {
    nlohmann::json open = nlohmann::json::object();
    if (armsMatched.size() > 1) open[kArmAxis] = matched[i]->arm;
    for (const auto& [key, value] : sets[i].items())
      if (differing.count(key)) open[key] = value;
    auto same = std::find_if(settings.begin(), settings.end(),
                             [&](const SideSetting& s) { return s.open == open; });
    if (same == settings.end())
      same = settings.insert(settings.end(), SideSetting{sets[i], open, {}});
    same->cells.push_back(matched[i]);
  }
  return settings;
}

// The key that keeps two sides' settings from being compared, or "": the claim compares what
// its sides name apart and nothing else. A setting one side names, the other side's runs must
// have (a side fixing beta meets the other side's beta alone); one neither names, both sides'
// runs must share (a claim on heads over two datasets is judged one dataset at a time, and
// never gmm2 against beta, whether a dataset is an axis, an arm's or the default).
std::string keyKeepingApart(const StudyClaim& claim, const SideSetting& a, const SideSetting& b) {
  auto valueOf = [](const nlohmann::json& where, const SideSetting& side,
                    const std::string& key) -> const nlohmann::json* {
    if (where.contains(key)) return &where.at(key);
    if (side.set.contains(key)) return &side.set.at(key);
    return nullptr;
  };
  std::set<std::string> keys;
  for (const auto* json : {&claim.a, &claim.b, &a.set, &b.set})
    for (const auto& item : json->items()) keys.insert(item.key());
  // A side naming its arm compares that arm as it is set: what the arm fixes (a key its
  // settings do not vary) is the claim's to compare, not a setting to share.
  auto ownedByArm = [](const nlohmann::json& where, const SideSetting& side,
                       const std::string& key) {
    return where.contains(kArmAxis) && !side.open.contains(key);
  };
  for (const auto& key : keys) {
    if (claim.a.contains(key) && claim.b.contains(key)) continue;  // what the claim compares
    if (ownedByArm(claim.a, a, key) || ownedByArm(claim.b, b, key)) continue;
    const auto* mine = valueOf(claim.a, a, key);
    const auto* theirs = valueOf(claim.b, b, key);
    if (mine && theirs && !comparable(*mine, *theirs, key)) return key;
  }
  return "";
}

// "dataset (gmm2, gaussian against beta)": the values a key takes on either side.
std::string apartText(const std::string& key, const StudyClaim& claim,
                      const std::vector<SideSetting>& settingsA,
                      const std::vector<SideSetting>& settingsB) {
  auto valuesOn = [&](const nlohmann::json& where, const std::vector<SideSetting>& settings) {
    std::vector<std::string> values;
    for (const auto& s : settings) {
      const nlohmann::json* v = where.contains(key)   ? &where.at(key)
                                : s.set.contains(key) ? &s.set.at(key)
                                                      : nullptr;
      const std::string text = v ? settingText(*v) : "unset";
      if (std::find(values.begin(), values.end(), text) == values.end()) values.push_back(text);
    }
    std::string out;
    for (const auto& v : values) out += (out.empty() ? "" : ", ") + v;
    return out;
  };
  return key + " (" + valuesOn(claim.a, settingsA) + " against " + valuesOn(claim.b, settingsB) +
         ")";
}

// Where the key keeping the sides apart is one a setting named on a side is used only under,
// how to compare them: side a's `gamma 1e-6` picks the Fourier head's runs alone, and meets
// side b's `head linear` once side a names its head too. "" where no such setting is named.
std::string conditionHint(const std::string& key, const StudyClaim& claim,
                          const std::vector<ParamSpec>& params) {
  for (const auto& [where, other, side] :
       {std::tuple{&claim.a, &claim.b, "a"}, std::tuple{&claim.b, &claim.a, "b"}}) {
    if (where->contains(key) || !other->contains(key)) continue;
    for (const auto& spec : params) {
      if (!spec.condition || spec.condition->key != key || !where->contains(spec.name)) continue;
      const auto& values = spec.condition->values;
      return "; side " + std::string(side) + "'s " + spec.name + " is " +
             spec.conditionDescription() + ": name " + key +
             (values.size() == 1 ? " " + values.front() : std::string()) + " on side " + side +
             " too";
    }
  }
  return "";
}

// Whether any run of the setting recorded the metric.
bool records(const SideSetting& setting, const std::string& metric) {
  return std::any_of(setting.cells.begin(), setting.cells.end(),
                     [&](const AggregateCell* cell) { return cell->metrics.count(metric) > 0; });
}

// Why a side gives nothing to judge at any setting, or "": it matches no run, or none of its
// runs has the metric.
std::string sideMissing(const char* name, const std::vector<SideSetting>& settings,
                        const std::string& metric) {
  if (settings.empty()) return std::string("side ") + name + " matches no run of the study";
  if (std::any_of(settings.begin(), settings.end(),
                  [&](const SideSetting& s) { return records(s, metric); }))
    return "";
  return std::string("no run on side ") + name + " has " + metric;
}

// One run's value of a claim's quantity, with the run it came from: its cell and seed (or its
// place among the cell's values where they carry no seeds).
struct RunValue {
  const AggregateCell* cell;
  int64_t run;
  double value;
};

int64_t runOf(const MetricStats& stats, size_t i) {
  return stats.seeds.size() == stats.values.size() ? stats.seeds[i] : static_cast<int64_t>(i);
}

// Every finished run's value of the claim's quantity in one setting: the metric (a side's own),
// or metric / over run by run. A run lacking either gives no ratio; values without seeds pair
// by place only where both metrics have every run, rather than misaligned.
std::vector<RunValue> sideRuns(const StudyClaim& claim, const std::string& metricName,
                               const SideSetting& setting) {
  std::vector<RunValue> out;
  for (const auto* cell : setting.cells) {
    auto metric = cell->metrics.find(metricName);
    if (metric == cell->metrics.end()) continue;
    const MetricStats& values = metric->second;
    std::map<int64_t, double> over;
    if (!claim.over.empty()) {
      auto found = cell->metrics.find(claim.over);
      if (found == cell->metrics.end()) continue;
      const MetricStats& divisor = found->second;
      const bool seeded = values.seeds.size() == values.values.size() &&
                          divisor.seeds.size() == divisor.values.size();
      if (!seeded && divisor.values.size() != values.values.size()) continue;
      for (size_t i = 0; i < divisor.values.size(); ++i)
        over[runOf(divisor, i)] = divisor.values[i];
    }
    for (size_t i = 0; i < values.values.size(); ++i) {
      const int64_t run = runOf(values, i);
      if (claim.over.empty()) {
        out.push_back({cell, run, values.values[i]});
        continue;
      }
      auto divisor = over.find(run);
      if (divisor != over.end() && divisor->second != 0)
        out.push_back({cell, run, values.values[i] / divisor->second});
    }
  }
  return out;
}

std::vector<double> valuesOf(const std::vector<RunValue>& runs) {
  std::vector<double> out;
  for (const auto& r : runs) out.push_back(r.value);
  return out;
}

// Side a's value less side b's, run by run, for the runs both sides read: two metrics of the
// same runs (the MLPs' ablation against attention's) differ by run, and the runs' shared
// spread, which two independent samples would count twice, cancels.
std::vector<double> pairedDifferences(const std::vector<RunValue>& a,
                                      const std::vector<RunValue>& b) {
  std::map<std::pair<const AggregateCell*, int64_t>, double> ofB;
  for (const auto& r : b) ofB[{r.cell, r.run}] = r.value;
  std::vector<double> out;
  for (const auto& r : a) {
    auto other = ofB.find({r.cell, r.run});
    if (other != ofB.end()) out.push_back(r.value - other->second);
  }
  return out;
}

// The claim judged on one setting a side.
ClaimVerdict judgeOne(const StudyClaim& claim, const SideSetting& sideA, const SideSetting& sideB) {
  ClaimVerdict v;
  v.claim = claim;
  v.atSetting = true;
  v.whereA = claim.a;
  v.whereB = claim.b;
  v.whereA.update(sideA.open);
  v.whereB.update(sideB.open);
  const auto runsA = sideRuns(claim, claim.metric, sideA);
  const auto runsB = sideRuns(claim, claim.metricOfB(), sideB);
  v.a = describe(valuesOf(runsA));
  v.b = describe(valuesOf(runsB));
  for (const auto* cell : sideA.cells) v.runsA += static_cast<int>(cell->seeds.size());
  for (const auto* cell : sideB.cells) v.runsB += static_cast<int>(cell->seeds.size());
  for (const auto* side : {&sideA, &sideB})
    for (const auto* cell : side->cells)
      for (const auto& d : cell->departures)
        if (std::find(v.departures.begin(), v.departures.end(), d) == v.departures.end())
          v.departures.push_back(d);
  // The same runs on both sides (another metric of them): judged on their paired differences.
  const auto paired =
      sideA.cells == sideB.cells ? pairedDifferences(runsA, runsB) : std::vector<double>{};
  if (paired.size() >= 2) {
    const MetricStats d = describe(paired);
    v.pairs = d.n;
    v.difference = d.mean;
    v.bound = twoStandardErrors(0, 1, d.std, d.n);
  } else if (v.a.n >= 2 && v.b.n >= 2) {
    v.difference = v.a.mean - v.b.mean;
    v.bound = twoStandardErrors(v.a.std, v.a.n, v.b.std, v.b.n);
  }
  if (v.pairs >= 2 || (v.a.n >= 2 && v.b.n >= 2)) {
    const double gap = std::abs(v.difference);
    if (claim.better == "similar") {
      // The whole 2 SE interval of the difference inside +-within, or wholly outside it.
      v.outcome = gap + v.bound <= claim.within  ? ClaimOutcome::Holds
                  : gap - v.bound > claim.within ? ClaimOutcome::Contradicted
                                                 : ClaimOutcome::Unresolved;
    } else {
      const bool claimedWay = claim.better == "lower" ? v.difference < 0 : v.difference > 0;
      v.outcome = gap <= v.bound ? ClaimOutcome::Unresolved
                  : claimedWay   ? ClaimOutcome::Holds
                                 : ClaimOutcome::Contradicted;
    }
  }
  if (!v.departures.empty()) v.outcome = ClaimOutcome::NotJudged;
  if (v.outcome == ClaimOutcome::NotMeasured) {
    // Said as what is missing: "needs two finished runs a side" had read as runs still to come
    // for a setting whose runs never record the metric.
    const bool over = !claim.over.empty();
    v.why = !records(sideA, claim.metric) ? "no run of side a's setting has " + claim.metric
            : !records(sideB, claim.metricOfB())
                ? "no run of side b's setting has " + claim.metricOfB()
            : over && !records(sideA, claim.over) ? "no run of side a's setting has " + claim.over
            : over && !records(sideB, claim.over) ? "no run of side b's setting has " + claim.over
                                                  : "needs two finished runs a side";
  }
  return v;
}

// "dataset gmm2, head fourier 0.120 ± 0.020 (3)", led by the metric when the sides differ in it.
std::string sideText(const std::string& metric, const nlohmann::json& where, const MetricStats& s,
                     int runs) {
  std::string label;
  for (const auto& [key, value] : where.items())
    label += (label.empty() ? "" : ", ") + key + " " + settingText(value);
  // A side that names nothing is every run of the study (two metrics of the same runs).
  if (label.empty() && metric.empty()) label = "every run";
  if (!metric.empty()) label = metric + (label.empty() ? "" : " at " + label);
  // No value: the side named alone, its reason said after; "- (0)" had read as a side of no
  // runs where its runs lacked only another side's metric.
  if (s.n == 0) return label;
  // "(2 of 3)" where some of the setting's runs gave no value (unfinished, failed), as the
  // table counts them: "(2)" beside the table's "2 of 3" had read as a study of two seeds.
  return label + " " + (s.n >= 2 ? formatMeanStd(s.mean, s.std) : formatStat(s.mean)) + " (" +
         std::to_string(s.n) + (runs > s.n ? " of " + std::to_string(runs) : "") + ")";
}

}  // namespace

std::string toString(ClaimOutcome outcome) {
  switch (outcome) {
    case ClaimOutcome::Holds:
      return "holds";
    case ClaimOutcome::Contradicted:
      return "CONTRADICTED";
    case ClaimOutcome::Unresolved:
      return "unresolved";
    case ClaimOutcome::NotJudged:
      return "not judged";
    case ClaimOutcome::NotMeasured:
      break;
  }
  return "not measured";
}

nlohmann::json claimSideValues(const nlohmann::json& config, const std::string& arm,
                               const std::vector<ParamSpec>& params) {
  nlohmann::json values = params.empty() ? config : comparedValues(params, config);
  if (!arm.empty()) values[kArmAxis] = arm;
  return values;
}

std::vector<ClaimVerdict> judgeClaims(const std::vector<StudyClaim>& claims,
                                      const std::vector<AggregateCell>& cells,
                                      const std::vector<ParamSpec>& params) {
  std::vector<ClaimVerdict> verdicts;
  for (size_t index = 0; index < claims.size(); ++index) {
    const auto& claim = claims[index];
    const size_t first = verdicts.size();
    // One verdict, with its reason and no numbers.
    auto notMeasured = [&](const std::string& why) {
      ClaimVerdict v;
      v.claim = claim;
      v.claimIndex = index;
      v.whereA = claim.a;
      v.whereB = claim.b;
      v.why = why;
      verdicts.push_back(std::move(v));
    };
    const auto settingsA = settingsOf(claim.a, cells, params);
    const auto settingsB = settingsOf(claim.b, cells, params);
    // A side matching no run, or whose runs lack the metric: said once, not per setting.
    std::string missing = sideMissing("a", settingsA, claim.metric);
    if (missing.empty()) missing = sideMissing("b", settingsB, claim.metricOfB());
    // The ratio's divisor too: a misspelt `over` had read "needs two finished runs a side".
    if (missing.empty() && !claim.over.empty()) missing = sideMissing("a", settingsA, claim.over);
    if (missing.empty() && !claim.over.empty()) missing = sideMissing("b", settingsB, claim.over);
    if (!missing.empty()) {
      notMeasured(missing);
      continue;
    }
    std::string apart;
    bool selfOnly = false;
    for (const auto& a : settingsA)
      for (const auto& b : settingsB) {
        const std::string key = keyKeepingApart(claim, a, b);
        if (!key.empty()) {
          if (apart.empty()) apart = key;
          continue;
        }
        // A setting against itself (one side's `where` inside the other's): its difference is
        // 0 whatever its runs gave.
        if (a.cells == b.cells && claim.metricOfB() == claim.metric) {
          selfOnly = true;
          continue;
        }
        verdicts.push_back(judgeOne(claim, a, b));
        verdicts.back().claimIndex = index;
      }
    if (verdicts.size() > first) continue;
    // Never at one setting: no verdict, and what keeps them apart.
    notMeasured(selfOnly ? "the sides are at one setting only where they pick the same runs"
                         : "the sides are never at one setting of " +
                               apartText(apart, claim, settingsA, settingsB) +
                               conditionHint(apart, claim, params));
  }
  return verdicts;
}

std::string ClaimVerdict::summary() const {
  const auto quantity = [this](const std::string& metric) {
    return claim.over.empty() ? metric : metric + " / " + claim.over;
  };
  std::string out = toString(outcome) + ": " + claim.text + " (";
  if (claim.bMetric.empty())
    out += quantity(claim.metric) + ": " + sideText("", whereA, a, runsA) + " against " +
           sideText("", whereB, b, runsB);
  else
    out += sideText(quantity(claim.metric), whereA, a, runsA) + " against " +
           sideText(quantity(claim.bMetric), whereB, b, runsB);
  if (outcome == ClaimOutcome::NotJudged) {
    std::string departs;
    for (const auto& d : departures) departs += (departs.empty() ? "" : ", ") + d;
    return out + "; departs: " + departs + ")";
  }
  if (outcome == ClaimOutcome::NotMeasured) return out + "; " + why + ")";
  out += pairs > 0 ? "; paired over " + std::to_string(pairs) + " runs:" : ";";
  if (claim.better == "similar")
    return out + " |Δ| " + formatStat(std::abs(difference)) + " ± 2 SE " + formatStat(bound) +
           (outcome == ClaimOutcome::Holds          ? " within "
            : outcome == ClaimOutcome::Contradicted ? " beyond "
                                                    : " straddles ") +
           formatStat(claim.within) + ")";
  return out + " Δ " + formatStat(difference) +
         (outcome == ClaimOutcome::Unresolved ? " within " : " beyond ") + "2 SE " +
         formatStat(bound) + ")";
}

std::string claimRuleText() {
  return "A claim holds when the difference of the two sides' means over seeds is beyond 2 SE "
         "(SE = sqrt(s_a^2 / n_a + s_b^2 / n_b)) in the claimed direction, is contradicted "
         "beyond 2 SE the other way, and is unresolved by these seeds within it; a claim that "
         "two sides are similar holds when |difference| + 2 SE is within its tolerance, is "
         "contradicted when |difference| - 2 SE exceeds it, and is unresolved between. A claim "
         "whose settings depart from the study's declared ones (a shortened study) is not "
         "judged: its numbers are shown and its departures named. A side whose settings leave "
         "an axis open (a dataset) is judged at each of its values apart, never pooled as "
         "seeds of one setting, and the two sides only at one setting of everything the claim "
         "does not name apart. Two metrics of the same runs are judged on their differences run by "
         "run (SE = s_d / sqrt(n)), as a paired test.";
}

namespace {

// A study of no preset and no paper's numbers states its own claims: nothing in it is a
// paper's, and "how the paper's pattern reads" had been said of them.
bool ownClaims(const StudySpec& spec) { return spec.preset.empty() && !spec.references; }

}  // namespace

std::string claimsScale(const StudySpec& spec) {
  if (ownClaims(spec)) return "on this study's runs";
  return (spec.preset.empty() ? std::string("on this study's runs")
                              : "on the " + spec.preset + " preset's runs") +
         ", not the paper's models";
}

std::string claimsScaleText(const StudySpec& spec) {
  if (ownClaims(spec)) return "Judged on this study's runs.";
  return "Judged " + claimsScale(spec) +
         ": each outcome says how the paper's pattern reads at this study's scale, not whether "
         "the paper's own measurement holds.";
}

}  // namespace fl::study
