// Does a study's mean agree with a published one? Both are means over seeds, so the question is
// whether their difference is larger than the noise of a difference of two means:
//
//   agrees  <=>  |ours - paper| <= 2 SE,   SE = sqrt(s_paper^2 / n_paper + s_ours^2 / n_ours)
//
// (about a 95% test when both means are roughly normal). Weaker rules apply, and say so, when a
// side cannot give its part: the paper prints no spread -> SE from our seeds alone; a single run
// of ours -> its spread taken as the paper's, SE = s_paper * sqrt(1 + 1 / n_paper), the rule a
// lone run's verdict uses (oneRunBound; within mean +- std alone called a faithful run outside
// about a third of the time); the paper's seed count unknown with several of ours -> our mean
// within the paper's mean +- std.
//
// Where both sides give a spread, the spreads must agree too: a mean is the paper's only if its
// seeds scatter as the paper's do. Without that, one seed of ours stuck far off (0.529 beside
// 0.045, 0.040, 0.040, against the paper's 0.030 +- 0.006) widens our SE until any mean
// "agrees". The spreads differ when the variance-ratio F test rejects their equality, two-sided
// at p < 0.01 (core/study/f_distribution.h): stricter than the means' 95%, so that the two tests
// together wrongly say DIFFERS of a faithful reproduction about 6% of the time, not 5% alone.
// One place for every table, the window's study view and the exports.
#pragma once

#include <optional>
#include <string>

#include "core/engine/reference_check.h"
#include "core/study/study_aggregate.h"

namespace fl::study {

enum class AgreementRule {
  None,         // nothing to measure the difference against: no verdict
  BothSpreads,  // SE from both sides' spreads and seed counts
  OursOnly,     // the paper prints no spread: SE from our seeds
  OneRun,       // one run of ours: 2 SE of one run against the paper's mean (oneRunBound)
  PaperSpread,  // the paper's seed count unknown: within its mean +- std
};

struct Agreement {
  std::optional<bool> agrees;  // empty under AgreementRule::None
  AgreementRule rule = AgreementRule::None;
  double difference = 0;  // ours - paper
  double bound = 0;       // the largest |difference| that still agrees
  // Under AgreementRule::BothSpreads: the F test's two-sided p for our spread against the
  // paper's (empty where the paper's spread is 0 or its seeds fewer than 2).
  std::optional<double> spreadP;
  // Where the spreads differ: 2 SE with the smaller spread on both sides. The wider side's spread
  // (a seed stuck far off) makes any mean "agree"; the means are close only within this too.
  double tightBound = 0;

  bool spreadsDiffer() const;
  // The means within 2 SE, and where the spreads differ within tightBound as well.
  bool meansClose() const;

  // "|Δ| 0.012 ≤ 0.041 = 2 SE (paper 4 seeds, ours 4)": the numbers behind the verdict.
  std::string explanation(const MetricStats& ours, const ReferenceValue& paper) const;
};

// Below this p the spreads differ.
constexpr double kSpreadTestLevel = 0.01;

Agreement judgeAgreement(const MetricStats& ours, const ReferenceValue& paper);

// 2 SE of the difference of two means over seeds: 2 sqrt(s_a^2 / n_a + s_b^2 / n_b). The one
// bound of verdicts against a paper and of a study's claims (core/study/study_claims.h).
double twoStandardErrors(double spreadA, double seedsA, double spreadB, double seedsB);

// The rule in one line, printed under every table that gives verdicts.
std::string agreementRuleText();

// "agrees" / "DIFFERS" (markdown, CSV and the window; empty without a verdict), and "DIFFERS
// (spread)" where the means are close (meansClose) and only the spreads differ: a reader saw
// DIFFERS beside two close means and found why only on hover. A mean nine times the paper's that
// "agrees" only through one failed seed's spread is DIFFERS, not a matter of spread.
std::string agreementWord(const Agreement& agreement);

}  // namespace fl::study
