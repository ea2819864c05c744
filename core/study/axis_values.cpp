#include "core/study/axis_values.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <set>

#include "core/engine/config.h"

namespace fl::study {

namespace {

std::vector<std::string> splitCommas(const std::string& text) {
  std::vector<std::string> parts;
  std::string current;
  for (char c : text) {
    if (c == ',') {
      parts.push_back(current);
      current.clear();
    } else {
      current += c;
    }
  }
  parts.push_back(current);
  for (auto& p : parts) {
    const auto begin = p.find_first_not_of(" \t");
    const auto end = p.find_last_not_of(" \t");
    p = begin == std::string::npos ? "" : p.substr(begin, end - begin + 1);
  }
  return parts;
}

constexpr size_t kMaxRangeValues = 100000;

// A range's value as the researcher would have typed it: 0 + 3 x 0.1 is 0.30000000000000004 in
// binary, which named the setting in tables and hashed apart from a run of 0.3 typed by hand.
// 15 significant digits hold every decimal a double can, and drop the last bits of error.
double withoutRoundingError(double v) {
  char text[32];
  std::snprintf(text, sizeof text, "%.15g", v);
  const double rounded = std::strtod(text, nullptr);
  return rounded == 0 ? 0.0 : rounded;
}

}  // namespace

AxisParse parseAxisValues(const ParamSpec& spec, const std::string& text, bool repeats) {
  AxisParse out;
  const auto parts = splitCommas(text);
  const std::string where = "'" + spec.name + "'";
  if (text.find_first_not_of(" \t") == std::string::npos) {
    out.error = where + " has no values (give KEY=V1,V2,...)";
    return out;
  }
  for (size_t i = 0; i < parts.size(); ++i) {
    if (parts[i] == "...") {
      const bool numeric = spec.type == ParamType::Int || spec.type == ParamType::Float;
      if (!numeric || i != 2 || parts.size() != 4) {
        out.error =
            where + ": a range is written FIRST,SECOND,...,LAST (numbers only), got '" + text + "'";
        return out;
      }
      continue;
    }
    if (parts[i].empty()) {
      out.error = where + ": an empty value in '" + text + "'";
      return out;
    }
    ParsedValue parsed = parseValue(spec, parts[i]);
    if (parsed.error) {
      out.error = *parsed.error;
      return out;
    }
    out.values.push_back(parsed.value);
  }
  if (parts.size() == 4 && parts[2] == "...") {
    const double first = out.values[0].get<double>();
    const double step = out.values[1].get<double>() - first;
    const double last = out.values[2].get<double>();
    if (step == 0) {
      // Said as what it is: "does not reach 0.3 in steps of 0.0" read as a rounding matter.
      out.error = where + ": the range '" + text +
                  "' has no step: its first two values are equal (a range steps by SECOND - "
                  "FIRST)";
      return out;
    }
    const double count = (last - first) / step;
    if (!(count >= 1) || std::abs(count - std::round(count)) > 1e-9 * std::max(1.0, count) ||
        count + 1 > kMaxRangeValues) {
      // The step as typed (0.1), not its binary remainder (0.09999999999999998).
      out.error = where + ": the range '" + text + "' does not reach " + parts[3] +
                  " in steps of " + nlohmann::json(withoutRoundingError(step)).dump();
      return out;
    }
    out.values.clear();
    const auto n = static_cast<size_t>(std::llround(count)) + 1;
    for (size_t k = 0; k < n; ++k) {
      const double v = withoutRoundingError(first + step * static_cast<double>(k));
      out.values.push_back(spec.type == ParamType::Int ? nlohmann::json(std::llround(v))
                                                       : nlohmann::json(v));
      if (auto problem = checkValue(spec, out.values.back())) {
        out.error = *problem;
        return out;
      }
    }
  }
  // A value given twice would be one setting trained once, silently: refused instead.
  std::set<std::string> seen;
  if (!repeats)
    for (const auto& v : out.values)
      if (!seen.insert(v.dump()).second) {
        out.error = where + ": the value " + v.dump() +
                    " is given twice (each setting is trained once; list it once)";
        out.values.clear();
        return out;
      }
  return out;
}

AxisAssignment parseAxisAssignment(const std::vector<ParamSpec>& specs, const std::string& text,
                                   bool repeats) {
  AxisAssignment out;
  const auto eq = text.find('=');
  if (eq == std::string::npos || eq == 0) {
    out.error = "expected KEY=V1,V2,..., got '" + text + "'";
    return out;
  }
  out.axis.key = text.substr(0, eq);
  const ParamSpec* spec = findParam(specs, out.axis.key);
  if (!spec) {
    std::string known;
    for (const auto& s : specs) known += (known.empty() ? "" : ", ") + s.name;
    out.error = "unknown parameter '" + out.axis.key + "' (known: " + known + ")";
    return out;
  }
  AxisParse values = parseAxisValues(*spec, text.substr(eq + 1), repeats);
  out.error = values.error;
  out.axis.values = std::move(values.values);
  return out;
}

ZipAssignment parseZipAssignment(const std::vector<ParamSpec>& specs, const std::string& text) {
  ZipAssignment out;
  // Split at each "KEY=": a new key starts where a comma-separated part holds '='.
  std::vector<std::string> pieces;
  std::string current;
  for (const auto& part : splitCommas(text)) {
    if (part.find('=') != std::string::npos && !current.empty()) {
      pieces.push_back(current);
      current.clear();
    }
    current += (current.empty() ? "" : ",") + part;
  }
  if (!current.empty()) pieces.push_back(current);
  for (const auto& piece : pieces) {
    AxisAssignment axis = parseAxisAssignment(specs, piece, /*repeats=*/true);
    if (axis.error) {
      out.error = "--zip: " + *axis.error;
      return out;
    }
    out.zip.axes.push_back(std::move(axis.axis));
  }
  if (out.zip.axes.size() < 2) {
    out.error = "--zip needs two or more keys that vary together (KEY=V1,V2,KEY2=W1,W2), got '" +
                text + "'";
    return out;
  }
  for (const auto& axis : out.zip.axes)
    if (axis.values.size() != out.zip.axes.front().values.size()) {
      out.error = "--zip: '" + out.zip.axes.front().key + "' has " +
                  std::to_string(out.zip.axes.front().values.size()) + " values but '" + axis.key +
                  "' has " + std::to_string(axis.values.size()) +
                  " (zipped keys need equal lengths)";
      return out;
    }
  if (const auto repeated = repeatedZipSetting(out.zip)) out.error = "--zip: " + *repeated;
  return out;
}

std::optional<std::string> repeatedZipSetting(const ZipGroup& zip) {
  if (zip.axes.empty()) return std::nullopt;
  std::set<std::string> seen;
  for (size_t k = 0; k < zip.axes.front().values.size(); ++k) {
    std::string setting;
    for (const auto& axis : zip.axes)
      if (k < axis.values.size())
        setting += (setting.empty() ? "" : ", ") + axis.key + "=" + axis.values[k].dump();
    if (!seen.insert(setting).second)
      return "the setting " + setting +
             " is given twice (each setting is trained once; list it once)";
  }
  return std::nullopt;
}

SeedList parseSeeds(const ParamSpec& seedSpec, const std::string& text) {
  SeedList out;
  AxisParse parsed = parseAxisValues(seedSpec, text);
  if (parsed.error) {
    out.error = "--seeds: " + *parsed.error;
    return out;
  }
  // parseAxisValues has refused a seed given twice already.
  for (const auto& v : parsed.values) out.seeds.push_back(v.get<int64_t>());
  return out;
}

}  // namespace fl::study
