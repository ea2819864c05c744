// ExperimentRegistry: the experiments a front end can list and run, by name. The composition
// root (app/) fills it, e.g. with experiments/registerBuiltinExperiments().
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "core/engine/config.h"
#include "core/engine/experiment.h"

namespace fl {

class ExperimentRegistry {
 public:
  // Throws std::invalid_argument when the name is taken.
  void add(std::shared_ptr<const Experiment> experiment);
  std::shared_ptr<const Experiment> find(const std::string& name) const;
  const std::vector<std::shared_ptr<const Experiment>>& all() const { return m_experiments; }
  std::string names() const;  // "a, b, c" for error messages

 private:
  std::vector<std::shared_ptr<const Experiment>> m_experiments;
};

// The one check before a run of `experiment` is created, for every front end (the CLI's `run`,
// the GUI's Run, each cell of a study, a resume): each key against its declaration
// (validateConfig), then, when those pass, Experiment::checkConfig (clashing keys, the corpus).
ValidatedConfig validateRunConfig(const Experiment& experiment, const nlohmann::json& overrides);

// Resolves a preset and KEY=VALUE assignments into a validated config (validateRunConfig):
// preset overrides first, then the assignments in order. Issues name the preset or the key; an
// empty preset name means none; a key assigned twice is refused (never "the last one wins").
ValidatedConfig buildConfig(const Experiment& experiment, const std::string& presetName,
                            const std::vector<std::string>& assignments);

}  // namespace fl
