#include "core/study/study_figure.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>
#include <tuple>

#include "core/engine/config_diff.h"
#include "core/study/metric_names.h"

namespace fl::study {

namespace {

// The paper's figures shade mean ± std / (1 / 0.67): a "50% interval" for a normal spread.
constexpr double kHalfIntervalScale = 0.67;

std::string join(const std::vector<std::string>& parts, const std::string& sep) {
  std::string out;
  for (size_t i = 0; i < parts.size(); ++i) out += (i ? sep : "") + parts[i];
  return out;
}

std::pair<double, double> band(const MetricStats& s, const std::string& kind) {
  if (kind == "none") return {NAN, NAN};
  if (kind == "minmax") return {s.min, s.max};
  const double w = kind == "half" ? kHalfIntervalScale * s.std : s.std;
  return {s.mean - w, s.mean + w};
}

// The paper's spread drawn on the scale of ours: a ± 1 std bar beside a ± 0.67 std band read as
// two runs agreeing or not where the table said otherwise. min-max has no published
// counterpart: the paper's std then.
std::optional<double> referenceSpread(std::optional<double> std, const std::string& kind) {
  if (!std || kind == "none") return std::nullopt;
  return kind == "half" ? kHalfIntervalScale * *std : *std;
}

std::string describeReferences(const std::string& kind) {
  if (kind == "none") return "paper (mean)";
  if (kind == "half") return "paper (mean ± 0.67 std)";
  return "paper (mean ± std)";
}

// `bars`: the figure draws its spread as error bars (categories), not as a band.
std::string describeBand(const std::string& kind, bool bars) {
  const std::string what = bars ? "bars" : "band";
  if (kind == "half") return what + ": mean ± 0.67 std over seeds (a 50% interval)";
  if (kind == "std") return what + ": mean ± 1 std over seeds";
  if (kind == "minmax") return what + ": min to max over seeds";
  return "no " + what;
}

bool isNumeric(const nlohmann::json& v) { return v.is_number(); }

// A figure against the metrics' '@' numbers, as one against an axis: each cell split into one
// per number, which the axis "@" takes, holding each family's member at that number under the
// family's name; the paper's rows alike. The layout's metrics become the families, their axis
// titles and bounds the chosen members'.
struct Unrolled {
  std::vector<AggregateCell> cells;
  std::optional<StudyReferences> references;
  FigureLayout layout;
};

Unrolled unrollMetricFamilies(const std::vector<AggregateCell>& cells, const FigureLayout& layout,
                              const StudyReferences* references,
                              const std::vector<std::string>& axisOrder) {
  Unrolled out;
  out.layout = layout;
  out.layout.metrics.clear();
  std::set<std::string> recorded;
  for (const auto& c : cells)
    for (const auto& [key, stats] : c.metrics) recorded.insert(key);
  for (const auto& metric : layout.metrics) {
    const std::string family = familyOf(metric);
    if (family.empty())
      throw FigureError(FigureError::Kind::Layout,
                        "--metric " + metric + ": has no number after an '@' to be drawn " +
                            "against (x @, the number in the metrics' names); give --x with " +
                            "one of the study's axes (" + join(axisOrder, ", ") + ")");
    // A length no run recorded (a typo, val/ppl@1024) drew every other length's.
    if (!isFamily(metric) && !recorded.count(metric))
      throw FigureError(FigureError::Kind::NoFinishedRun,
                        "--metric " + metric + ": no finished run has it; against the length " +
                            "it stands for " + family + ", which " +
                            (std::any_of(recorded.begin(), recorded.end(),
                                         [&](const std::string& k) {
                                           return memberLength(k, family).has_value();
                                         })
                                 ? "has " + membersOf(recorded, family)
                                 : "no run recorded"));
    if (std::find(out.layout.metrics.begin(), out.layout.metrics.end(), family) !=
        out.layout.metrics.end())
      continue;
    out.layout.metrics.push_back(family);
    // A title made for the member names it ("perplexity (val/ppl@64)"): it names the family.
    if (auto t = layout.yTitles.find(metric); t != layout.yTitles.end() && metric != family) {
      std::string title = t->second;
      if (const auto at = title.find(metric); at != std::string::npos)
        title.replace(at, metric.size(), family);
      out.layout.yTitles.emplace(family, title);
    }
    if (auto b = layout.yBounds.find(metric); b != layout.yBounds.end())
      out.layout.yBounds.emplace(family, b->second);
  }
  if (out.layout.xTitle.empty()) out.layout.xTitle = "the number after the metrics' @";
  auto split = [&](const std::map<std::string, MetricStats>& metrics) {
    std::map<double, std::map<std::string, MetricStats>> byLength;
    for (const auto& family : out.layout.metrics)
      for (const auto& [key, stats] : metrics)
        if (const auto length = memberLength(key, family)) byLength[*length][family] = stats;
    return byLength;
  };
  for (const auto& c : cells)
    for (auto& [length, metrics] : split(c.metrics)) {
      AggregateCell member = c;
      member.axes[kMetricSuffixX] = length;
      member.metrics = std::move(metrics);
      out.cells.push_back(std::move(member));
    }
  if (references) {
    out.references = *references;
    out.references->rows.clear();
    for (const auto& row : references->rows) {
      std::map<double, std::map<std::string, ReferenceValue>> byLength;
      for (const auto& family : out.layout.metrics)
        for (const auto& [key, value] : row.values)
          if (const auto length = memberLength(key, family)) byLength[*length][family] = value;
      for (auto& [length, values] : byLength) {
        ReferenceRow member{row.where, std::move(values)};
        member.where[kMetricSuffixX] = length;
        out.references->rows.push_back(std::move(member));
      }
    }
  }
  return out;
}

}  // namespace

int StudyFigure::seriesCount() const {
  int n = 0;
  for (const auto& p : panels)
    n += static_cast<int>(p.lines.size() + p.baselines.size()) + (p.references.empty() ? 0 : 1);
  return n;
}

std::string StudyFigure::departureCaption() const {
  if (departure.empty() || !hasReferences() || pointsNote.empty()) return departure;
  return departure + " " + pointsNote;
}

std::string paperPointsNote(const std::vector<AggregateCell>& cells) {
  const auto departing = std::count_if(cells.begin(), cells.end(),
                                       [](const AggregateCell& c) { return !c.compared(); });
  if (departing == 0) return "";
  return departing == static_cast<std::ptrdiff_t>(cells.size())
             ? "The paper's points are drawn to read, not compared."
             : "The paper's points beside the departing settings are drawn to read, not compared.";
}

bool StudyFigure::hasReferences() const {
  for (const auto& p : panels)
    if (!p.references.empty()) return true;
  return false;
}

namespace {

// Every axis the layout names is one of the study's; x is named (or is kMetricSuffixX).
void checkLayoutAxes(const FigureLayout& layout, const std::vector<std::string>& axisOrder) {
  auto hasAxis = [&](const std::string& a) {
    return std::find(axisOrder.begin(), axisOrder.end(), a) != axisOrder.end();
  };
  const std::string known = join(axisOrder, ", ");
  const std::string x = layout.x == kMetricSuffixX ? std::string() : layout.x;
  for (const auto& [role, axis] : {std::pair<std::string, std::string>{"--x", x},
                                   {"--group", layout.group},
                                   {"--panel", layout.panel}})
    if (!axis.empty() && !hasAxis(axis))
      throw FigureError(FigureError::Kind::Layout,
                        role + " " + axis + ": not an axis of this study (axes: " + known + ")");
  if (layout.x.empty())
    throw FigureError(FigureError::Kind::Layout, "--x: name the axis to plot against");
  for (const auto& [key, value] : layout.where.items())
    if (!hasAxis(key))
      throw FigureError(FigureError::Kind::Layout,
                        "--where " + key + ": not an axis of this study (axes: " + known + ")");
}

// At least one metric, each held by a finished run among `cells`.
void checkMetrics(const FigureLayout& layout, const std::vector<AggregateCell>& cells) {
  if (layout.metrics.empty())
    throw FigureError(FigureError::Kind::Layout, "--metric: name at least one metric");
  std::set<std::string> present;
  for (const auto& c : cells)
    for (const auto& [m, s] : c.metrics) present.insert(m);
  for (const auto& m : layout.metrics)
    if (!present.count(m))
      throw FigureError(
          FigureError::Kind::NoFinishedRun,
          "--metric " + m + ": no finished run " +
              (layout.where.empty() ? "" : "matching --where ") + "has it" +
              (present.empty() ? ""
                               : " (known: " + join({present.begin(), present.end()}, ", ") + ")"));
}

// The panel axis' values whose cells are all baselines (no x): a linear arm beside the Fourier
// arm's N sweep, panelled by arm. Such a value makes no panel of its own, where its baseline had
// been drawn alone against a 0..1 x axis; its baselines are drawn in every panel, as the paper
// draws its baselines beside each sweep.
std::vector<nlohmann::json> baselineOnlyPanelValues(const std::vector<AggregateCell>& cells,
                                                    const FigureLayout& layout) {
  std::vector<nlohmann::json> withLines, only;
  if (layout.panel.empty()) return only;
  for (const auto& c : cells)
    if (c.axes.contains(layout.panel) && c.axes.contains(layout.x))
      withLines.push_back(c.axes.at(layout.panel));
  if (withLines.empty()) return only;  // nothing but baselines: each value its panel, as before
  for (const auto& c : cells)
    if (c.axes.contains(layout.panel)) {
      const auto& value = c.axes.at(layout.panel);
      if (std::find(withLines.begin(), withLines.end(), value) == withLines.end() &&
          std::find(only.begin(), only.end(), value) == only.end())
        only.push_back(value);
    }
  return only;
}

bool drawnAcrossPanels(const AggregateCell& c, const FigureLayout& layout,
                       const std::vector<nlohmann::json>& baselineOnly) {
  return !layout.panel.empty() && c.axes.contains(layout.panel) &&
         std::find(baselineOnly.begin(), baselineOnly.end(), c.axes.at(layout.panel)) !=
             baselineOnly.end();
}

// Panel rows: the panel axis' values in order of appearance (one null row without a panel
// axis), but those whose baselines are drawn in every panel.
std::vector<nlohmann::json> panelValuesOf(const std::vector<AggregateCell>& cells,
                                          const std::string& panelAxis,
                                          const std::vector<nlohmann::json>& baselineOnly) {
  std::vector<nlohmann::json> values;
  if (!panelAxis.empty())
    for (const auto& c : cells)
      if (c.axes.contains(panelAxis) &&
          std::find(values.begin(), values.end(), c.axes.at(panelAxis)) == values.end() &&
          std::find(baselineOnly.begin(), baselineOnly.end(), c.axes.at(panelAxis)) ==
              baselineOnly.end())
        values.push_back(c.axes.at(panelAxis));
  if (values.empty()) values.push_back(nullptr);
  return values;
}

// Where an x value goes: itself when every x is a number, else its tick's index (ticks in order
// of appearance).
struct XPositions {
  bool numeric = true;
  std::vector<std::string> categories;

