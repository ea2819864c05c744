#include "core/engine/paper_verdict_restate.h"

#include <algorithm>
#include <cstdio>
#include <map>

#include "core/engine/preset_verdicts.h"
#include "core/engine/reference_check.h"
#include "core/store/config_hash.h"

namespace fl {

std::string paperVerdictStamp(const ExperimentRegistry& registry) {
  // Which runs a preset judges (its overrides) and by what (its reference).
  std::string figures;
  for (const auto& experiment : registry.all())
    for (const auto& preset : experiment->presets())
      if (!preset.reference.is_null())
        figures += experiment->name() + "/" + preset.name + " " + preset.overrides.dump() + " " +
                   preset.reference.dump() + "\n";
  return "rule " + std::to_string(kPaperVerdictRuleVersion) + ", figures " +
         store::stableHash(figures);
}

std::string Restatement::sentence() const {
  if (!failed.empty())
    return "the verdicts against the paper its runs were given by an older build are shown as "
           "they were written (the store could not be written: " +
           failed + ")";
  if (changed == 0) return "";
  return std::to_string(changed) + (changed == 1 ? " run's" : " runs'") +
         " verdicts against the paper judged again by this build's rule and published figures";
}

std::string Restatement::note(const std::string& storePath) const {
  const std::string said = sentence();
  return said.empty() ? said : "note: " + storePath + ": " + said + "\n";
}

namespace {

// The rule's version a stamp names ("rule 2, figures ..."), or 0.
int ruleVersionOf(const std::string& stamp) {
  int version = 0;
  return std::sscanf(stamp.c_str(), "rule %d", &version) == 1 ? version : 0;
}

// The finished runs whose verdicts against the paper this build gives otherwise, restated.
std::vector<store::RunStore::RestatedRun> judgedAgain(const store::RunStore& store,
                                                      const ExperimentRegistry& registry) {
  store::RunFilter finished;
  finished.status = RunStatus::Finished;
  finished.includeArchived = true;
  const auto isPaper = [](const Verdict& v) { return v.source == VerdictSource::Paper; };
  std::vector<store::RunStore::RestatedRun> changed;
  for (const auto& run : store.listRuns(finished)) {
    if (std::none_of(run.verdicts.begin(), run.verdicts.end(), isPaper)) continue;
    const auto experiment = registry.find(run.experiment);
    if (!experiment) continue;
    std::map<std::string, double> last, lowest;
    for (const auto& metric : run.metrics) {
      last[metric.key] = metric.last;
      lowest[metric.key] = metric.min;
    }
    const auto judged = checkAgainstPresets(*experiment, run.config, last, lowest);
    if (judged.empty()) continue;  // no preset's configuration now: kept as it was judged
    store::RunStore::RestatedRun restated{run.id, run.message, {}};
    std::string before;
    for (const auto& v : run.verdicts)
      if (isPaper(v))
        before += (before.empty() ? "" : "; ") + v.detail;
      else
        restated.verdicts.push_back(v);
    const std::string after = joinVerdicts(judged);
    if (after == before) continue;
    for (const auto& v : judged) restated.verdicts.push_back(verdictOfReference(v));
    // The run's end wrote the paper's sentences last in its message: replaced there.
    std::string& message = restated.message;
    if (message.size() >= before.size() &&
        message.compare(message.size() - before.size(), before.size(), before) == 0)
      message = message.substr(0, message.size() - before.size()) + after;
    changed.push_back(std::move(restated));
  }
  return changed;
}

}  // namespace

Restatement restatePaperVerdicts(store::RunStore& store, const ExperimentRegistry& registry) {
  Restatement out;
  if (store.isReadOnly()) return out;
  try {
    const std::string stamp = paperVerdictStamp(registry);
    const std::string stored = store.metaValue(kPaperVerdictStampKey);
    if (stored == stamp) return out;
    // A newer build's rule is left to it: an older build would judge its verdicts back.
    if (ruleVersionOf(stored) > kPaperVerdictRuleVersion) return out;
    // Nothing judged against the paper yet: nothing to write (a store is not written to merely
    // by being read).
    if (store.verdictCount(VerdictSource::Paper) == 0) return out;
    const auto changed = judgedAgain(store, registry);
    store.restateVerdicts(changed, kPaperVerdictStampKey, stamp);
    out.changed = static_cast<int>(changed.size());
  } catch (const store::StoreError& e) {
    out.failed = e.what();
  }
  return out;
}

}  // namespace fl
