// Which settings of a study are the experiment it declares. A built-in study is the paper's
// experiment (its references are the paper's figures) or, for a study that tests the papers'
// claims at a laptop's scale, FourierLab's own declared settings for them. A setting run
// shorter, on other data or with other training (a study opened with epochs=3 to try it
// quickly) shows the paper's figures beside its own but is not compared with them, and its
// claims are not judged (departuresFromPaper: one rule for runs, tables and claims).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/engine/experiment.h"
#include "core/engine/study_spec.h"
#include "core/study/study_aggregate.h"

namespace fl::study {

// The built-in study `spec` was made from and whose settings it is held to: the one with the
// same published figures (owned by "the paper"), or, without figures, the one with the same
// claims ("the study"), or, with neither, the one with the same name and title ("the study").
// None for a study file with figures or claims of its own: it is judged as it declares.
struct DeclaredStudy {
  StudySpec spec;
  std::string owner;  // "the paper" or "the study"
  std::string whose() const { return owner + "'s"; }
};
std::optional<DeclaredStudy> declaredStudyOf(const Experiment& experiment, const StudySpec& spec);

// Sets each cell's `departures`: compared with the declared study, a cell departs in what
// differs from that study's cell with the same arm and axis values, or entirely when the
// declared study has no such setting.
void markDepartures(const Experiment& experiment, const StudySpec& spec,
                    std::vector<AggregateCell>& cells);

// Everything in which `spec` departs from its declared study, in one sentence, where its
// description (which speaks of the declared study) is shown: "Departs from the study's
// settings: steps 100 (the study's 2000); evaluation: eval_tokens 2048 (the study's 8192);
// seeds 1, 2 (the study's 1, 2, 3): 8 runs (the study's 12)." Empty when it departs in nothing
// or declares nothing.
std::string departureNote(const Experiment& experiment, const StudySpec& spec);

}  // namespace fl::study
