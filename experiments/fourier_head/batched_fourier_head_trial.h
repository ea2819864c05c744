// BatchedFourierHeadTrial: the engine's face of a BatchedFourierHeadProgram, so a
// GroupRunner drives the toy benchmark's groups as it would any experiment's BatchedTrial.
// Grouping rule (toyGroupDifference): both runs on one device, and the program's shapeDifference
// for the code that steps there (on a GPU, Fourier heads of any N train together).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/engine/experiment.h"
#include "experiments/fourier_head/batched_fourier_head_program.h"

namespace fl::fourier_head {

class BatchedFourierHeadTrial : public BatchedTrial {
 public:
  // Builds every member as its single run (seeded by the program: hold no SeededScope).
  explicit BatchedFourierHeadTrial(const std::vector<TrialContext>& members);

  int64_t memberCount() const override { return m_program->memberCount(); }
  TrialPlan plan(int64_t member) const override { return m_program->plan(member); }
  int64_t stepsDone(int64_t member) const override { return m_program->stepsDone(member); }
  void setActive(int64_t member, bool active) override { m_program->setActive(member, active); }
  std::vector<std::optional<StepLoss>> trainStep() override { return m_program->trainStep(); }
  void evaluate(int64_t member, bool final, EvalReport& out) override {
    m_program->evaluate(member, final, out);
  }
  std::vector<Snapshot> probe(int64_t member,
                              const std::map<std::string, double>& inputs) override {
    return m_program->probe(member, inputs);
  }
  bool supportsCheckpoints() const override { return true; }
  std::string stepDescription() const override { return m_program->stepDescription(); }
  void saveCheckpoint(int64_t member, const std::string& path) const override {
    m_program->saveCheckpoint(member, path);
  }
  void loadCheckpoint(int64_t member, const std::string& path) override {
    m_program->loadCheckpoint(member, path);
  }

 private:
  std::unique_ptr<BatchedFourierHeadProgram> m_program;
};

// Empty when two validated fourier-head configs can train in one group; else what differs.
std::string toyGroupDifference(const nlohmann::json& a, const nlohmann::json& b);
// The same rule as a key: equal for two configs exactly when toyGroupDifference is empty.
std::string toyGroupKey(const nlohmann::json& config);

}  // namespace fl::fourier_head
