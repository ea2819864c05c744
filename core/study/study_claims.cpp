#include "core/study/study_claims.h"

#include <algorithm>
#include <cmath>
#include <set>

#include "core/engine/config_diff.h"
#include "core/study/agreement.h"
#include "core/study/study_table.h"

namespace fl::study {

namespace {

// One setting a side's `where` picks: the axis values (and, where the side spans several arms,
// the arm) that its `where` leaves open, and the setting's cell.
struct SideSetting {
  nlohmann::json open = nlohmann::json::object();
  std::vector<const AggregateCell*> cells;
};

// The settings `where` picks, told apart by what it leaves open. A side that left `dataset`
// open had pooled both datasets' runs as seeds of one setting (n 6 for 3 seeds), and its
// spread, between datasets, was read as the seeds'.
std::vector<SideSetting> settingsOf(const nlohmann::json& where,
                                    const std::vector<AggregateCell>& cells) {
  std::vector<const AggregateCell*> matched;
  std::set<std::string> arms;
  for (const auto& cell : cells)
    if (matches(where, cell.config)) {
      matched.push_back(&cell);
      arms.insert(cell.arm);
    }
  auto openOf = [&](const AggregateCell& cell) {
    nlohmann::json open = nlohmann::json::object();
    if (arms.size() > 1) open[kArmAxis] = cell.arm;
    for (const auto& [key, value] : cell.axes.items())
      if (!where.contains(key)) open[key] = value;
    return open;
  };
  // Only what differs between the picked settings tells them apart.
  std::vector<nlohmann::json> opens;
  for (const auto* cell : matched) opens.push_back(openOf(*cell));
  std::set<std::string> differing;
  for (const auto& mine : opens)
    for (const auto& [key, value] : mine.items())
      for (const auto& theirs : opens)
        if (!matches(nlohmann::json::object({{key, value}}), theirs)) differing.insert(key);
  std::vector<SideSetting> settings;
  for (size_t i = 0; i < matched.size(); ++i) {
    const AggregateCell* cell = matched[i];
    nlohmann::json open = nlohmann::json::object();
    for (const auto& [key, value] : opens[i].items())
      if (differing.count(key)) open[key] = value;
    auto same = std::find_if(settings.begin(), settings.end(),
                             [&](const SideSetting& s) { return s.open == open; });
    if (same == settings.end()) same = settings.insert(settings.end(), SideSetting{open, {}});
    same->cells.push_back(cell);
  }
  if (settings.empty()) settings.push_back({});  // nothing picked: one side, not measured
  return settings;
}

// Whether two sides' settings are compared: a value one side leaves open must be the other
// side's where that side has it (a claim whose sides both leave the dataset open is judged one
// dataset at a time; one fixing beta meets the other side's beta alone).
bool pairUp(const StudyClaim& claim, const SideSetting& a, const SideSetting& b) {
  auto agrees = [](const nlohmann::json& open, nlohmann::json other,
                   const nlohmann::json& otherOpen) {
    other.update(otherOpen);
    for (const auto& [key, value] : open.items())
      if (other.contains(key) && !matches(nlohmann::json::object({{key, value}}), other))
        return false;
    return true;
  };
  return agrees(a.open, claim.b, b.open) && agrees(b.open, claim.a, a.open);
}

// Every finished run's value of the claim's quantity in one setting: the metric (a side's own),
// or metric / over per run. A cell whose two metrics do not come from the same runs (one missing
// in some run) gives no ratios rather than misaligned ones.
std::vector<double> sideValues(const StudyClaim& claim, const std::string& metricName,
                               const SideSetting& setting) {
  std::vector<double> out;
  for (const auto* cell : setting.cells) {
    auto metric = cell->metrics.find(metricName);
    if (metric == cell->metrics.end()) continue;
    const auto& values = metric->second.values;
    if (claim.over.empty()) {
      out.insert(out.end(), values.begin(), values.end());
      continue;
    }
    auto over = cell->metrics.find(claim.over);
    if (over == cell->metrics.end() || over->second.values.size() != values.size()) continue;
    for (size_t i = 0; i < values.size(); ++i)
      if (over->second.values[i] != 0) out.push_back(values[i] / over->second.values[i]);
  }
  return out;
}

// The claim judged on one setting a side.
ClaimVerdict judgeOne(const StudyClaim& claim, const SideSetting& sideA, const SideSetting& sideB) {
  ClaimVerdict v;
  v.claim = claim;
  v.whereA = claim.a;
  v.whereB = claim.b;
  v.whereA.update(sideA.open);
  v.whereB.update(sideB.open);
  v.a = describe(sideValues(claim, claim.metric, sideA));
  v.b = describe(sideValues(claim, claim.metricOfB(), sideB));
  for (const auto* side : {&sideA, &sideB})
    for (const auto* cell : side->cells)
      for (const auto& d : cell->departures)
        if (std::find(v.departures.begin(), v.departures.end(), d) == v.departures.end())
          v.departures.push_back(d);
  if (v.a.n >= 2 && v.b.n >= 2) {
    v.difference = v.a.mean - v.b.mean;
    v.bound = twoStandardErrors(v.a.std, v.a.n, v.b.std, v.b.n);
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
  return v;
}

// "dataset gmm2, head fourier 0.120 ± 0.020 (3)", led by the metric when the sides differ in it.
std::string sideText(const std::string& metric, const nlohmann::json& where, const MetricStats& s) {
  std::string label;
  for (const auto& [key, value] : where.items())
    label += (label.empty() ? "" : ", ") + key + " " + settingText(value);
  if (!metric.empty()) label = metric + (label.empty() ? "" : " at " + label);
  return label + " " + (s.n >= 2 ? formatMeanStd(s.mean, s.std) : formatStat(s.mean)) + " (" +
         std::to_string(s.n) + ")";
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

std::vector<ClaimVerdict> judgeClaims(const std::vector<StudyClaim>& claims,
                                      const std::vector<AggregateCell>& cells) {
  std::vector<ClaimVerdict> verdicts;
  for (const auto& claim : claims) {
    const auto settingsA = settingsOf(claim.a, cells);
    const auto settingsB = settingsOf(claim.b, cells);
    const size_t before = verdicts.size();
    for (const auto& a : settingsA)
      for (const auto& b : settingsB)
        if (pairUp(claim, a, b)) verdicts.push_back(judgeOne(claim, a, b));
    // Sides that leave one key open on values they never share: every pair is a comparison.
    if (verdicts.size() == before)
      for (const auto& a : settingsA)
        for (const auto& b : settingsB) verdicts.push_back(judgeOne(claim, a, b));
  }
  return verdicts;
}

std::string ClaimVerdict::summary() const {
  const auto quantity = [this](const std::string& metric) {
    return claim.over.empty() ? metric : metric + " / " + claim.over;
  };
  std::string out = toString(outcome) + ": " + claim.text + " (";
  if (claim.bMetric.empty())
    out += quantity(claim.metric) + ": " + sideText("", whereA, a) + " against " +
           sideText("", whereB, b);
  else
    out += sideText(quantity(claim.metric), whereA, a) + " against " +
           sideText(quantity(claim.bMetric), whereB, b);
  if (outcome == ClaimOutcome::NotJudged) {
    std::string departs;
    for (const auto& d : departures) departs += (departs.empty() ? "" : ", ") + d;
    return out + "; departs: " + departs + ")";
  }
  if (outcome == ClaimOutcome::NotMeasured) return out + "; needs two finished runs a side)";
  if (claim.better == "similar")
    return out + "; |Δ| " + formatStat(std::abs(difference)) + " ± 2 SE " + formatStat(bound) +
           (outcome == ClaimOutcome::Holds          ? " within "
            : outcome == ClaimOutcome::Contradicted ? " beyond "
                                                    : " straddles ") +
           formatStat(claim.within) + ")";
  return out + "; Δ " + formatStat(difference) +
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
         "seeds of one setting.";
}

std::string claimsScale(const StudySpec& spec) {
  return (spec.preset.empty() ? std::string("on this study's runs")
                              : "on the " + spec.preset + " preset's runs") +
         ", not the paper's models";
}

std::string claimsScaleText(const StudySpec& spec) {
  return "Judged " + claimsScale(spec) +
         ": each outcome says how the paper's pattern reads at this study's scale, not whether "
         "the paper's own measurement holds.";
}

}  // namespace fl::study
