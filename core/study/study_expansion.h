// Expanding a StudySpec into its runs: every arm's grid (cartesian product, last axis fastest)
// and zipped axes, times the seeds, each as a validated, complete config with its hash. Bad
// input is refused here, before anything is stored, with messages that name the key and the
// value: an unknown axis, a value the parameter refuses, an axis that contradicts the preset or
// an override, an empty axis, more than kMaxStudyRuns runs.
//
//   StudyExpansion e = expandStudy(*experiment, spec);
//   if (!e.ok()) for (auto& error : e.errors) report(error);
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/engine/experiment.h"
#include "core/engine/study_spec.h"

namespace fl::study {

constexpr uint64_t kMaxStudyRuns = 100000;

struct StudyCell {
  int64_t index = 0;
  std::string arm;
  nlohmann::json axes = nlohmann::json::object();  // axis values, without the seed
  int64_t seed = 0;
  nlohmann::json config;  // validated and complete
  std::string hash;       // configHash(experiment, config)
};

struct StudyExpansion {
  std::vector<StudyCell> cells;
  std::vector<std::string> axisOrder;  // every axis, in the order the spec declares them
  std::vector<std::string> errors;
  // Settings that are the same runs as others: two arms set them alike, or they differ only in
  // values their runs do not use (a linear head's frequencies): trained once.
  int64_t duplicatesDropped = 0;
  bool ok() const { return errors.empty(); }
};

StudyExpansion expandStudy(const Experiment& experiment, const StudySpec& spec);

// Every axis of a spec in declaration order (the study's tables and figures use it).
std::vector<std::string> axisOrderOf(const StudySpec& spec);
// The axes a figure of `spec` may take: axisOrderOf, with kArmAxis (study_figure.h) first where
// the study has arms.
std::vector<std::string> figureAxesOf(const StudySpec& spec);

// What a study file's reading parts name that its runs will not have, each said where it is:
// a table's rows or cols, a figure's x, group or panel that is not an axis ("table.rows:
// 'datasett' is not an axis of the study (axes: dataset, head)"), a reference row's `where`
// value that no setting takes ("references.rows[2].where: dataset 'gmm3' is not among the
// study's values (gaussian, gmm2, beta)"). Unchecked, each was accepted, and later silently
// replaced by a default, refused by `sweep plot` over an option never passed, or never matched.
std::vector<std::string> layoutProblems(const StudySpec& spec);

// Every metric some run of the expansion may record, in the order first declared: each
// config's Experiment::recordedMetrics beside the engine's train/loss and system/ series (an
// entry ending in '*' stands for every name it begins); nullopt where the experiment does not
// say. With unrecordedMetrics (metric_names.h), a study file's misspelt metric is found before
// its runs train.
std::optional<std::vector<std::string>> metricsRecordedBy(const Experiment& experiment,
                                                          const StudyExpansion& expansion);

// The claim sides and reference rows whose `where` matches none of the expansion's runs, each
// with its place and its `where` ("claims[0].b (head \"gmm\")"): a setting the study fixes
// otherwise, or a value the arms never set. Such a claim reads "not measured" and such a row
// is never used; said as a note, as a study narrowed on purpose (`--grid dataset=gmm2`) leaves
// the other datasets' rows unused too.
// `params`: the experiment's, by which a claim side reads runs as judgeClaims does (a value a run
// does not use matches no side).
std::vector<std::string> unmatchedWheres(const StudySpec& spec, const StudyExpansion& expansion,
                                         const std::vector<ParamSpec>& params);

}  // namespace fl::study
