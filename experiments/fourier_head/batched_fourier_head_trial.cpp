#include "experiments/fourier_head/batched_fourier_head_trial.h"

#include <stdexcept>

#include "core/engine/device.h"

namespace fl::fourier_head {

namespace {

std::vector<BatchedMember> membersOf(const std::vector<TrialContext>& contexts) {
  std::vector<BatchedMember> members;
  for (const auto& context : contexts) {
    if (!context.device.is_cpu())
      throw std::invalid_argument("a batched group trains on the CPU only, not on " +
                                  context.device.str());
    members.push_back({ToyBenchmarkSettings::fromConfig(context.config), context.seed});
  }
  return members;
}

bool onCpu(const nlohmann::json& config) {
  try {
    return resolveDevice(config.value("device", "cpu")).device.is_cpu();
  } catch (const std::exception&) {
    return false;
  }
}

}  // namespace

BatchedFourierHeadTrial::BatchedFourierHeadTrial(const std::vector<TrialContext>& members)
    : m_program(std::make_unique<BatchedFourierHeadProgram>(membersOf(members))) {}

std::string toyGroupDifference(const nlohmann::json& a, const nlohmann::json& b) {
  if (!onCpu(a) || !onCpu(b))
    return "device: the batched toy trainer runs on the CPU only; --device cpu batches them";
  return BatchedFourierHeadProgram::shapeDifference(ToyBenchmarkSettings::fromConfig(a),
                                                    ToyBenchmarkSettings::fromConfig(b));
}

}  // namespace fl::fourier_head
