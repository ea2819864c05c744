#include "core/study/study_aggregate.h"

#include <algorithm>
#include <cmath>

#include "core/study/study_run_name.h"

namespace fl::study {

namespace {

bool sameValue(const nlohmann::json& a, const nlohmann::json& b) {
  if (a.is_number() && b.is_number()) {
    const double x = a.get<double>(), y = b.get<double>();
    return x == y || std::abs(x - y) <= 1e-12 * std::max(std::abs(x), std::abs(y));
  }
  return a == b;
}

}  // namespace

int AggregateCell::finished() const { return countOf(statusCounts, RunStatus::Finished); }

MetricStats describe(const std::vector<double>& values) {
  MetricStats s;
  s.values = values;
  s.n = static_cast<int>(values.size());
  if (values.empty()) return s;
  double sum = 0;
  s.min = s.max = values.front();
  for (double v : values) {
    sum += v;
    s.min = std::min(s.min, v);
    s.max = std::max(s.max, v);
  }
  s.mean = sum / s.n;
  if (s.n >= 2) {
    double squares = 0;
    for (double v : values) squares += (v - s.mean) * (v - s.mean);
    s.std = std::sqrt(squares / (s.n - 1));
  }
  return s;
}

bool matches(const nlohmann::json& where, const nlohmann::json& values) {
  for (const auto& [key, expected] : where.items()) {
    if (!values.contains(key) || !sameValue(values.at(key), expected)) return false;
  }
  return true;
}

bool matchesWhereItApplies(const nlohmann::json& where, const nlohmann::json& values) {
  for (const auto& [key, expected] : where.items())
    if (values.contains(key) && !sameValue(values.at(key), expected)) return false;
  return true;
}

std::vector<AggregateCell> aggregate(const std::vector<StudyRunResult>& runs,
                                     const std::string& stat) {
  std::vector<AggregateCell> cells;
  std::map<std::string, size_t> indexOf;  // arm + axes -> cell
  std::vector<std::map<std::string, std::vector<std::pair<int64_t, double>>>> values;
  for (const auto& run : runs) {
    const std::string key = run.arm + "\n" + run.axes.dump();
    auto [it, inserted] = indexOf.emplace(key, cells.size());
    if (inserted) {
      AggregateCell cell;
      cell.arm = run.arm;
      cell.axes = run.axes;
      cell.config = run.config;
      cell.config.erase("seed");
      cells.push_back(std::move(cell));
      values.emplace_back();
    }
    AggregateCell& cell = cells[it->second];
    cell.seeds.push_back(run.seed);
    if (run.runId != 0) cell.runIds.push_back(run.runId);
    ++cell.statusCounts[run.status];
    for (const auto& label : run.failedJudgements) ++cell.failedJudgements[label];
    if (run.status != RunStatus::Finished) continue;
    for (const auto& [metric, value] : stat == "min" ? run.lowest : run.last)
      if (std::isfinite(value)) values[it->second][metric].emplace_back(run.seed, value);
  }
  for (size_t i = 0; i < cells.size(); ++i)
    for (const auto& [metric, seeded] : values[i]) {
      std::vector<double> v;
      std::vector<int64_t> seeds;
      for (const auto& [seed, value] : seeded) {
        seeds.push_back(seed);
        v.push_back(value);
      }
      MetricStats& stats = cells[i].metrics[metric] = describe(v);
      stats.seeds = std::move(seeds);
    }
  return cells;
}

std::optional<ReferenceValue> findReference(const StudyReferences& references,
                                            const nlohmann::json& config,
                                            const std::string& metric) {
  for (const auto& row : references.rows) {
    auto value = row.values.find(metric);
    if (value != row.values.end() && matches(row.where, config)) return value->second;
  }
  return std::nullopt;
}

std::string failedJudgementsText(const std::vector<AggregateCell>& cells) {
  std::map<std::string, std::vector<std::string>>
      settingsOf;  // label -> "variant=multi (1 of 3 runs)"
  for (const auto& cell : cells)
    for (const auto& [label, runs] : cell.failedJudgements) {
      settingsOf[label].push_back(settingLabel(cell.arm, cell.axes) + " (" + std::to_string(runs) +
                                  " of " + std::to_string(cell.seeds.size()) + " runs)");
    }
  if (settingsOf.empty()) return "";
  std::string out = "Judged by the experiment: ";
  bool first = true;
  for (const auto& [label, settings] : settingsOf) {
    out += (first ? "" : "; ") + label + " in ";
    first = false;
    for (size_t i = 0; i < settings.size(); ++i)
      out += (i == 0 ? "" : i + 1 == settings.size() ? " and " : ", ") + settings[i];
  }
  return out + "; their values are not what the study compares";
}

std::string reusedRunsText(const std::vector<StudyRunResult>& runs) {
  std::vector<int64_t> ids;
  for (const auto& run : runs)
    if (run.reused && run.runId && std::find(ids.begin(), ids.end(), run.runId) == ids.end())
      ids.push_back(run.runId);
  if (ids.empty()) return "";
  constexpr size_t kNamed = 8;
  std::string named;
  for (size_t i = 0; i < std::min(ids.size(), kNamed); ++i)
    named += (i ? ", #" : "#") + std::to_string(ids[i]);
  if (ids.size() > kNamed) named += ", ...";
  const bool one = ids.size() == 1;
  return std::to_string(ids.size()) + (one ? " run" : " runs") + " trained before the study (" +
         named + (one ? ") is" : ") are") + " taken as " + (one ? "it is" : "they are") +
         ": same experiment, settings and seed";
}

}  // namespace fl::study