  double of(const nlohmann::json& v) const {
    if (numeric) return v.get<double>();
    return static_cast<double>(std::find(categories.begin(), categories.end(), settingText(v)) -
                               categories.begin());
  }
  // Whether `v` has a place: any number on a numeric axis, a trained category on another.
  bool has(const nlohmann::json& v) const {
    if (numeric) return v.is_number();
    return std::find(categories.begin(), categories.end(), settingText(v)) != categories.end();
  }
};

XPositions xPositionsOf(const std::vector<AggregateCell>& cells, const FigureLayout& layout) {
  XPositions x;
  x.numeric = !layout.categoricalX;
  for (const auto& c : cells)
    if (c.axes.contains(layout.x) && !isNumeric(c.axes.at(layout.x))) x.numeric = false;
  if (!x.numeric)
    for (const auto& c : cells)
      if (c.axes.contains(layout.x)) {
        const auto t = settingText(c.axes.at(layout.x));
        if (std::find(x.categories.begin(), x.categories.end(), t) == x.categories.end())
          x.categories.push_back(t);
      }
  return x;
}

// A line is one value of the group axis plus the other axes that still vary (never x, panel
// or the seed): labelled by what sets it apart.
std::vector<std::string> lineAxesOf(const std::vector<AggregateCell>& cells,
                                    const FigureLayout& layout,
                                    const std::vector<std::string>& axisOrder) {
  std::vector<std::string> lineAxes;
  if (!layout.group.empty()) lineAxes.push_back(layout.group);
  for (const auto& axis : axisOrder) {
    if (axis == layout.x || axis == layout.panel || axis == layout.group) continue;
    std::set<std::string> values;
    for (const auto& c : cells)
      if (c.axes.contains(layout.x) && c.axes.contains(axis)) values.insert(c.axes.at(axis).dump());
    if (values.size() > 1) lineAxes.push_back(axis);
  }
  return lineAxes;
}

void sortPointsByX(FigureLine& line) {
  std::vector<size_t> order(line.x.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return line.x[a] < line.x[b]; });
  FigureLine sorted{line.label, {}, {}, {}, {}, {}, line.colorRank};
  for (size_t i : order) {
    sorted.x.push_back(line.x[i]);
    sorted.mean.push_back(line.mean[i]);
    sorted.lower.push_back(line.lower[i]);
    sorted.upper.push_back(line.upper[i]);
    sorted.n.push_back(line.n[i]);
  }
  line = std::move(sorted);
}

// The axes that tell the study's baselines (its cells without x) apart, but the panel's: a
// baseline named by its arm alone had stood for every dataset's, drawn at the first one's value.
std::vector<std::string> baselineAxesOf(const std::vector<AggregateCell>& cells,
                                        const FigureLayout& layout,
                                        const std::vector<std::string>& axisOrder) {
  std::vector<std::string> axes;
  for (const auto& axis : axisOrder) {
    if (axis == layout.x || axis == layout.panel) continue;
    std::set<std::string> values;
    for (const auto& c : cells)
      if (!c.axes.contains(layout.x) && c.axes.contains(axis))
        values.insert(c.axes.at(axis).dump());
    if (values.size() > 1) axes.push_back(axis);
  }
  return axes;
}

// A baseline (a cell without x): named by its arm and the axes that tell baselines apart, else
// by every axis it has but the panel's. One drawn in every panel leads with its panel value
// (an arm's name alone), which no panel title then says.
std::string baselineLabelOf(const AggregateCell& c, const FigureLayout& layout,
                            const std::vector<std::string>& baselineAxes,
                            const std::vector<nlohmann::json>& baselineOnly) {
  const bool across = drawnAcrossPanels(c, layout, baselineOnly);
  std::vector<std::string> parts;
  for (const auto& [axis, value] : c.axes.items())
    if (axis != layout.panel &&
        ((c.arm.empty() && !across) ||
         std::find(baselineAxes.begin(), baselineAxes.end(), axis) != baselineAxes.end()))
      parts.push_back(axis + " = " + settingText(value));
  if (!c.arm.empty()) parts.insert(parts.begin(), c.arm);
  if (across) {
    const std::string value = settingText(c.axes.at(layout.panel));
    parts.insert(parts.begin(), layout.panel == kArmAxis ? value : layout.panel + " = " + value);
  }
  return parts.empty() ? "baseline" : join(parts, ", ");
}

// Each line's and baseline's place among those of the whole study, before --where: what its
// colour follows. A line is known by the values of the axes that tell the study's lines apart.
class ColorRanks {
 public:
  ColorRanks(const std::vector<AggregateCell>& allCells, const FigureLayout& layout,
             const std::vector<std::string>& axisOrder,
             const std::vector<nlohmann::json>& baselineOnly)
      : m_axes(lineAxesOf(allCells, layout, axisOrder)),
        m_baselineAxes(baselineAxesOf(allCells, layout, axisOrder)),
        m_baselineOnly(baselineOnly) {
    for (const auto& c : allCells) {
      auto& ranks = c.axes.contains(layout.x) ? m_lines : m_baselines;
      const std::string key = c.axes.contains(layout.x)
                                  ? lineKey(c.arm, c.axes)
                                  : baselineLabelOf(c, layout, m_baselineAxes, m_baselineOnly);
      ranks.emplace(key, static_cast<int>(ranks.size()));
    }
  }

