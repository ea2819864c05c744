// Which settings of a study are the paper's experiment. A study's references are the paper's
// figures for the experiment its built-in study declares; a setting run shorter, on other data
// or with other training (a study opened with epochs=3 to try it quickly) shows those figures
// beside its own but is not compared with them, as a shortened single run is not
// (departuresFromPaper: one rule for runs and studies).
#pragma once

#include <vector>

#include "core/engine/experiment.h"
#include "core/engine/study_spec.h"
#include "core/study/study_aggregate.h"

namespace fl::study {

// Sets each cell's `departures`: compared with the built-in study of `experiment` whose
// references are `spec`'s, a cell departs in what differs from that study's cell with the same
// arm and axis values, or entirely when the paper has no such setting. A study whose references
// no built-in study has (a study file with figures of its own) is compared as it declares.
void markDepartures(const Experiment& experiment, const StudySpec& spec,
                    std::vector<AggregateCell>& cells);

}  // namespace fl::study
