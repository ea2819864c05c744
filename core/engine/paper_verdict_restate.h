// A store's verdicts against the paper, judged again by this build. A finished run's paper
// verdicts are written when it ends, by the rule and the published figures of the build that
// trained it. A later build may judge otherwise (the 2 SE rule that replaced "within mean ±
// std", a spread added to a preset), and the History showed run 20's KL 0.179 against 0.146 ±
// 0.033 as "outside paper" while the study table and a fresh run of the same config said
// within. The store keeps the stamp of the rule and figures its verdicts follow; a writable open
// by a build of another stamp judges every finished run again from its stored final metrics.
//
//   const auto restated = restatePaperVerdicts(store, registry);   // after opening it to write
//   std::fputs(restated.note(store.path()).c_str(), stderr);      // the window: its status bar
#pragma once

#include <string>

#include "core/engine/registry.h"
#include "core/store/run_store.h"

namespace fl {

// The meta key the stamp is kept under.
inline constexpr const char* kPaperVerdictStampKey = "paper_verdicts";

// This build's stamp: the rule's version and a stable hash of every preset's published figures.
std::string paperVerdictStamp(const ExperimentRegistry& registry);

struct Restatement {
  int changed = 0;     // runs whose verdicts changed
  std::string failed;  // why the store could not be written (busy, full): nothing changed
  // "13 runs' verdicts against the paper judged again ...", or why not; "" where there is
  // nothing to say. note(): the same as a line of the command line's stderr.
  std::string sentence() const;
  std::string note(const std::string& storePath) const;
};

// Where the store's stamp is not this build's: every finished run with verdicts against the
// paper, of an experiment the registry has, judged again from its stored final (and lowest)
// metrics; the runs whose verdicts changed get the new ones and the new sentences in their
// status message, and the store the new stamp, in one transaction. A read-only store is left
// as it is, as is one with no verdict against the paper; a store that cannot be written now is
// too, and is judged again at a later open.
Restatement restatePaperVerdicts(store::RunStore& store, const ExperimentRegistry& registry);

}  // namespace fl
