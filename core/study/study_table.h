// A study's aggregate as a table: one block per metric, rows and columns from two axes (the
// paper's layout for Table 1: datasets down, heads across), each cell "mean ± std (n)" beside
// the paper's value and a within/outside verdict where the study carries references.
// Markdown for reading, CSV (long format, one line per setting and metric) and JSON for tools.
#pragma once

#include <string>
#include <vector>

#include "core/engine/param_spec.h"
#include "core/study/study_aggregate.h"

namespace fl::study {

struct StudyTableInput {
  std::string title;                   // "study 3: table1 (fourier-head), 36 runs"
  std::vector<std::string> axisOrder;  // every axis of the study, in declaration order
  std::vector<AggregateCell> cells;
  const StudyReferences* references = nullptr;
  const std::vector<StudyClaim>* claims = nullptr;  // judged under the markdown table and in JSON
  std::vector<ParamSpec> params;  // the experiment's: unused values never decide a claim
  std::string claimsScale;        // claimsScaleText of the study: said with the claims
};

struct TableRequest {
  // Asked for (`--metric`): each must be one a finished run recorded. Empty: the study's
  // layout's (`layoutMetrics`), else the referenced, else all.
  std::vector<std::string> metrics;
  // The study's own table metrics: one no run recorded (a length the runs did not evaluate, a
  // misspelt key) is a column of "-" with a note under the table, never a refusal, so a study
  // that trained to the end always prints its table.
  std::vector<std::string> layoutMetrics;
  std::string rows;  // empty: every axis but `cols`
  std::string cols;
  std::string format = "md";  // md | csv | json
};

// Throws std::invalid_argument naming a rows/cols axis or an asked metric the study does not
// have.
std::string renderStudyTable(const StudyTableInput& input, const TableRequest& request);

// The metrics a table shows by default (see TableRequest::metrics).
std::vector<std::string> defaultMetrics(const StudyTableInput& input,
                                        const std::vector<std::string>& layoutMetrics);

// 0.125, 3.14e-05, 1.23e+04: three decimals where they mean something.
std::string formatStat(double value);
// "0.041 ± 0.001": the spread at the mean's precision, so the two read together (not
// "0.041 ± 0.000673"); the mean alone when the spread is not finite.
std::string formatMeanStd(double mean, double spread);

}  // namespace fl::study
