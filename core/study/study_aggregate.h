// Aggregation: a study's runs grouped by their axis values (every axis but the seed), each
// metric as mean, standard deviation and n over the seeds, next to the paper's value and a
// verdict where the study carries references.
//
// Statistics follow the Fourier-head paper's own aggregation (pandas): the standard deviation
// is the sample one (n - 1 in the denominator), undefined (NaN) for a single seed. Only
// finished runs count; a cell lists its other runs' statuses so no one reads a mean of 2 seeds
// as a mean of 4.
//
// Torch-free: the CLI's tables, the figures and the GUI's study view all read these.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/engine/study_spec.h"
#include "core/study/cell_status.h"

namespace fl::study {

// One run of a study, as read from the store (or a cell not started yet: runId 0).
struct StudyRunResult {
  int64_t cell = 0;
  int64_t runId = 0;
  CellStatus status;    // none before it starts
  std::string message;  // why it failed, for `sweep show`
  std::string arm;
  nlohmann::json axes = nlohmann::json::object();  // axis values, without the seed
  nlohmann::json config = nlohmann::json::object();
  int64_t seed = 0;
  // Its run was trained before the study was created: a finished run with the cell's
  // experiment, settings and seed (a comparison's, an earlier study's), taken as it is.
  bool reused = false;
  std::map<std::string, double> last;    // each metric's final value
  std::map<std::string, double> lowest;  // and its lowest
  // The labels of the judgements its experiment gave against it ("LEAKS": a FourierQK filter
  // that lets later tokens in, whose loss is no language-modelling result).
  std::vector<std::string> failedJudgements;
};

struct MetricStats {
  int n = 0;
  double mean = NAN;
  double std = NAN;  // sample standard deviation; NaN for n < 2
  double min = NAN;
  double max = NAN;
  std::vector<double> values;  // one per finished run, in the order its runs came
  // Each value's run's seed, where the values came from runs (aggregate): two metrics of one
  // setting pair up run by run through it, as a run may lack one of them.
  std::vector<int64_t> seeds;
};

// What a table says in place of a verdict for a setting that departs from the paper's.
constexpr const char* kNotCompared = "not compared";

// The axis a figure or table takes to draw along, by or across a study's arms (figureAxesOf
// offers it): each cell's arm read as its value. A study that varies only its arms (the addition
// paper's rescue against from scratch) had no axis to draw a figure along.
inline constexpr const char* kArmAxis = "arm";

// The runs of one setting (equal axis values), over its seeds.
struct AggregateCell {
  std::string arm;
  nlohmann::json axes = nlohmann::json::object();
  nlohmann::json config = nlohmann::json::object();  // the setting's config (its first run's)
  std::vector<int64_t> seeds;
  std::vector<int64_t> runIds;
  StatusCounts<int> statusCounts;  // finished -> 3, failed -> 1
  std::map<std::string, MetricStats> metrics;
  // Each failed judgement's label (StudyRunResult::failedJudgements) and how many of the
  // setting's runs got it.
  std::map<std::string, int> failedJudgements;
  // How the setting departs from the paper's experiment ("epochs 3 (the paper's 500)"), set by
  // markDepartures: such a cell shows the paper's values but is not compared with them.
  std::vector<std::string> departures;

  int finished() const;
  bool compared() const { return departures.empty(); }
};

// `stat`: "last" aggregates each run's final value, "min" its lowest (references.stat).
// Cells keep the order of their first run.
std::vector<AggregateCell> aggregate(const std::vector<StudyRunResult>& runs,
                                     const std::string& stat = "last");

MetricStats describe(const std::vector<double>& values);

// The reference row for a setting: the first whose `where` values all equal the config's
// (numbers compared as numbers, so 0 matches 0.0).
std::optional<ReferenceValue> findReference(const StudyReferences& references,
                                            const nlohmann::json& config,
                                            const std::string& metric);

// Does a config or an axes object hold every `where` value?
bool matches(const nlohmann::json& where, const nlohmann::json& values);
// Does it hold every `where` value of the axes it has? A setting it lacks does not apply to it
// (`--where gamma=0` keeps the linear head, which has no gamma, as the Fourier heads' baseline).
bool matchesWhereItApplies(const nlohmann::json& where, const nlohmann::json& values);

// "Judged by the experiment: LEAKS in variant=multi (3 of 3 runs) and variant=gaussian (1 of 3
// runs); their values are not what the study compares": said beside a table or figure where any
// setting's runs were judged failing, empty otherwise. A leaking filter's low loss had been
// ranked with the others' in a study's table and figure without a mark.
std::string failedJudgementsText(const std::vector<AggregateCell>& cells);

// "3 runs trained before the study (#4, #6, #7) are taken as they are: same experiment,
// settings and seed"; empty when the study trained every run it has. A reused run may come
// from another build or machine, which a reader weighing the spread over seeds should know.
std::string reusedRunsText(const std::vector<StudyRunResult>& runs);

}  // namespace fl::study
