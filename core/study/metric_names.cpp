#include "core/study/metric_names.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <map>

#include "core/engine/closest_name.h"
#include "core/engine/system_metrics.h"

namespace fl::study {

namespace {

// The names a '*' entry begins ("qk/period_h" for qk/period_h*); nullopt for a plain name.
std::optional<std::string> prefixOf(const std::string& name) {
  if (name.empty() || name.back() != '*') return std::nullopt;
  return name.substr(0, name.size() - 1);
}

std::string lowered(std::string text) {
  for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return text;
}

// The name meant, or the numbers the wanted one's family has; "" where neither helps.
std::string hintFor(const std::string& wanted, const std::vector<std::string>& declared) {
  // Another number of a family its runs do record (val/ppl@4096 where they evaluate to 512).
  const std::string family = familyOf(wanted);
  const std::set<std::string> all(declared.begin(), declared.end());
  if (!family.empty())
    if (const std::string members = membersOf(all, family); !members.empty())
      return "of " + family + " they record " + members;
  // The names it may have meant: each declared one, and each family of numbered ones.
  std::vector<std::string> names;
  for (const auto& name : declared)
    if (!prefixOf(name)) {
      names.push_back(name);
      if (const std::string f = familyOf(name); !f.empty()) names.push_back(f);
    }
  std::string meant = closestName(wanted, names);
  // Another case, or the start of exactly one name (test/smooth for test/smoothness).
  if (meant.empty()) {
    const auto sameLetters = std::find_if(names.begin(), names.end(), [&](const std::string& n) {
      return lowered(n) == lowered(wanted);
    });
    if (sameLetters != names.end()) meant = *sameLetters;
  }
  if (meant.empty() && wanted.size() >= 4) {
    std::vector<std::string> begun;
    for (const auto& name : names)
      if (name.starts_with(wanted)) begun.push_back(name);
    if (begun.size() == 1) meant = begun.front();
  }
  return meant.empty() ? "" : "did you mean " + meant + "?";
}

}  // namespace

std::string familyOf(const std::string& metric) {
  const auto at = metric.rfind('@');
  return at == std::string::npos ? std::string() : metric.substr(0, at + 1) + "*";
}

bool isFamily(const std::string& metric) {
  return metric.size() > 1 && metric.compare(metric.size() - 2, 2, "@*") == 0;
}

std::optional<double> memberLength(const std::string& key, const std::string& family) {
  const std::string prefix = family.substr(0, family.size() - 1);
  if (key.size() <= prefix.size() || key.compare(0, prefix.size(), prefix) != 0) return {};
  const std::string number = key.substr(prefix.size());
  char* end = nullptr;
  const double value = std::strtod(number.c_str(), &end);
  if (end != number.c_str() + number.size() || !std::isfinite(value)) return {};
  return value;
}

std::string membersOf(const std::set<std::string>& keys, const std::string& family) {
  std::map<double, std::string> byLength;
  for (const auto& key : keys)
    if (const auto length = memberLength(key, family)) byLength.emplace(*length, key);
  std::string out;
  for (const auto& [length, key] : byLength)
    out += out.empty() ? key : ", " + key.substr(key.rfind('@'));
  return out;
}

bool coversMetric(const std::string& declared, const std::string& wanted) {
  // A study names many metrics at once only as a family of numbers (val/ppl@*); "test/*" is a
  // name no run records, not a pattern.
  const auto d = prefixOf(declared);
  const auto w = isFamily(wanted) ? prefixOf(wanted) : std::nullopt;
  if (!d && !w) return declared == wanted;
  if (d && !w) return wanted.size() > d->size() && wanted.starts_with(*d);
  if (!d) return declared.size() > w->size() && declared.starts_with(*w);
  return d->starts_with(*w) || w->starts_with(*d);
}

std::vector<MetricPlace> metricsNamed(const StudySpec& spec) {
  using Part = MetricPlace::Part;
  std::vector<MetricPlace> named;
  for (size_t i = 0; i < spec.claims.size(); ++i) {
    const auto& claim = spec.claims[i];
    const std::string at = "claims[" + std::to_string(i) + "].";
    named.push_back({Part::Claim, i, at + "metric", claim.metric});
    if (!claim.over.empty()) named.push_back({Part::Claim, i, at + "over", claim.over});
    if (!claim.bMetric.empty()) named.push_back({Part::Claim, i, at + "b_metric", claim.bMetric});
  }
  if (spec.table)
    for (size_t i = 0; i < spec.table->metrics.size(); ++i)
      named.push_back(
          {Part::Table, i, "table.metrics[" + std::to_string(i) + "]", spec.table->metrics[i]});
  for (size_t i = 0; i < spec.figures.size(); ++i)
    for (size_t j = 0; j < spec.figures[i].metrics.size(); ++j)
      named.push_back({Part::Figure, i,
                       "figures[" + std::to_string(i) + "].metrics[" + std::to_string(j) + "]",
                       spec.figures[i].metrics[j]});
  if (spec.references)
    for (size_t i = 0; i < spec.references->rows.size(); ++i)
      for (const auto& [metric, value] : spec.references->rows[i].values)
        named.push_back(
            {Part::Reference, i, "references.rows[" + std::to_string(i) + "].values", metric});
  return named;
}

std::string UnrecordedMetric::text() const {
  // A space at either end is what sets "test/kl " apart from test/kl: quoted, it shows.
  const std::string& m = place.metric;
  const bool spaced = !m.empty() && (std::isspace(static_cast<unsigned char>(m.front())) ||
                                     std::isspace(static_cast<unsigned char>(m.back())));
  return place.where + ": no run of this study records " + (spaced ? "\"" + m + "\"" : m) +
         (hint.empty() ? "" : " (" + hint + ")");
}

std::string recordedMetricsText(const std::vector<std::string>& declared) {
  const std::set<std::string> all(declared.begin(), declared.end());
  std::set<std::string> familiesListed;
  std::string out, system;
  const std::string systemPrefix = kSystemPrefix;
  for (const auto& name : declared) {
    // The machine's series last, as one: they are no result of the run.
    if (isSystemMetric(name)) {
      system += (system.empty() ? "" : ", ") + name.substr(systemPrefix.size());
      continue;
    }
    std::string entry = name;
    if (const std::string family = familyOf(name); !family.empty() && !isFamily(name)) {
      if (!familiesListed.insert(family).second) continue;
      entry = membersOf(all, family);
      if (entry.empty()) entry = name;  // an '@' not followed by a number
    }
    out += (out.empty() ? "" : ", ") + entry;
  }
  if (!system.empty())
    out += (out.empty() ? "the " : " and the ") + systemPrefix + " series (" + system + ")";
  return out;
}

std::vector<UnrecordedMetric> unrecordedMetrics(const StudySpec& spec,
                                                const std::vector<std::string>& declared) {
  std::vector<UnrecordedMetric> unrecorded;
  for (const auto& place : metricsNamed(spec)) {
    const std::string& wanted = place.metric;
    if (wanted.empty()) {  // names no metric: a table column or a curve of nothing
      unrecorded.push_back({place, "an empty name"});
      continue;
    }
    const bool covered = std::any_of(declared.begin(), declared.end(),
                                     [&](const std::string& d) { return coversMetric(d, wanted); });
    if (!covered) unrecorded.push_back({place, hintFor(wanted, declared)});
  }
  return unrecorded;
}

}  // namespace fl::study