  int lineRank(const AggregateCell& c) const { return rankIn(m_lines, lineKey(c.arm, c.axes)); }
  // A paper's point: the rank of the line with its settings, or one past every line's.
  int pointRank(const nlohmann::json& where) const { return rankIn(m_lines, lineKey("", where)); }
  int baselineRank(const std::string& label) const { return rankIn(m_baselines, label); }
  // The axes a baseline's label names (baselineAxesOf the whole study, whatever --where keeps).
  const std::vector<std::string>& baselineAxes() const { return m_baselineAxes; }
  // The panel values drawn in every panel (baselineOnlyPanelValues of the whole study).
  const std::vector<nlohmann::json>& baselineOnly() const { return m_baselineOnly; }

 private:
  // As its label: the values of the axes that tell lines apart, else its arm.
  std::string lineKey(const std::string& arm, const nlohmann::json& axes) const {
    std::string key;
    for (const auto& axis : m_axes)
      if (axes.contains(axis)) key += axis + '=' + axes.at(axis).dump() + '\n';
    return key.empty() ? arm : key;
  }
  static int rankIn(const std::map<std::string, int>& ranks, const std::string& key) {
    auto it = ranks.find(key);
    return it == ranks.end() ? static_cast<int>(ranks.size()) : it->second;
  }

