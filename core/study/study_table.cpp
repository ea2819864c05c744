#include "core/study/study_table.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>
#include <stdexcept>

#include "core/engine/config_diff.h"
#include "core/engine/export_values.h"
#include "core/engine/natural_order.h"
#include "core/engine/system_metrics.h"
#include "core/study/agreement.h"
#include "core/study/study_claims.h"

namespace fl::study {

namespace {

constexpr const char* kMissing = "-";

std::string join(const std::vector<std::string>& parts, const std::string& sep) {
  std::string out;
  for (size_t i = 0; i < parts.size(); ++i) out += (i ? sep : "") + parts[i];
  return out;
}

// "arm" reads the cell's arm (a study with arms shows it as its first row label).
std::string axisValue(const AggregateCell& cell, const std::string& axis) {
  if (axis == kArmAxis) return cell.arm.empty() ? kMissing : cell.arm;
  return cell.axes.contains(axis) ? settingText(cell.axes.at(axis)) : kMissing;
}

bool hasArms(const StudyTableInput& in) {
  for (const auto& cell : in.cells)
    if (!cell.arm.empty()) return true;
  return false;
}

// The spread in the mean's format, so a column reads "0.013 ± 0.001", not "± 0.000587".
std::string meanStd(const MetricStats& s) {
  if (s.n == 0) return kMissing;
  return formatMeanStd(s.mean, s.std);
}

// "(4)", or "(3 of 4)" when some runs of the setting did not finish.
std::string countText(const AggregateCell& cell, const MetricStats& s) {
  const size_t total = cell.seeds.size();
  return s.n == static_cast<int>(total)
             ? "(" + std::to_string(s.n) + ")"
             : "(" + std::to_string(s.n) + " of " + std::to_string(total) + ")";
}

struct Layout {
  std::vector<std::string> rowAxes;
  std::string cols;
  std::vector<std::string> colValues;  // in order of appearance ("-" for cells without it)
  std::vector<std::string> rowKeys;
  std::vector<std::vector<std::string>> rowLabels;
};

Layout layoutFor(const StudyTableInput& in, const TableRequest& req) {
  Layout l;
  l.cols = req.cols;
  // The arm leads each row, unless it is the columns (one column per arm: the paper's heads
  // side by side) or the rows' own axis.
  const bool armLeads = hasArms(in) && req.cols != kArmAxis && req.rows != kArmAxis;
  if (armLeads) l.rowAxes.push_back(kArmAxis);
  if (!req.rows.empty()) l.rowAxes.push_back(req.rows);
  for (const auto& axis : in.axisOrder)
    if (axis != req.cols && axis != req.rows) l.rowAxes.push_back(axis);
  std::set<std::string> seenCols, seenRows;
  for (const auto& cell : in.cells) {
    if (!l.cols.empty()) {
      const std::string c = axisValue(cell, l.cols);
      if (seenCols.insert(c).second) l.colValues.push_back(c);
    }
    std::vector<std::string> labels;
    for (const auto& axis : l.rowAxes) labels.push_back(axisValue(cell, axis));
    const std::string key = join(labels, "\x1f");
    if (seenRows.insert(key).second) {
      l.rowKeys.push_back(key);
      l.rowLabels.push_back(labels);
    }
  }
  // A rows axis orders the rows by its values' first appearance (within an arm), then the
  // other axes.
  if (!req.rows.empty()) {
    const size_t at = armLeads ? 1 : 0;
    std::vector<std::string> order;
    for (const auto& labels : l.rowLabels)
      if (std::find(order.begin(), order.end(), labels[at]) == order.end())
        order.push_back(labels[at]);
    std::vector<size_t> index(l.rowKeys.size());
    for (size_t i = 0; i < index.size(); ++i) index[i] = i;
    std::vector<std::string> arms;  // arms stay grouped, in order of appearance
    for (const auto& labels : l.rowLabels)
      if (std::find(arms.begin(), arms.end(), labels[0]) == arms.end()) arms.push_back(labels[0]);
    auto rank = [&](size_t i) {
      const auto value = std::find(order.begin(), order.end(), l.rowLabels[i][at]) - order.begin();
      const auto arm =
          at == 1 ? std::find(arms.begin(), arms.end(), l.rowLabels[i][0]) - arms.begin() : 0;
      return std::make_pair(arm, value);
    };
    std::stable_sort(index.begin(), index.end(),
                     [&](size_t a, size_t b) { return rank(a) < rank(b); });
    Layout sorted = l;
    for (size_t i = 0; i < index.size(); ++i) {
      sorted.rowKeys[i] = l.rowKeys[index[i]];
      sorted.rowLabels[i] = l.rowLabels[index[i]];
    }
    return sorted;
  }
  return l;
}

std::string rowKeyOf(const AggregateCell& cell, const Layout& l) {
  std::vector<std::string> labels;
  for (const auto& axis : l.rowAxes) labels.push_back(axisValue(cell, axis));
  return join(labels, "\x1f");
}

// Our "mean ± std (n)" and the paper's "mean ± std agrees|DIFFERS" for one cell and metric;
// counts the verdict.
struct CellTexts {
  std::string ours = kMissing;
  std::string paper = kMissing;
  std::optional<bool> agrees;
};

CellTexts cellTexts(const StudyTableInput& in, const AggregateCell* cell,
                    const std::string& metric) {
  CellTexts t;
  if (!cell) return t;
  auto stats = cell->metrics.find(metric);
  if (stats != cell->metrics.end())
    t.ours = meanStd(stats->second) + " " + countText(*cell, stats->second);
  else if (cell->finished() < static_cast<int>(cell->seeds.size()))
    t.ours = std::string(kMissing) + " (" + std::to_string(cell->finished()) + " of " +
             std::to_string(cell->seeds.size()) + " finished)";
  if (!in.references) return t;
  auto ref = findReference(*in.references, cell->config, metric);
  if (!ref) return t;
  t.paper = ref->std ? formatMeanStd(ref->mean, *ref->std) : formatStat(ref->mean);
  if (!cell->compared()) {
    t.paper += " " + std::string(kNotCompared);
  } else if (stats != cell->metrics.end()) {
    const Agreement agreement = judgeAgreement(stats->second, *ref);
    t.agrees = agreement.agrees;
    if (t.agrees) t.paper += " " + agreementWord(agreement);
  }
  return t;
}

// Why settings with published figures were not compared: each departure once.
std::string departureSummary(const StudyTableInput& in) {
  if (!in.references) return "";
  std::vector<std::string> reasons;
  size_t departed = 0;
  for (const auto& cell : in.cells) {
    if (cell.compared()) continue;
    ++departed;
    for (const auto& d : cell.departures)
      if (std::find(reasons.begin(), reasons.end(), d) == reasons.end()) reasons.push_back(d);
  }
  if (departed == 0) return "";
  const std::string which = departed == in.cells.size()
                                ? "every setting departs"
                                : std::to_string(departed) + " of " +
                                      std::to_string(in.cells.size()) + " settings depart";
  return "\nNot compared with the paper: " + which + " from its experiment (" +
         join(reasons, ", ") + "); the paper's values are shown beside them.\n";
}

std::string verdictSummary(const StudyTableInput& in, int agreeing, int judged,
                           const std::vector<std::string>& differing) {
  std::string out;
  if (judged > 0)
    out = "\n" + std::to_string(agreeing) + " of " + std::to_string(judged) +
          " compared values agree with the paper" +
          (differing.empty() ? ".\n" : "; differ: " + join(differing, ", ") + ".\n") +
          agreementRuleText() + "\n";
  const std::string judgements = failedJudgementsText(in.cells);
  return out + departureSummary(in) + (judgements.empty() ? "" : "\n" + judgements + ".\n");
}

// Without a columns axis: one table, a row per setting and a column per metric (and the
// paper's value beside each metric it reports).
std::string markdownMetricColumns(const StudyTableInput& in, const Layout& l,
                                  const std::vector<std::string>& metrics) {
  std::vector<bool> paperColumn(metrics.size(), false);
  for (size_t m = 0; m < metrics.size(); ++m)
    for (const auto& cell : in.cells)
      if (in.references && findReference(*in.references, cell.config, metrics[m]))
        paperColumn[m] = true;
  std::string out = "\nmean ± std over seeds (n)\n\n|";
  size_t columns = l.rowAxes.size();
  for (const auto& axis : l.rowAxes) out += " " + axis + " |";
  for (size_t m = 0; m < metrics.size(); ++m) {
    out += " " + metrics[m] + " |";
    ++columns;
    if (paperColumn[m]) {
      out += " paper |";
      ++columns;
    }
  }
  out += "\n|";
  for (size_t i = 0; i < columns; ++i) out += "---|";
  out += "\n";
  int agreeing = 0, judged = 0;
  std::vector<std::string> differing;
  for (size_t r = 0; r < l.rowKeys.size(); ++r) {
    const AggregateCell* found = nullptr;
    for (const auto& cell : in.cells)
      if (rowKeyOf(cell, l) == l.rowKeys[r]) found = &cell;
    out += "|";
    for (const auto& label : l.rowLabels[r]) out += " " + label + " |";
    for (size_t m = 0; m < metrics.size(); ++m) {
      const CellTexts t = cellTexts(in, found, metrics[m]);
      out += " " + t.ours + " |";
      if (paperColumn[m]) out += " " + t.paper + " |";
      if (t.agrees) {
        ++judged;
        if (*t.agrees)
          ++agreeing;
        else
          differing.push_back(metrics[m] + " " + join(l.rowLabels[r], "/"));
      }
    }
    out += "\n";
  }
  return out + verdictSummary(in, agreeing, judged, differing);
}

std::string markdown(const StudyTableInput& in, const TableRequest& req,
                     const std::vector<std::string>& metrics) {
  const Layout l = layoutFor(in, req);
  std::string out = "# " + in.title + "\n";
  if (in.references)
    out += "Paper: " + in.references->source +
           (in.references->stat == "min" ? " (best value of each run)" : "") + "\n";
  if (l.cols.empty()) return out + markdownMetricColumns(in, l, metrics);
  int agreeing = 0, judged = 0;
  std::vector<std::string> differing;
  for (const auto& metric : metrics) {
    // Paper columns only where the paper has a value for this metric.
    std::vector<bool> paperColumn(l.colValues.size(), false);
    for (const auto& cell : in.cells) {
      if (!in.references || !findReference(*in.references, cell.config, metric)) continue;
      const std::string c = axisValue(cell, l.cols);
      for (size_t i = 0; i < l.colValues.size(); ++i)
        if (l.colValues[i] == c) paperColumn[i] = true;
    }
    out += "\n## " + metric + ": mean ± std over seeds (n)\n\n|";
    for (const auto& axis : l.rowAxes) out += " " + axis + " |";
    for (size_t i = 0; i < l.colValues.size(); ++i) {
      out += " " + l.cols + " = " + l.colValues[i] + " |";
      if (paperColumn[i]) out += " paper |";
    }
    out += "\n|";
    const size_t columns = l.rowAxes.size() + l.colValues.size() +
                           std::count(paperColumn.begin(), paperColumn.end(), true);
    for (size_t i = 0; i < columns; ++i) out += "---|";
    out += "\n";
    for (size_t r = 0; r < l.rowKeys.size(); ++r) {
      out += "|";
      for (const auto& label : l.rowLabels[r]) out += " " + label + " |";
      for (size_t c = 0; c < l.colValues.size(); ++c) {
        const AggregateCell* found = nullptr;
        for (const auto& cell : in.cells)
          if (rowKeyOf(cell, l) == l.rowKeys[r] && axisValue(cell, l.cols) == l.colValues[c])
            found = &cell;
        const CellTexts t = cellTexts(in, found, metric);
        if (t.agrees) {
          ++judged;
          if (*t.agrees)
            ++agreeing;
          else
            differing.push_back(metric + " " + join(l.rowLabels[r], "/") + "/" + l.colValues[c]);
        }
        out += " " + t.ours + " |";
        if (paperColumn[c]) out += " " + t.paper + " |";
      }
      out += "\n";
    }
  }
  return out + verdictSummary(in, agreeing, judged, differing);
}

// The study's claims, each with the numbers behind its outcome.
std::string claimsSection(const StudyTableInput& in) {
  if (!in.claims || in.claims->empty()) return "";
  std::string out = "\n## Claims over seeds\n\n" +
                    (in.claimsScale.empty() ? "" : in.claimsScale + " ") + claimRuleText() + "\n\n";
  for (const auto& verdict : judgeClaims(*in.claims, in.cells, in.params))
    out += "- " + verdict.summary() + "\n";
  return out;
}

nlohmann::json sideJson(const nlohmann::json& where, const MetricStats& s) {
  return {
      {"where", where}, {"n", s.n}, {"mean", finiteOrNull(s.mean)}, {"std", finiteOrNull(s.std)}};
}

std::string csv(const StudyTableInput& in, const std::vector<std::string>& metrics) {
  std::string out;
  for (const auto& axis : in.axisOrder) out += csvField(axis) + ",";
  out += "arm,metric,n,seeds,mean,std,min,max,paper_mean,paper_std,paper_n,verdict,agreement\n";
  // A file for programs: ten significant digits, not the three a table shows (a mean of 0.0123
  // read 0.012).
  auto num = [](double v) {
    if (!std::isfinite(v)) return std::string();
    char text[32];
    std::snprintf(text, sizeof text, "%.10g", v);
    return std::string(text);
  };
  for (const auto& cell : in.cells) {
    for (const auto& metric : metrics) {
      auto it = cell.metrics.find(metric);
      const MetricStats stats = it == cell.metrics.end() ? MetricStats{} : it->second;
      for (const auto& axis : in.axisOrder)
        out += csvField(cell.axes.contains(axis) ? settingText(cell.axes.at(axis)) : "") + ",";
      out += csvField(cell.arm) + "," + csvField(metric) + "," + std::to_string(stats.n) + "," +
             std::to_string(cell.seeds.size()) + "," + num(stats.mean) + "," + num(stats.std) +
             "," + num(stats.min) + "," + num(stats.max) + ",";
      std::optional<ReferenceValue> ref;
      if (in.references) ref = findReference(*in.references, cell.config, metric);
      if (ref) {
        out += num(ref->mean) + "," + (ref->std ? num(*ref->std) : "") + "," +
               (ref->seeds ? std::to_string(*ref->seeds) : "") + ",";
        if (cell.compared()) {
          const auto a = judgeAgreement(stats, *ref);
          out += agreementWord(a) + "," + csvField(a.explanation(stats, *ref));
        } else {
          out += std::string(kNotCompared) + ",";
        }
      } else {
        out += ",,,,";
      }
      out += "\n";
    }
  }
  return out;
}

std::string json(const StudyTableInput& in, const std::vector<std::string>& metrics) {
  nlohmann::json cells = nlohmann::json::array();
  for (const auto& cell : in.cells) {
    nlohmann::json m = nlohmann::json::object();
    for (const auto& metric : metrics) {
      auto it = cell.metrics.find(metric);
      const MetricStats stats = it == cell.metrics.end() ? MetricStats{} : it->second;
      nlohmann::json entry = {{"n", stats.n},
                              {"mean", finiteOrNull(stats.mean)},
                              {"std", finiteOrNull(stats.std)},
                              {"min", finiteOrNull(stats.min)},
                              {"max", finiteOrNull(stats.max)},
                              {"values", stats.values}};
      // Each value's seed: a reader pairs two metrics of the same runs by it, as a claim does.
      if (stats.seeds.size() == stats.values.size()) entry["value_seeds"] = stats.seeds;
      if (in.references)
        if (auto ref = findReference(*in.references, cell.config, metric)) {
          entry["paper_mean"] = ref->mean;
          entry["paper_std"] = ref->std ? nlohmann::json(*ref->std) : nlohmann::json();
          entry["paper_n"] = ref->seeds ? nlohmann::json(*ref->seeds) : nlohmann::json();
          const auto a = cell.compared() ? judgeAgreement(stats, *ref) : Agreement{};
          entry["agrees"] = a.agrees ? nlohmann::json(*a.agrees) : nlohmann::json();
          if (a.agrees) entry["agreement"] = a.explanation(stats, *ref);
        }
      m[metric] = entry;
    }
    cells.push_back({{"arm", cell.arm},
                     {"axes", cell.axes},
                     {"seeds", cell.seeds},
                     {"runs", cell.runIds},
                     {"status", countsJson(cell.statusCounts)},
                     {"metrics", m}});
    if (!cell.compared()) cells.back()["departs_from_paper"] = cell.departures;
    if (!cell.failedJudgements.empty()) cells.back()["failed_judgements"] = cell.failedJudgements;
  }
  nlohmann::json out = {{"title", in.title}, {"axes", in.axisOrder}, {"cells", cells}};
  if (in.references) {
    out["paper_source"] = in.references->source;
    out["agreement_rule"] = agreementRuleText();
  }
  if (in.claims && !in.claims->empty()) {
    if (!in.claimsScale.empty()) out["claims_judged"] = in.claimsScale;
    out["claims"] = nlohmann::json::array();
    for (const auto& v : judgeClaims(*in.claims, in.cells, in.params)) {
      const bool measured = v.outcome != ClaimOutcome::NotMeasured;
      out["claims"].push_back({{"claim", v.claimIndex},
                               {"text", v.claim.text},
                               {"outcome", toString(v.outcome)},
                               {"a", sideJson(v.whereA, v.a)},
                               {"b", sideJson(v.whereB, v.b)},
                               {"difference", measured ? nlohmann::json(v.difference) : nullptr},
                               {"bound", measured ? nlohmann::json(v.bound) : nullptr},
                               {"paired_runs", v.pairs},
                               {"why", v.why},
                               {"departures", v.departures},
                               {"summary", v.summary()}});
    }
  }
  return out.dump(2) + "\n";
}

}  // namespace

std::string formatStat(double value) {
  if (!std::isfinite(value)) return kMissing;
  char text[32];
  const double a = std::abs(value);
  if (a != 0 && (a < 1e-3 || a >= 1e4))
    std::snprintf(text, sizeof text, "%.3g", value);
  else
    std::snprintf(text, sizeof text, "%.3f", value);
  return text;
}

std::string formatMeanStd(double mean, double spread) {
  if (!std::isfinite(spread)) return formatStat(mean);
  const double a = std::abs(mean);
  if (a != 0 && (a < 1e-3 || a >= 1e4)) return formatStat(mean) + " ± " + formatStat(spread);
  char text[32];
  // A spread below the mean's last digit keeps one significant digit: "± 0.000" read as seeds
  // that agree exactly, beside a verdict that turned on that spread.
  const bool belowLastDigit = spread != 0 && std::abs(spread) < 5e-4;
  std::snprintf(text, sizeof text, belowLastDigit ? "%.1g" : "%.3f", spread);
  return formatStat(mean) + " ± " + text;
}

std::vector<std::string> defaultMetrics(const StudyTableInput& input,
                                        const std::vector<std::string>& layoutMetrics) {
  if (!layoutMetrics.empty()) return layoutMetrics;
  std::vector<std::string> metrics;
  if (input.references)
    for (const auto& row : input.references->rows)
      for (const auto& [metric, value] : row.values)
        if (std::find(metrics.begin(), metrics.end(), metric) == metrics.end())
          metrics.push_back(metric);
  if (!metrics.empty()) return metrics;
  std::set<std::string, NaturalLess> all;  // val/ppl@48 before val/ppl@192
  for (const auto& cell : input.cells)
    for (const auto& [metric, stats] : cell.metrics)
      if (metric.rfind("train/", 0) != 0 && !isSystemMetric(metric)) all.insert(metric);
  return {all.begin(), all.end()};
}

std::string renderStudyTable(const StudyTableInput& input, const TableRequest& request) {
  auto hasAxis = [&](const std::string& axis) {
    return (axis == kArmAxis && hasArms(input)) ||
           std::find(input.axisOrder.begin(), input.axisOrder.end(), axis) != input.axisOrder.end();
  };
  std::vector<std::string> axes = input.axisOrder;
  if (hasArms(input)) axes.insert(axes.begin(), kArmAxis);
  const std::string known = join(axes, ", ");
  if (!request.rows.empty() && !hasAxis(request.rows))
    throw std::invalid_argument("--rows " + request.rows +
                                ": not an axis of this study (axes: " + known + ")");
  if (!request.cols.empty() && !hasAxis(request.cols))
    throw std::invalid_argument("--cols " + request.cols +
                                ": not an axis of this study (axes: " + known + ")");
  if (!request.rows.empty() && request.rows == request.cols)
    throw std::invalid_argument("--rows and --cols are both '" + request.rows + "'");
  const auto metrics =
      request.metrics.empty() ? defaultMetrics(input, request.layoutMetrics) : request.metrics;
  std::set<std::string> present;
  for (const auto& cell : input.cells)
    for (const auto& [metric, stats] : cell.metrics) present.insert(metric);
  const std::string recorded = " (recorded: " + join({present.begin(), present.end()}, ", ") + ")";
  for (const auto& metric : request.metrics)
    if (!present.count(metric) && !present.empty())
      throw std::invalid_argument("--metric " + metric + ": no finished run of this study has it" +
                                  recorded);
  if (request.format == "csv") return csv(input, metrics);
  if (request.format == "json") return json(input, metrics);
  if (request.format != "md")
    throw std::invalid_argument("--format " + request.format + ": use md, csv or json");
  std::vector<std::string> unrecorded;
  for (const auto& metric : metrics)
    if (!present.count(metric) && !present.empty()) unrecorded.push_back(metric);
  const std::string note = unrecorded.empty()
                               ? ""
                               : "\nNo finished run recorded " + join(unrecorded, ", ") +
                                     ", which the study's table names" + recorded + ".\n";
  return markdown(input, request, metrics) + note + claimsSection(input);
}

}  // namespace fl::study
