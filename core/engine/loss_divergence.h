// LossDivergence: flags a run whose training loss exploded but stayed finite (a NaN or inf loss
// already fails the run). The rule, documented in the README: a run is DIVERGED when the mean
// training loss of its last logging interval is more than kFactor (10) times the loss of its
// first step (for a resumed run, the first step after the resume). Training lowers the loss, so
// ending ten times above where it started means the optimiser blew up (e.g. lr=1 with batch 1:
// train/loss 4.5e11 from 3.9).
//
//   LossDivergence divergence;
//   each step: divergence.step(loss);   each logged mean: divergence.logged(mean);
//   at the end: if (auto s = divergence.verdict()) report(*s);  // a "train/divergence" snapshot
#pragma once

#include <optional>

#include "core/engine/events.h"

namespace fl {

class LossDivergence {
 public:
  static constexpr double kFactor = 10.0;

  void step(double loss);
  void logged(double meanLoss);

  bool diverged() const;
  // The judgement as the Runner reports verdicts: a one-value snapshot (the ratio) whose meta
  // holds {"verdict": "DIVERGED", "ok": false, "detail": ...}; nothing for a healthy run.
  std::optional<Snapshot> verdict() const;

 private:
  std::optional<double> m_first;
  std::optional<double> m_last;
};

}  // namespace fl