  std::vector<std::string> m_axes;
  std::vector<std::string> m_baselineAxes;
  std::vector<nlohmann::json> m_baselineOnly;
  std::map<std::string, int> m_lines;
  std::map<std::string, int> m_baselines;
};

// One panel: a metric for one value of the panel axis (null: every cell).
class PanelBuilder {
 public:
  PanelBuilder(const FigureLayout& layout, const XPositions& x,
               const std::vector<std::string>& lineAxes, const ColorRanks& ranks)
      : m_layout(layout), m_x(x), m_lineAxes(lineAxes), m_ranks(ranks) {}

  FigurePanel build(const std::string& metric, const nlohmann::json& panelValue,
                    const std::vector<AggregateCell>& cells, const StudyReferences* references) {
    FigurePanel panel;
    panel.metric = metric;
    panel.title = panelValue.is_null() ? metric : m_layout.panel + " = " + settingText(panelValue);
    panel.xTitle = m_layout.xTitle.empty() ? m_layout.x : m_layout.xTitle;
    auto yt = m_layout.yTitles.find(metric);
    panel.yTitle = yt == m_layout.yTitles.end() ? metric : yt->second;
    if (auto bounds = m_layout.yBounds.find(metric); bounds != m_layout.yBounds.end())
      std::tie(panel.yFloor, panel.yCeiling) = bounds->second;
    panel.logX = m_layout.logX;
    panel.xCategories = m_x.categories;
    m_lineIndex.clear();
    m_baselineIndex.clear();
    for (const auto& c : cells)
      if (panelValue.is_null() || !c.axes.contains(m_layout.panel) ||
          c.axes.at(m_layout.panel) == panelValue ||
          drawnAcrossPanels(c, m_layout, m_ranks.baselineOnly()))
        addCell(panel, c);
    for (auto& line : panel.lines) sortPointsByX(line);
    if (references) addReferences(panel, panelValue, *references);
    return panel;
  }

