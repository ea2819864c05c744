#include "core/engine/study_spec.h"

#include <algorithm>
#include <initializer_list>
#include <limits>
#include <stdexcept>

#include "core/engine/strict_json.h"

namespace fl::study {

namespace {

using ojson = nlohmann::ordered_json;

[[noreturn]] void fail(const std::string& where, const std::string& problem) {
  throw std::invalid_argument(where + ": " + problem);
}

// ordered_json and json hold the same values; the config side uses json.
nlohmann::json plain(const ojson& j) { return nlohmann::json::parse(j.dump()); }
ojson ordered(const nlohmann::json& j) { return ojson::parse(j.dump()); }

// Refuses a field the object's parser does not read: a misspelt "sett" in an arm had been
// dropped without a word, the arm then trained as another and its results named after it.
// `at` is the object's place ("arms[1]"; empty at the top), `known` its fields in order.
void refuseUnknownFields(const ojson& j, const std::string& at,
                         std::initializer_list<const char*> known) {
  for (const auto& item : j.items()) {
    const std::string& key = item.key();  // not a structured binding: clang 14 cannot capture one
    if (std::any_of(known.begin(), known.end(), [&](const char* k) { return key == k; })) continue;
    std::string list;
    for (const char* k : known) list += (list.empty() ? "" : ", ") + std::string(k);
    fail(at.empty() ? key : at + "." + key, "unknown field (known: " + list + ")");
  }
}

std::string textField(const ojson& j, const char* key, const std::string& where) {
  if (!j.contains(key)) return "";
  if (!j[key].is_string()) fail(where + key, "must be a string");
  return j[key].get<std::string>();
}

std::vector<Axis> parseAxes(const ojson& j, const std::string& where) {
  if (!j.is_object()) fail(where, "must be an object of KEY: [values]");
  std::vector<Axis> axes;
  for (const auto& [key, values] : j.items()) {
    if (!values.is_array() || values.empty())
      fail(where + "." + key, "must be a non-empty array of values");
    Axis axis{key, {}};
    for (const auto& v : values) axis.values.push_back(plain(v));
    axes.push_back(std::move(axis));
  }
  return axes;
}

std::vector<ZipGroup> parseZips(const ojson& j, const std::string& where) {
  if (!j.is_array()) fail(where, "must be an array of {KEY: [values], KEY2: [values]}");
  std::vector<ZipGroup> zips;
  for (size_t i = 0; i < j.size(); ++i) {
    const std::string at = where + "[" + std::to_string(i) + "]";
    ZipGroup group{parseAxes(j[i], at)};
    for (const auto& axis : group.axes)
      if (axis.values.size() != group.axes.front().values.size())
        fail(at, "zipped axes need equal lengths ('" + group.axes.front().key + "' has " +
                     std::to_string(group.axes.front().values.size()) + " values, '" + axis.key +
                     "' " + std::to_string(axis.values.size()) + ")");
    zips.push_back(std::move(group));
  }
  return zips;
}

nlohmann::json parseOverrides(const ojson& j, const std::string& where) {
  if (!j.is_object()) fail(where, "must be an object of KEY: value");
  return plain(j);
}

ReferenceValue parseReferenceValue(const ojson& j, const std::string& where) {
  // [mean, std] or [mean, null] or a bare mean.
  if (j.is_number()) return {j.get<double>(), std::nullopt, std::nullopt};
  if (!j.is_array() || j.empty() || j.size() > 2 || !j[0].is_number() ||
      (j.size() == 2 && !j[1].is_number() && !j[1].is_null()))
    fail(where, "must be [mean, std], [mean, null] or a number");
  ReferenceValue v{j[0].get<double>(), std::nullopt, std::nullopt};
  if (j.size() == 2 && j[1].is_number()) v.std = j[1].get<double>();
  // A spread is not negative: one was judged as "1.200 ± -5.000 DIFFERS". (The values are
  // finite: the parser refuses a number beyond a double.)
  if (v.std && *v.std < 0)
    fail(where, "must be [mean, std] with a finite mean and a std >= 0 (or null)");
  return v;
}

StudyReferences parseReferences(const ojson& j) {
  if (!j.is_object()) fail("references", "must be an object");
  refuseUnknownFields(j, "references", {"source", "stat", "seeds", "rows"});
  StudyReferences r;
  r.source = textField(j, "source", "references.");
  r.stat = j.contains("stat") ? textField(j, "stat", "references.") : "last";
  if (r.stat != "last" && r.stat != "min") fail("references.stat", "must be \"last\" or \"min\"");
  if (j.contains("seeds")) {
    if (!j["seeds"].is_number_integer() || j["seeds"].get<int64_t>() < 1 ||
        j["seeds"].get<int64_t>() > 100000)
      fail("references.seeds", "must be the paper's number of seeds (a whole number >= 1)");
    r.seeds = j["seeds"].get<int>();
  }
  if (!j.contains("rows") || !j["rows"].is_array()) fail("references.rows", "must be an array");
  for (size_t i = 0; i < j["rows"].size(); ++i) {
    const auto& row = j["rows"][i];
    const std::string at = "references.rows[" + std::to_string(i) + "]";
    if (!row.is_object() || !row.contains("values") || !row["values"].is_object())
      fail(at, "needs \"where\" and \"values\" objects");
    refuseUnknownFields(row, at, {"where", "values"});
    ReferenceRow out;
    if (row.contains("where")) out.where = parseOverrides(row["where"], at + ".where");
    for (const auto& [metric, value] : row["values"].items())
      out.values[metric] = parseReferenceValue(value, at + ".values." + metric);
    for (auto& [metric, value] : out.values) value.seeds = r.seeds;
    r.rows.push_back(std::move(out));
  }
  return r;
}

std::vector<StudyClaim> parseClaims(const ojson& j) {
  if (!j.is_array()) fail("claims", "must be an array");
  std::vector<StudyClaim> claims;
  for (size_t i = 0; i < j.size(); ++i) {
    const std::string at = "claims[" + std::to_string(i) + "]";
    const auto& c = j[i];
    if (!c.is_object()) fail(at, "must be an object");
    refuseUnknownFields(c, at,
                        {"text", "metric", "over", "b_metric", "better", "within", "a", "b"});
    StudyClaim claim;
    claim.text = textField(c, "text", at + ".");
    claim.metric = textField(c, "metric", at + ".");
    claim.over = textField(c, "over", at + ".");
    claim.better = textField(c, "better", at + ".");
    if (claim.text.empty() || claim.metric.empty()) fail(at, "needs a \"text\" and a \"metric\"");
    claim.bMetric = textField(c, "b_metric", at + ".");
    if (claim.better != "lower" && claim.better != "higher" && claim.better != "similar")
      fail(at + ".better", "must be \"lower\", \"higher\" or \"similar\"");
    // Said as what is wrong: a missing tolerance had read as one given where it may not be.
    if (claim.better == "similar" && !c.contains("within"))
      fail(at + ".within",
           "is missing: \"better\": \"similar\" needs the largest difference "
           "that still counts as similar (\"within\": 0.05)");
    if (claim.better != "similar" && c.contains("within"))
      fail(at + ".within", "goes with \"better\": \"similar\" only");
    if (c.contains("within")) {
      if (!c["within"].is_number() || !(c["within"].get<double>() > 0))
        fail(at + ".within", "must be a number above 0 (the largest difference claimed)");
      claim.within = c["within"].get<double>();
    }
    if (!c.contains("a") || !c.contains("b")) fail(at, "needs \"a\" and \"b\" settings");
    claim.a = parseOverrides(c["a"], at + ".a");
    claim.b = parseOverrides(c["b"], at + ".b");
    // The same runs' same quantity on both sides: its difference is 0 whatever they gave.
    if (claim.a == claim.b && claim.metricOfB() == claim.metric)
      fail(at,
           "its sides \"a\" and \"b\" pick the same runs and metric: nothing to compare "
           "(name what sets them apart, or give \"b_metric\")");
    claims.push_back(std::move(claim));
  }
  return claims;
}

std::vector<std::string> stringList(const ojson& j, const std::string& where) {
  if (!j.is_array()) fail(where, "must be an array of strings");
  std::vector<std::string> out;
  for (const auto& v : j) {
    if (!v.is_string()) fail(where, "must be an array of strings");
    out.push_back(v.get<std::string>());
  }
  return out;
}

FigureLayout parseFigure(const ojson& j, const std::string& at) {
  if (!j.is_object()) fail(at, "must be an object");
  refuseUnknownFields(j, at,
                      {"name", "title", "x", "metrics", "group", "panel", "band", "x_title",
                       "y_titles", "log_x", "x_categorical", "where"});
  FigureLayout f;
  f.name = textField(j, "name", at + ".");
  f.title = textField(j, "title", at + ".");
  f.x = textField(j, "x", at + ".");
  if (f.x.empty()) fail(at + ".x", "names the axis on the horizontal axis");
  if (j.contains("metrics")) f.metrics = stringList(j["metrics"], at + ".metrics");
  f.group = textField(j, "group", at + ".");
  f.panel = textField(j, "panel", at + ".");
  if (j.contains("band")) f.band = textField(j, "band", at + ".");
  if (f.band != "std" && f.band != "half" && f.band != "minmax" && f.band != "none")
    fail(at + ".band", "must be std, half, minmax or none");
  f.xTitle = textField(j, "x_title", at + ".");
  if (j.contains("y_titles")) {
    if (!j["y_titles"].is_object()) fail(at + ".y_titles", "must be an object");
    for (const auto& [metric, title] : j["y_titles"].items()) {
      if (!title.is_string()) fail(at + ".y_titles." + metric, "must be a string");
      f.yTitles[metric] = title.get<std::string>();
    }
  }
  if (j.contains("log_x")) {
    if (!j["log_x"].is_boolean()) fail(at + ".log_x", "must be true or false");
    f.logX = j["log_x"].get<bool>();
  }
  if (j.contains("x_categorical")) {
    if (!j["x_categorical"].is_boolean()) fail(at + ".x_categorical", "must be true or false");
    f.categoricalX = j["x_categorical"].get<bool>();
  }
  if (j.contains("where")) f.where = parseOverrides(j["where"], at + ".where");
  return f;
}

ojson axesToJson(const std::vector<Axis>& axes) {
  ojson j = ojson::object();
  for (const auto& a : axes) {
    ojson values = ojson::array();
    for (const auto& v : a.values) values.push_back(ordered(v));
    j[a.key] = values;
  }
  return j;
}

ojson zipsToJson(const std::vector<ZipGroup>& zips) {
  ojson j = ojson::array();
  for (const auto& z : zips) j.push_back(axesToJson(z.axes));
  return j;
}

uint64_t saturatingMultiply(uint64_t a, uint64_t b) {
  if (a != 0 && b > std::numeric_limits<uint64_t>::max() / a)
    return std::numeric_limits<uint64_t>::max();
  return a * b;
}

uint64_t settings(const std::vector<Axis>& grid, const std::vector<ZipGroup>& zips) {
  uint64_t n = 1;
  for (const auto& a : grid) n = saturatingMultiply(n, a.values.size());
  for (const auto& z : zips)
    n = saturatingMultiply(n, z.axes.empty() ? 1 : z.axes[0].values.size());
  return n;
}

}  // namespace

StudySpec StudySpec::fromJson(const ojson& j) {
  if (!j.is_object()) fail("study", "must be a JSON object");
  refuseUnknownFields(j, "",
                      {"name", "title", "description", "experiment", "preset", "set", "grid", "zip",
                       "arms", "seeds", "references", "claims", "table", "figures"});
  StudySpec s;
  s.name = textField(j, "name", "");
  s.title = textField(j, "title", "");
  s.description = textField(j, "description", "");
  s.experiment = textField(j, "experiment", "");
  s.preset = textField(j, "preset", "");
  if (j.contains("set")) s.overrides = parseOverrides(j["set"], "set");
  if (j.contains("grid")) s.grid = parseAxes(j["grid"], "grid");
  if (j.contains("zip")) s.zips = parseZips(j["zip"], "zip");
  if (j.contains("arms")) {
    if (!j["arms"].is_array() || j["arms"].empty()) fail("arms", "must be a non-empty array");
    for (size_t i = 0; i < j["arms"].size(); ++i) {
      const auto& a = j["arms"][i];
      const std::string at = "arms[" + std::to_string(i) + "]";
      if (!a.is_object()) fail(at, "must be an object");
      refuseUnknownFields(a, at, {"name", "set", "grid", "zip"});
      StudyArm arm;
      arm.name = textField(a, "name", at + ".");
      if (arm.name.empty()) arm.name = "arm " + std::to_string(i + 1);
      // Tables, figures and exports tell arms by name: two of one name were pooled as seeds of
      // one setting (a Fourier and a linear head averaged into one row).
      for (const auto& earlier : s.arms)
        if (earlier.name == arm.name)
          fail(at + ".name",
               "\"" + arm.name + "\" is the name of an earlier arm; give each arm its own");
      if (a.contains("set")) arm.overrides = parseOverrides(a["set"], at + ".set");
      if (a.contains("grid")) arm.grid = parseAxes(a["grid"], at + ".grid");
      if (a.contains("zip")) arm.zips = parseZips(a["zip"], at + ".zip");
      s.arms.push_back(std::move(arm));
    }
  }
  if (j.contains("seeds")) {
    if (!j["seeds"].is_array() || j["seeds"].empty()) fail("seeds", "must be a non-empty array");
    for (const auto& seed : j["seeds"]) {
      if (!seed.is_number_integer() || seed.get<int64_t>() < 0)
        fail("seeds", "must hold non-negative integers, got " + seed.dump());
      // Silently one run per cell fewer than the file seemed to ask for otherwise.
      if (std::find(s.seeds.begin(), s.seeds.end(), seed.get<int64_t>()) != s.seeds.end())
        fail("seeds", seed.dump() + " is given twice (each seed is trained once; list it once)");
      s.seeds.push_back(seed.get<int64_t>());
    }
  }
  if (j.contains("references")) s.references = parseReferences(j["references"]);
  if (j.contains("claims")) s.claims = parseClaims(j["claims"]);
  if (j.contains("table")) {
    const auto& t = j["table"];
    if (!t.is_object()) fail("table", "must be an object");
    refuseUnknownFields(t, "table", {"rows", "cols", "metrics"});
    TableLayout layout;
    layout.rows = textField(t, "rows", "table.");
    layout.cols = textField(t, "cols", "table.");
    if (t.contains("metrics")) layout.metrics = stringList(t["metrics"], "table.metrics");
    s.table = layout;
  }
  if (j.contains("figures")) {
    if (!j["figures"].is_array()) fail("figures", "must be an array");
    for (size_t i = 0; i < j["figures"].size(); ++i)
      s.figures.push_back(parseFigure(j["figures"][i], "figures[" + std::to_string(i) + "]"));
  }
  return s;
}

StudySpec StudySpec::fromText(const std::string& jsonText) {
  return fromJson(parseStrictJson<ojson>(jsonText));
}

ojson StudySpec::toJson() const {
  ojson j = ojson::object();
  j["name"] = name;
  if (!title.empty()) j["title"] = title;
  if (!description.empty()) j["description"] = description;
  j["experiment"] = experiment;
  if (!preset.empty()) j["preset"] = preset;
  if (!overrides.empty()) j["set"] = ordered(overrides);
  if (!grid.empty()) j["grid"] = axesToJson(grid);
  if (!zips.empty()) j["zip"] = zipsToJson(zips);
  if (!arms.empty()) {
    j["arms"] = ojson::array();
    for (const auto& a : arms) {
      ojson arm = {{"name", a.name}};
      if (!a.overrides.empty()) arm["set"] = ordered(a.overrides);
      if (!a.grid.empty()) arm["grid"] = axesToJson(a.grid);
      if (!a.zips.empty()) arm["zip"] = zipsToJson(a.zips);
      j["arms"].push_back(arm);
    }
  }
  if (!seeds.empty()) j["seeds"] = seeds;
  if (references) {
    ojson rows = ojson::array();
    for (const auto& r : references->rows) {
      ojson values = ojson::object();
      for (const auto& [metric, v] : r.values)
        values[metric] = {v.mean, v.std ? ojson(*v.std) : ojson()};
      rows.push_back({{"where", ordered(r.where)}, {"values", values}});
    }
    j["references"] = {{"source", references->source}, {"stat", references->stat}};
    if (references->seeds) j["references"]["seeds"] = *references->seeds;
    j["references"]["rows"] = rows;
  }
  if (!claims.empty()) {
    j["claims"] = ojson::array();
    for (const auto& c : claims) {
      ojson claim = {{"text", c.text}, {"metric", c.metric}};
      if (!c.over.empty()) claim["over"] = c.over;
      if (!c.bMetric.empty()) claim["b_metric"] = c.bMetric;
      claim["better"] = c.better;
      if (c.better == "similar") claim["within"] = c.within;
      claim["a"] = ordered(c.a);
      claim["b"] = ordered(c.b);
      j["claims"].push_back(claim);
    }
  }
  if (table) {
    ojson t = ojson::object();
    if (!table->rows.empty()) t["rows"] = table->rows;
    if (!table->cols.empty()) t["cols"] = table->cols;
    if (!table->metrics.empty()) t["metrics"] = table->metrics;
    j["table"] = t;
  }
  if (!figures.empty()) {
    j["figures"] = ojson::array();
    for (const auto& f : figures) {
      ojson fig = {{"x", f.x}};
      if (!f.name.empty()) fig["name"] = f.name;
      if (!f.title.empty()) fig["title"] = f.title;
      if (!f.metrics.empty()) fig["metrics"] = f.metrics;
      if (!f.group.empty()) fig["group"] = f.group;
      if (!f.panel.empty()) fig["panel"] = f.panel;
      fig["band"] = f.band;
      if (!f.xTitle.empty()) fig["x_title"] = f.xTitle;
      if (!f.yTitles.empty()) fig["y_titles"] = f.yTitles;
      if (f.logX) fig["log_x"] = true;
      if (f.categoricalX) fig["x_categorical"] = true;
      if (!f.where.empty()) fig["where"] = ordered(f.where);
      j["figures"].push_back(fig);
    }
  }
  return j;
}

std::string settingsText(const StudySpec& spec) {
  std::vector<std::string> parts;
  if (!spec.preset.empty()) parts.push_back("preset " + spec.preset);
  std::string set;
  for (const auto& [key, value] : spec.overrides.items())
    set += (set.empty() ? "" : " ") + key + "=" +
           (value.is_string() ? value.get<std::string>() : value.dump());
  if (!set.empty()) parts.push_back(set);
  // What it varies, as --grid and --zip take it.
  const auto axisText = [](const Axis& axis) {
    std::string text = axis.key + "=";
    for (size_t i = 0; i < axis.values.size(); ++i)
      text += (i ? "," : "") + (axis.values[i].is_string() ? axis.values[i].get<std::string>()
                                                           : axis.values[i].dump());
    return text;
  };
  std::string grid;
  for (const auto& axis : spec.grid) grid += (grid.empty() ? "grid " : " ") + axisText(axis);
  if (!grid.empty()) parts.push_back(grid);
  for (const auto& zip : spec.zips) {
    std::string zipped = "zip";
    for (const auto& axis : zip.axes) zipped += " " + axisText(axis);
    parts.push_back(zipped);
  }
  if (!spec.arms.empty()) {
    std::string arms = "arms ";
    for (size_t i = 0; i < spec.arms.size(); ++i) arms += (i ? ", " : "") + spec.arms[i].name;
    parts.push_back(arms);
  }
  if (!spec.seeds.empty()) {
    std::string seeds = "seeds ";
    for (size_t i = 0; i < spec.seeds.size(); ++i)
      seeds += (i ? ", " : "") + std::to_string(spec.seeds[i]);
    parts.push_back(seeds);
  }
  std::string out;
  for (const auto& part : parts) out += (out.empty() ? "" : ", ") + part;
  return out;
}

uint64_t countRuns(const StudySpec& spec) {
  const uint64_t base = settings(spec.grid, spec.zips);
  uint64_t total = 0;
  if (spec.arms.empty()) {
    total = base;
  } else {
    for (const auto& arm : spec.arms) {
      const uint64_t n = saturatingMultiply(base, settings(arm.grid, arm.zips));
      total = n > std::numeric_limits<uint64_t>::max() - total
                  ? std::numeric_limits<uint64_t>::max()
                  : total + n;
    }
  }
  return saturatingMultiply(total, spec.seeds.empty() ? 1 : spec.seeds.size());
}

}  // namespace fl::study
