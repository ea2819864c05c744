#include "core/study/study_figure.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <stdexcept>

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

std::string describeBand(const std::string& kind) {
  if (kind == "half") return "band: mean ± 0.67 std over seeds (the paper's 50% interval)";
  if (kind == "std") return "band: mean ± 1 std over seeds";
  if (kind == "minmax") return "band: min to max over seeds";
  return "no band";
}

bool isNumeric(const nlohmann::json& v) { return v.is_number(); }

}  // namespace

int StudyFigure::seriesCount() const {
  int n = 0;
  for (const auto& p : panels)
    n += static_cast<int>(p.lines.size() + p.baselines.size()) + (p.references.empty() ? 0 : 1);
  return n;
}

StudyFigure buildStudyFigure(const std::vector<AggregateCell>& allCells, const FigureLayout& layout,
                             const StudyReferences* references,
                             const std::vector<std::string>& axisOrder,
                             const std::string& studyTitle) {
  auto hasAxis = [&](const std::string& a) {
    return std::find(axisOrder.begin(), axisOrder.end(), a) != axisOrder.end();
  };
  const std::string known = join(axisOrder, ", ");
  for (const auto& [role, axis] : {std::pair<std::string, std::string>{"--x", layout.x},
                                   {"--group", layout.group},
                                   {"--panel", layout.panel}})
    if (!axis.empty() && !hasAxis(axis))
      throw std::invalid_argument(role + " " + axis +
                                  ": not an axis of this study (axes: " + known + ")");
  if (layout.x.empty()) throw std::invalid_argument("--x: name the axis to plot against");
  for (const auto& [key, value] : layout.where.items())
    if (!hasAxis(key))
      throw std::invalid_argument("--where " + key + ": not an axis of this study (axes: " + known +
                                  ")");

  std::vector<AggregateCell> cells;
  for (const auto& c : allCells)
    if (matches(layout.where, c.axes)) cells.push_back(c);

  std::vector<std::string> metrics = layout.metrics;
  if (metrics.empty()) throw std::invalid_argument("--metric: name at least one metric");
  std::set<std::string> present;
  for (const auto& c : cells)
    for (const auto& [m, s] : c.metrics) present.insert(m);
  for (const auto& m : metrics)
    if (!present.count(m))
      throw std::invalid_argument(
          "--metric " + m + ": no finished run " +
          (layout.where.empty() ? "" : "matching --where ") + "has it" +
          (present.empty() ? ""
                           : " (known: " + join({present.begin(), present.end()}, ", ") + ")"));

  // Panel rows: the panel axis' values in order of appearance.
  std::vector<nlohmann::json> panelValues;
  if (!layout.panel.empty()) {
    for (const auto& c : cells)
      if (c.axes.contains(layout.panel) && std::find(panelValues.begin(), panelValues.end(),
                                                     c.axes.at(layout.panel)) == panelValues.end())
        panelValues.push_back(c.axes.at(layout.panel));
  }
  if (panelValues.empty()) panelValues.push_back(nullptr);

  // Categorical x: tick labels in order of appearance.
  std::vector<std::string> categories;
  bool numericX = !layout.categoricalX;
  for (const auto& c : cells)
    if (c.axes.contains(layout.x) && !isNumeric(c.axes.at(layout.x))) numericX = false;
  if (!numericX)
    for (const auto& c : cells)
      if (c.axes.contains(layout.x)) {
        const auto t = valueText(c.axes.at(layout.x));
        if (std::find(categories.begin(), categories.end(), t) == categories.end())
          categories.push_back(t);
      }
  auto xOf = [&](const nlohmann::json& v) {
    if (numericX) return v.get<double>();
    return static_cast<double>(std::find(categories.begin(), categories.end(), valueText(v)) -
                               categories.begin());
  };

  // A line is one value of the group axis plus the other axes that still vary (never x, panel
  // or the seed): labelled by what sets it apart.
  std::vector<std::string> lineAxes;
  if (!layout.group.empty()) lineAxes.push_back(layout.group);
  for (const auto& axis : axisOrder) {
    if (axis == layout.x || axis == layout.panel || axis == layout.group) continue;
    std::set<std::string> values;
    for (const auto& c : cells)
      if (c.axes.contains(layout.x) && c.axes.contains(axis)) values.insert(c.axes.at(axis).dump());
    if (values.size() > 1) lineAxes.push_back(axis);
  }

  StudyFigure fig;
  fig.title = layout.title.empty()
                  ? studyTitle + ": " + join(metrics, ", ") + " against " + layout.x
                  : layout.title;
  fig.bandDescription = describeBand(layout.band);
  fig.rows = static_cast<int>(panelValues.size());
  fig.cols = static_cast<int>(metrics.size());
  for (const auto& panelValue : panelValues) {
    for (const auto& metric : metrics) {
      FigurePanel panel;
      panel.metric = metric;
      panel.title = panelValue.is_null() ? metric : layout.panel + " = " + valueText(panelValue);
      panel.xTitle = layout.xTitle.empty() ? layout.x : layout.xTitle;
      auto yt = layout.yTitles.find(metric);
      panel.yTitle = yt == layout.yTitles.end() ? metric : yt->second;
      panel.logX = layout.logX;
      panel.xCategories = categories;
      auto inPanel = [&](const AggregateCell& c) {
        return panelValue.is_null() || !c.axes.contains(layout.panel) ||
               c.axes.at(layout.panel) == panelValue;
      };
      std::map<std::string, size_t> lineIndex;
      std::map<std::string, size_t> baselineIndex;
      for (const auto& c : cells) {
        if (!inPanel(c)) continue;
        auto stats = c.metrics.find(metric);
        if (stats == c.metrics.end() || stats->second.n == 0) continue;
        const auto [lo, hi] = band(stats->second, layout.band);
        if (c.axes.contains(layout.x)) {
          std::vector<std::string> parts;
          for (const auto& axis : lineAxes)
            if (c.axes.contains(axis)) parts.push_back(axis + " = " + valueText(c.axes.at(axis)));
          std::string label = join(parts, ", ");
          if (label.empty()) label = c.arm.empty() ? metric : c.arm;
          auto [it, added] = lineIndex.emplace(label, panel.lines.size());
          if (added) panel.lines.push_back(FigureLine{label, {}, {}, {}, {}, {}});
          FigureLine& line = panel.lines[it->second];
          line.x.push_back(xOf(c.axes.at(layout.x)));
          line.mean.push_back(stats->second.mean);
          line.lower.push_back(lo);
          line.upper.push_back(hi);
          line.n.push_back(stats->second.n);
        } else {
          // A baseline: named by its arm, else by the axes it has that lines do not share.
          std::vector<std::string> parts;
          for (const auto& [axis, value] : c.axes.items())
            if (axis != layout.panel) parts.push_back(axis + " = " + valueText(value));
          std::string label = c.arm.empty() ? join(parts, ", ") : c.arm;
          if (label.empty()) label = "baseline";
          auto [it, added] = baselineIndex.emplace(label, panel.baselines.size());
          if (!added) continue;  // one value per baseline and panel
          panel.baselines.push_back(
              FigureLine{label, {}, {stats->second.mean}, {lo}, {hi}, {stats->second.n}});
        }
      }
      for (auto& line : panel.lines) {
        // Sort the points by x.
        std::vector<size_t> order(line.x.size());
        for (size_t i = 0; i < order.size(); ++i) order[i] = i;
        std::sort(order.begin(), order.end(),
                  [&](size_t a, size_t b) { return line.x[a] < line.x[b]; });
        FigureLine sorted{line.label, {}, {}, {}, {}, {}};
        for (size_t i : order) {
          sorted.x.push_back(line.x[i]);
          sorted.mean.push_back(line.mean[i]);
          sorted.lower.push_back(line.lower[i]);
          sorted.upper.push_back(line.upper[i]);
          sorted.n.push_back(line.n[i]);
        }
        line = std::move(sorted);
      }
      if (references) {
        for (const auto& row : references->rows) {
          auto value = row.values.find(metric);
          if (value == row.values.end() || !row.where.contains(layout.x)) continue;
          if (!panelValue.is_null() && row.where.contains(layout.panel) &&
              !matches(nlohmann::json{{layout.panel, panelValue}}, row.where))
            continue;
          if (!matches(layout.where, row.where)) continue;
          // The line it belongs to: the same values of the axes that tell lines apart.
          std::vector<std::string> parts;
          bool complete = true;
          for (const auto& axis : lineAxes) {
            if (row.where.contains(axis))
              parts.push_back(axis + " = " + valueText(row.where.at(axis)));
            else
              complete = false;
          }
          panel.references.push_back(FigurePoint{"paper", complete ? join(parts, ", ") : "",
                                                 xOf(row.where.at(layout.x)), value->second.mean,
                                                 value->second.std});
        }
      }
      fig.panels.push_back(std::move(panel));
    }
  }
  return fig;
}

}  // namespace fl::study