 private:
  // The cell's mean (and band) as a point of its line, or as a baseline when it has no x.
  void addCell(FigurePanel& panel, const AggregateCell& c) {
    auto stats = c.metrics.find(panel.metric);
    if (stats == c.metrics.end() || stats->second.n == 0) return;
    const auto [lo, hi] = band(stats->second, m_layout.band);
    if (c.axes.contains(m_layout.x)) {
      std::vector<std::string> parts;
      for (const auto& axis : m_lineAxes)
        if (c.axes.contains(axis)) parts.push_back(axis + " = " + settingText(c.axes.at(axis)));
      std::string label = join(parts, ", ");
      // Without any of the axes that tell lines apart: the cells that do not use them (a linear
      // head in a study over frequencies), said so; its legend read "test/kl".
      if (label.empty() && c.arm.empty() && !m_lineAxes.empty())
        label = join(m_lineAxes, ", ") + " not used";
      if (label.empty()) label = c.arm.empty() ? panel.metric : c.arm;
      auto [it, added] = m_lineIndex.emplace(label, panel.lines.size());
      if (added) panel.lines.push_back(FigureLine{label, {}, {}, {}, {}, {}, m_ranks.lineRank(c)});
      FigureLine& line = panel.lines[it->second];
      line.x.push_back(m_x.of(c.axes.at(m_layout.x)));
      line.mean.push_back(stats->second.mean);
      line.lower.push_back(lo);
      line.upper.push_back(hi);
      line.n.push_back(stats->second.n);
    } else {
      const std::string label =
          baselineLabelOf(c, m_layout, m_ranks.baselineAxes(), m_ranks.baselineOnly());
      auto [it, added] = m_baselineIndex.emplace(label, panel.baselines.size());
      if (!added) return;  // one value per baseline and panel
      panel.baselines.push_back(FigureLine{label,
                                           {},
                                           {stats->second.mean},
                                           {lo},
                                           {hi},
                                           {stats->second.n},
                                           m_ranks.baselineRank(label)});
    }
  }

