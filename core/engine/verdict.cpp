#include "core/engine/verdict.h"

#include "core/engine/events.h"
#include "core/engine/reference_check.h"

namespace fl {

std::string toString(VerdictSource source) {
  return source == VerdictSource::Experiment ? "experiment" : "paper";
}

std::optional<VerdictSource> parseVerdictSource(const std::string& text) {
  if (text == "experiment") return VerdictSource::Experiment;
  if (text == "paper") return VerdictSource::Paper;
  return std::nullopt;
}

std::optional<Verdict> verdictOfSnapshot(const Snapshot& snapshot) {
  const auto& meta = snapshot.meta;
  if (!meta.is_object() || !meta.contains(kVerdictMetaLabel) ||
      !meta[kVerdictMetaLabel].is_string())
    return std::nullopt;
  Verdict v;
  v.source = VerdictSource::Experiment;
  v.subject = snapshot.name;
  v.label = meta[kVerdictMetaLabel].get<std::string>();
  if (meta.contains(kVerdictMetaPassed) && meta[kVerdictMetaPassed].is_boolean())
    v.passed = meta[kVerdictMetaPassed].get<bool>();
  v.detail = v.label;
  if (meta.contains(kVerdictMetaDetail) && meta[kVerdictMetaDetail].is_string())
    v.detail += " -- " + meta[kVerdictMetaDetail].get<std::string>();
  return v;
}

Verdict verdictOfReference(const ReferenceVerdict& reference) {
  Verdict v;
  v.source = VerdictSource::Paper;
  v.subject = reference.metric;
  v.passed = reference.withinSpread;
  v.label = !reference.withinSpread   ? kVersusPaper
            : *reference.withinSpread ? kWithinPaper
                                      : kOutsidePaper;
  v.detail = reference.text;
  v.value = reference.value;
  v.paperMean = reference.paperMean;
  v.paperStd = reference.paperStd;
  v.preset = reference.preset;
  return v;
}

std::string verdictHeadline(const std::vector<Verdict>& verdicts) {
  std::string headline;
  int within = 0, outside = 0;
  for (const auto& v : verdicts) {
    if (v.source == VerdictSource::Experiment) {
      headline += (headline.empty() ? "" : ", ") + v.label;
    } else if (v.passed) {
      outside += !*v.passed;
      within += *v.passed;
    }
  }
  // Of mixed verdicts, how many metrics were outside: KL within and smoothness outside read as
  // plain "outside paper", as if nothing had agreed; "(1 of 2)" read as one of two seeds.
  if (outside > 0 || within > 0)
    headline += std::string(headline.empty() ? "" : ", ") +
                (outside == 0  ? std::string(kWithinPaper)
                 : within == 0 ? std::string(kOutsidePaper)
                               : std::string(kOutsidePaper) + " (" + std::to_string(outside) +
                                     " of " + std::to_string(outside + within) + " metrics)");
  return headline;
}

std::string verdictDetails(const std::vector<Verdict>& verdicts) {
  std::string text;
  for (const auto& v : verdicts) text += (text.empty() ? "" : "; ") + v.detail;
  return text;
}

std::optional<bool> verdictsPassed(const std::vector<Verdict>& verdicts) {
  std::optional<bool> passed;
  for (const auto& v : verdicts)
    if (v.passed) passed = passed.value_or(true) && *v.passed;
  return passed;
}

}  // namespace fl
