#include "core/study/paper_departure.h"

#include <optional>

#include "core/engine/reference_check.h"
#include "core/study/study_expansion.h"

namespace fl::study {

namespace {

// The built-in study a spec was made from: the one with the same published figures.
std::optional<StudySpec> paperStudyOf(const Experiment& experiment, const StudySpec& spec) {
  if (!spec.references) return std::nullopt;
  const auto references = spec.toJson()["references"];
  for (const auto& builtin : experiment.studies())
    if (builtin.references && builtin.toJson()["references"] == references) return builtin;
  return std::nullopt;
}

// Axis values are compared as the settings they are: 0 and 0.0 are one value.
bool sameAxes(const nlohmann::json& a, const nlohmann::json& b) {
  if (!a.is_object() || !b.is_object() || a.size() != b.size()) return false;
  for (const auto& [key, value] : a.items()) {
    const auto other = b.find(key);
    if (other == b.end()) return false;
    const bool same = value.is_number() && other->is_number()
                          ? value.get<double>() == other->get<double>()
                          : value == *other;
    if (!same) return false;
  }
  return true;
}

}  // namespace

void markDepartures(const Experiment& experiment, const StudySpec& spec,
                    std::vector<AggregateCell>& cells) {
  const auto paper = paperStudyOf(experiment, spec);
  if (!paper) return;
  const auto expansion = expandStudy(experiment, *paper);
  const auto params = experiment.allParams();
  for (auto& cell : cells) {
    cell.departures = {"a setting the paper does not have"};
    for (const auto& paperCell : expansion.cells)
      if (paperCell.arm == cell.arm && sameAxes(paperCell.axes, cell.axes)) {
        cell.departures = departuresFromPaper(params, paperCell.config, "", cell.config);
        break;
      }
  }
}

}  // namespace fl::study