  // The paper's points of this panel, each with the line it belongs to: the same values of the
  // axes that tell lines apart. Called after the panel's lines are made.
  void addReferences(FigurePanel& panel, const nlohmann::json& panelValue,
                     const StudyReferences& references) {
    for (const auto& row : references.rows) {
      auto value = row.values.find(panel.metric);
      if (value == row.values.end() || !row.where.contains(m_layout.x)) continue;
      // A category the study did not train has no tick (Table 1 on gmm2 alone, drawn against
      // dataset: the paper's gaussian and beta points shared one unlabelled place past gmm2).
      if (!m_x.has(row.where.at(m_layout.x))) continue;
      if (!panelValue.is_null() && row.where.contains(m_layout.panel) &&
          !matches(nlohmann::json{{m_layout.panel, panelValue}}, row.where))
        continue;
      if (!matchesWhereItApplies(m_layout.where, row.where)) continue;
      std::vector<std::string> parts;
      bool complete = true;
      for (const auto& axis : m_lineAxes) {
        if (row.where.contains(axis))
          parts.push_back(axis + " = " + settingText(row.where.at(axis)));
        else
          complete = false;
      }
      // A point of a line the study did not train (Table 1 run on gmm2 alone: the paper's
      // gaussian and beta) would read as trained: left out.
      if (complete && !parts.empty() && !m_lineIndex.count(join(parts, ", "))) continue;
      panel.references.push_back(FigurePoint{"paper", complete ? join(parts, ", ") : "",
                                             m_x.of(row.where.at(m_layout.x)), value->second.mean,
                                             referenceSpread(value->second.std, m_layout.band),
                                             m_ranks.pointRank(row.where)});
    }
  }

