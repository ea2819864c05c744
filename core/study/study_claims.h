// A study's claims judged over seeds. Each side of a claim is every finished run of the settings
// its `where` picks; the claim is about the difference of the two means, read with the same
// standard error as a verdict against a paper (core/study/agreement.h):
//
//   d = mean_a - mean_b,  SE = sqrt(s_a^2 / n_a + s_b^2 / n_b)
//   holds         d beyond 2 SE in the claimed direction
//   contradicted  d beyond 2 SE the other way
//   unresolved    |d| <= 2 SE: these seeds cannot tell
//   not measured  a side has fewer than two finished runs with the metric (said: matches no run,
//                 no run has the metric, or runs still to finish), or the sides are never at
//                 one setting
//   not judged    a side's settings depart from the declared study's (markDepartures: a study
//                 shortened to try it): its numbers are shown, the departures named, and no
//                 outcome given, as a table's cell that departs is "not compared"
//
// A side whose `where` leaves an axis open (a dataset, a second arm) picks several settings; the
// claim is then judged once per setting, never with the settings' runs pooled as seeds of one.
// Two sides are compared only at one setting of everything the claim does not name apart
// (whether an axis, an arm's fixed key or a default sets it): a claim on heads over two datasets
// is judged on each dataset, and sides never at one setting ("dataset (gmm2 against beta)") are
// not measured, said so, as sides that pick the same runs.
//
// A claim whose sides read two metrics of the same runs (the MLPs' low-frequency ablation
// against attention's high-frequency one, each run ablated both ways) pairs them run by run:
//
//   d_i = a_i - b_i,  d = mean(d_i),  SE = s_d / sqrt(n)
//
// since the runs' spread is shared by both metrics; read as independent samples it counted
// twice, and differences every seed agrees on read as unresolved.
//
// A claim that the sides are similar (within a tolerance w) holds when |d| + 2 SE <= w, is
// contradicted when |d| - 2 SE > w, and is unresolved between.
//
// Torch-free, like the tables that print it.
#pragma once

#include <string>
#include <vector>

#include "core/engine/param_spec.h"
#include "core/engine/study_spec.h"
#include "core/study/study_aggregate.h"

namespace fl::study {

enum class ClaimOutcome { Holds, Contradicted, Unresolved, NotMeasured, NotJudged };

std::string toString(ClaimOutcome outcome);  // "holds", "CONTRADICTED", "unresolved", ...

struct ClaimVerdict {
  StudyClaim claim;
  size_t claimIndex = 0;  // in the study's claims: one claim may give a verdict per setting
  ClaimOutcome outcome = ClaimOutcome::NotMeasured;
  // The settings judged: the claim's sides with the values they leave open, where a side picks
  // several settings (a claim on heads over a study of two datasets is judged on each dataset).
  nlohmann::json whereA, whereB;
  // Judged at one setting a side; false where the claim as a whole is not measured (`why`
  // says why: a side matching no run, sides never at one setting).
  bool atSetting = false;
  MetricStats a, b;          // the judged values (ratios when the claim has `over`)
  int runsA = 0, runsB = 0;  // every run of each side's setting, finished or not
  double difference = 0;
  double bound = 0;  // 2 SE
  // Where both sides read the same runs (another metric of them), how many runs paired up: the
  // difference and its bound are then those of the per-run differences, mean(d) and
  // 2 s_d / sqrt(n). 0 where the sides are independent samples.
  int pairs = 0;
  std::vector<std::string> departures;  // of either side's settings; not judged when any
  std::string why;                      // not measured: what is missing
  // "holds: <text> (a 1.21 ± 0.03 (3), b 2.40 ± 0.20 (3); Δ -1.19 beyond 2 SE 0.23)"
  std::string summary() const;
};

// `params`: the experiment's (allParams), by which a value a run does not use reads as
// kUnusedValue: it neither matches a side's `where` nor keeps two sides apart (empty: every
// value counts).
std::vector<ClaimVerdict> judgeClaims(const std::vector<StudyClaim>& claims,
                                      const std::vector<AggregateCell>& cells,
                                      const std::vector<ParamSpec>& params);

// A run's settings as a claim side reads them: a value it does not use is kUnusedValue (which
// matches no `where`), and its arm, where it has one, is under kArmAxis (a side may name it).
nlohmann::json claimSideValues(const nlohmann::json& config, const std::string& arm,
                               const std::vector<ParamSpec>& params);

// One line on how claims are judged, printed above them.
std::string claimRuleText();

// Where the claims are judged, said with every outcome: on the study's own runs, never on the
// paper's models (the addition paper's GPT-2-XL, FoPE's 20M-parameter models). A red
// "3 CONTRADICTED" beside a 2-layer model's numbers read as the paper refuted.
//   claimsScale(spec)       "on the small preset's runs, not the paper's models"
//   claimsScaleText(spec)   the same as a sentence, with what an outcome then says
std::string claimsScale(const StudySpec& spec);
std::string claimsScaleText(const StudySpec& spec);

}  // namespace fl::study
