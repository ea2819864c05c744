#include "core/study/agreement.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "core/engine/figures_apart.h"
#include "core/study/f_distribution.h"
#include "core/study/study_table.h"

namespace fl::study {

double twoStandardErrors(double spreadA, double seedsA, double spreadB, double seedsB) {
  return 2 * std::sqrt(spreadA * spreadA / seedsA + spreadB * spreadB / seedsB);
}

static_assert(kSpreadTestLevel == 0.01, "the explanation and the rule's text print 0.01");

bool Agreement::spreadsDiffer() const { return spreadP && *spreadP < kSpreadTestLevel; }

bool Agreement::meansClose() const {
  const double d = std::abs(difference);
  return d <= bound && (!spreadsDiffer() || d <= tightBound);
}

Agreement judgeAgreement(const MetricStats& ours, const ReferenceValue& paper) {
  Agreement a;
  if (ours.n == 0 || !std::isfinite(ours.mean)) return a;
  a.difference = ours.mean - paper.mean;
  const bool oursSpread = ours.n >= 2 && std::isfinite(ours.std);
  if (paper.std && paper.seeds && oursSpread) {
    a.rule = AgreementRule::BothSpreads;
    a.bound = twoStandardErrors(*paper.std, *paper.seeds, ours.std, ours.n);
    if (*paper.std > 0 && *paper.seeds >= 2)
      a.spreadP = spreadRatioP(ours.std, ours.n, *paper.std, *paper.seeds);
    const double smaller = std::min(ours.std, *paper.std);
    a.tightBound = twoStandardErrors(smaller, *paper.seeds, smaller, ours.n);
  } else if (!paper.std && oursSpread) {
    a.rule = AgreementRule::OursOnly;
    a.bound = twoStandardErrors(0, 1, ours.std, ours.n);
  } else if (paper.std && !oursSpread) {
    // One run of ours: as a single run's verdict, 2 SE with its spread taken as the paper's.
    a.rule = AgreementRule::OneRun;
    a.bound = oneRunBound(*paper.std, paper.seeds);
  } else if (paper.std) {
    a.rule = AgreementRule::PaperSpread;
    a.bound = *paper.std;
  } else {
    return a;
  }
  a.agrees = std::abs(a.difference) <= a.bound && !a.spreadsDiffer();
  return a;
}

namespace {

std::string formatP(double p) {
  char text[32];
  std::snprintf(text, sizeof text, p < 1e-3 ? "%.1e" : "%.3g", p);
  return text;
}

}  // namespace

std::string Agreement::explanation(const MetricStats& ours, const ReferenceValue& paper) const {
  const bool meansAgree = std::abs(difference) <= bound;
  const auto [gapText, boundText] = figuresApart(std::abs(difference), bound);
  const std::string delta = "|Δ| " + gapText + (meansAgree ? " ≤ " : " > ") + boundText;
  switch (rule) {
    case AgreementRule::BothSpreads: {
      const std::string seeds = " (paper " + std::to_string(*paper.seeds) + " seeds, ours " +
                                std::to_string(ours.n) + ")";
      if (!spreadsDiffer()) return delta + " = 2 SE" + seeds;
      const std::string spreads = "spreads differ: ours " + formatStat(ours.std) +
                                  ", the paper's " + formatStat(*paper.std) + seeds +
                                  ", F test p = " + formatP(*spreadP) + " < 0.01";
      if (!meansAgree) return spreads + "; the means differ too: " + delta + " = 2 SE";
      if (meansClose()) return spreads + "; the means alone agree: " + delta + " = 2 SE";
      return spreads + "; the means agree only through the wider spread: " + delta + " = 2 SE, > " +
             figuresApart(std::abs(difference), tightBound).second +
             " = 2 SE at the smaller spread";
    }
    case AgreementRule::OursOnly:
      return delta + " = 2 SE of our " + std::to_string(ours.n) +
             " seeds (the paper prints no spread)";
    case AgreementRule::OneRun:
      return delta + " = 2 SE of one run of ours against the paper's mean" +
             (paper.seeds ? " of " + std::to_string(*paper.seeds) + " seeds" : std::string()) +
             " (our run's spread taken as the paper's)";
    case AgreementRule::PaperSpread:
      return delta + " = the paper's std (the paper's seed count unknown)";
    case AgreementRule::None:
      break;
  }
  return "no verdict: neither side gives a spread";
}

std::string agreementRuleText() {
  return "Agreement: |ours - paper| <= 2 SE, SE = sqrt(s_paper^2 / n_paper + s_ours^2 / n_ours), "
         "and spreads that do not differ (F test of s_ours^2 / s_paper^2, two-sided p >= 0.01); "
         "where the paper prints no spread, SE from our seeds alone; with one run of ours, "
         "SE = s_paper * sqrt(1 + 1 / n_paper) (a single run's verdict too); with the paper's "
         "seed count unknown, within the paper's mean ± std.";
}

std::string agreementWord(const Agreement& agreement) {
  if (!agreement.agrees) return "";
  if (*agreement.agrees) return "agrees";
  return agreement.meansClose() ? "DIFFERS (spread)" : "DIFFERS";
}

}  // namespace fl::study