  const FigureLayout& m_layout;
  const XPositions& m_x;
  const std::vector<std::string>& m_lineAxes;
  const ColorRanks& m_ranks;
  std::map<std::string, size_t> m_lineIndex;
  std::map<std::string, size_t> m_baselineIndex;
};

}  // namespace

void addMetricAxes(FigureLayout& layout, const std::vector<PanelSpec>& panels) {
  for (const auto& metric : layout.metrics) {
    for (const auto& panel : panels) {
      const bool draws = std::any_of(panel.series.begin(), panel.series.end(), [&](const auto& s) {
        return s == metric ||
               (!s.empty() && s.back() == '*' && metric.rfind(s.substr(0, s.size() - 1), 0) == 0);
      });
      if (!draws) continue;
      if (!panel.yLabel.empty() && !layout.yTitles.count(metric))
        layout.yTitles[metric] = panel.yLabel + " (" + metric + ")";
      const bool bounded = std::isfinite(panel.yFloor) || std::isfinite(panel.yCeiling);
      if (bounded && !layout.yBounds.count(metric))
        layout.yBounds[metric] = {
            std::isfinite(panel.yFloor) ? panel.yFloor : -std::numeric_limits<double>::infinity(),
            std::isfinite(panel.yCeiling) ? panel.yCeiling
                                          : std::numeric_limits<double>::infinity()};
    }
  }
}

namespace {

// "; from fewer seeds: head = fourier at 1500 (1 of 3)": the points whose mean and band rest on
// fewer runs than the figure's others, said under it. A mean of one seed was drawn as one of
// three, without a band and without a word (the table's "1/3" said it; the figure did not).
std::string fewerSeedsNote(const std::vector<FigurePanel>& panels) {
  int most = 0;
  for (const auto& panel : panels)
    for (const auto* lines : {&panel.lines, &panel.baselines})
      for (const auto& line : *lines)
        for (const int n : line.n) most = std::max(most, n);
  std::vector<std::string> fewer;
  for (const auto& panel : panels)
    for (const auto* lines : {&panel.lines, &panel.baselines})
      for (const auto& line : *lines)
        for (size_t i = 0; i < line.n.size(); ++i) {
          if (line.n[i] >= most) continue;
          std::string where;
          if (i < line.x.size()) {
            const double x = line.x[i];
            const auto category = static_cast<size_t>(x);
            where = !panel.xCategories.empty() && category < panel.xCategories.size()
                        ? panel.xCategories[category]
                        : settingText(x);
          }
          fewer.push_back(line.label + (where.empty() ? "" : " at " + where) + " (" +
                          std::to_string(line.n[i]) + " of " + std::to_string(most) + ")");
        }
  if (fewer.empty()) return "";
  constexpr size_t kNamed = 3;
  std::string text = "; from fewer seeds: ";
  for (size_t i = 0; i < fewer.size() && i < kNamed; ++i) text += (i ? ", " : "") + fewer[i];
  if (fewer.size() > kNamed) text += " and " + std::to_string(fewer.size() - kNamed) + " more";
  return text;
}

// The figure against an axis of the cells (the "@" one unrolled makes too).
StudyFigure buildAgainstAxis(const std::vector<AggregateCell>& allCells, const FigureLayout& layout,
                             const StudyReferences* references,
                             const std::vector<std::string>& axisOrder,
                             const std::string& studyTitle) {
  checkLayoutAxes(layout, axisOrder);
  std::vector<AggregateCell> cells;
  for (const auto& c : allCells)
    if (matchesWhereItApplies(layout.where, c.axes)) cells.push_back(c);
  checkMetrics(layout, cells);

  // Of the whole study, as the colours: a --where keeping none of a value's lines does not
  // turn its baselines into a panel of their own.
  const std::vector<nlohmann::json> baselineOnly = baselineOnlyPanelValues(allCells, layout);
  const std::vector<nlohmann::json> panelValues = panelValuesOf(cells, layout.panel, baselineOnly);
  const XPositions x = xPositionsOf(cells, layout);
  const std::vector<std::string> lineAxes = lineAxesOf(cells, layout, axisOrder);
  StudyFigure fig;
  fig.title = layout.title.empty() ? studyTitle + ": " + join(layout.metrics, ", ") + " against " +
                                         (layout.x == kMetricSuffixX ? layout.xTitle : layout.x)
                                   : layout.title;
  fig.bandDescription = describeBand(layout.band, /*bars=*/!x.numeric);
  fig.referencesLegend = describeReferences(layout.band);
  fig.pointsNote = paperPointsNote(cells);
  fig.rows = static_cast<int>(panelValues.size());
  fig.cols = static_cast<int>(layout.metrics.size());
  const ColorRanks ranks(allCells, layout, axisOrder, baselineOnly);
  PanelBuilder panels(layout, x, lineAxes, ranks);
  for (const auto& panelValue : panelValues)
    for (const auto& metric : layout.metrics)
      fig.panels.push_back(panels.build(metric, panelValue, cells, references));
  fig.bandDescription += fewerSeedsNote(fig.panels);
  return fig;
}

// The cells with their arm as an axis like any other, where the layout draws along, by or
// across the arms; their arm then no longer sets lines apart of itself.
std::vector<AggregateCell> withArmAsAxis(const std::vector<AggregateCell>& cells,
                                         const FigureLayout& layout) {
  if (layout.x != kArmAxis && layout.group != kArmAxis && layout.panel != kArmAxis) return cells;
  std::vector<AggregateCell> out = cells;
  for (auto& c : out) {
    c.axes[kArmAxis] = c.arm;
    c.arm.clear();
  }
  return out;
}

}  // namespace

