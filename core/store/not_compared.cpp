#include "core/store/not_compared.h"

#include "core/engine/preset_verdicts.h"

namespace fl::store {

bool mayReadNotCompared(const RunRecord& run) {
  return run.status == RunStatus::Finished && run.verdicts.empty();
}

std::string whyNotCompared(const ExperimentRegistry& registry, const RunRecord& run) {
  if (!mayReadNotCompared(run)) return "";
  const auto experiment = registry.find(run.experiment);
  return experiment ? whyNotComparedWithPaper(*experiment, run.config) : "";
}

}  // namespace fl::store
