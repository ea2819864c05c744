// Whether a stored run reads "not compared" with the paper: a finished run without verdicts
// whose config is one to three settings from a paper preset (a shortened paper run). History
// greys it, `runs list` says `finished:not compared`, and `runs show` and every JSON export
// carry the sentence, all by this one rule.
#pragma once

#include <string>

#include "core/engine/registry.h"
#include "core/store/run_store.h"

namespace fl::store {

// Whether the run can read "not compared" at all: finished, and without verdicts (a running or
// cancelled run is not judged yet, whatever its settings).
bool mayReadNotCompared(const RunRecord& run);

// Why the run was not compared with the paper ("not compared with the paper (paper-fourier):
// epochs 300 (the paper's 500)"); "" for a run that reads otherwise, or of an experiment this
// build lacks.
std::string whyNotCompared(const ExperimentRegistry& registry, const RunRecord& run);

}  // namespace fl::store