StudyFigure buildStudyFigure(const std::vector<AggregateCell>& givenCells,
                             const FigureLayout& layout, const StudyReferences* references,
                             const std::vector<std::string>& axisOrder,
                             const std::string& studyTitle) {
  // The axes it names first: "--x steps" is not an axis, whatever its metrics are.
  checkLayoutAxes(layout, axisOrder);
  const std::vector<AggregateCell> cells = withArmAsAxis(givenCells, layout);
  if (layout.x == kMetricSuffixX) {
    const Unrolled unrolled = unrollMetricFamilies(cells, layout, references, axisOrder);
    std::vector<std::string> axes = axisOrder;
    axes.push_back(kMetricSuffixX);
    return buildAgainstAxis(unrolled.cells, unrolled.layout,
                            unrolled.references ? &*unrolled.references : nullptr, axes,
                            studyTitle);
  }
  for (const auto& metric : layout.metrics)
    if (isFamily(metric)) {
      std::string member;  // the shortest length's, as an example
      double shortest = std::numeric_limits<double>::infinity();
      for (const auto& c : cells)
        for (const auto& [key, stats] : c.metrics)
          if (const auto length = memberLength(key, metric); length && *length < shortest) {
            shortest = *length;
            member = key;
          }
      // Said without blaming --metric: the metric may be the study's figure's.
      throw FigureError(FigureError::Kind::Layout,
                        metric + " is a metric at each number after its '@' (the length), drawn " +
                            "against that number (--x @); against " + layout.x +
                            ", give --metric with one of them" +
                            (member.empty() ? "" : " (" + member + ")"));
    }
  return buildAgainstAxis(cells, layout, references, axisOrder, studyTitle);
}

}  // namespace fl::study
