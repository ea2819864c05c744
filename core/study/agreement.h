// Does a study's mean agree with a published one? Both are means over seeds, so the question is
// whether their difference is larger than the noise of a difference of two means:
//
//   agrees  <=>  |ours - paper| <= 2 SE,   SE = sqrt(s_paper^2 / n_paper + s_ours^2 / n_ours)
//
// (about a 95% test when both means are roughly normal). Weaker rules apply, and say so, when a
// side cannot give its part: the paper prints no spread -> SE from our seeds alone; the paper's
// seed count is unknown or we have a single run -> the old reading, our value within the
// paper's mean +- std (the band one seed of the paper's falls in). One place for every table,
// the window's study view and the exports.
#pragma once

#include <optional>
#include <string>

#include "core/study/study_aggregate.h"

namespace fl::study {

enum class AgreementRule {
  None,         // nothing to measure the difference against: no verdict
  BothSpreads,  // SE from both sides' spreads and seed counts
  OursOnly,     // the paper prints no spread: SE from our seeds
  PaperSpread,  // one run of ours, or the paper's seed count unknown: within its mean +- std
};

struct Agreement {
  std::optional<bool> agrees;  // empty under AgreementRule::None
  AgreementRule rule = AgreementRule::None;
  double difference = 0;  // ours - paper
  double bound = 0;       // the largest |difference| that still agrees

  // "|Δ| 0.012 ≤ 0.041 = 2 SE (paper 4 seeds, ours 4)": the numbers behind the verdict.
  std::string explanation(const MetricStats& ours, const ReferenceValue& paper) const;
};

Agreement judgeAgreement(const MetricStats& ours, const ReferenceValue& paper);

// 2 SE of the difference of two means over seeds: 2 sqrt(s_a^2 / n_a + s_b^2 / n_b). The one
// bound of verdicts against a paper and of a study's claims (core/study/study_claims.h).
double twoStandardErrors(double spreadA, double seedsA, double spreadB, double seedsB);

// The rule in one line, printed under every table that gives verdicts.
std::string agreementRuleText();

// "agrees" / "DIFFERS" (markdown and CSV; empty without a verdict).
std::string agreementWord(const std::optional<bool>& agrees);

}  // namespace fl::study
