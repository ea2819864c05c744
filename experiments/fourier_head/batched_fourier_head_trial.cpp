#include "experiments/fourier_head/batched_fourier_head_trial.h"

#include <stdexcept>

#include "core/engine/device.h"

namespace fl::fourier_head {

namespace {

std::vector<BatchedMember> membersOf(const std::vector<TrialContext>& contexts) {
  std::vector<BatchedMember> members;
  for (const auto& context : contexts) {
    if (context.device != contexts.front().device)
      throw std::invalid_argument("a batched group trains on one device, not on " +
                                  contexts.front().device.str() + " and " + context.device.str());
    members.push_back({ToyBenchmarkSettings::fromConfig(context.config), context.seed});
  }
  return members;
}

}  // namespace

BatchedFourierHeadTrial::BatchedFourierHeadTrial(const std::vector<TrialContext>& members)
    : m_program(std::make_unique<BatchedFourierHeadProgram>(
          membersOf(members), members.empty() ? c10::Device(c10::kCPU) : members.front().device)) {}

std::string toyGroupKey(const nlohmann::json& config) {
  const std::string device = configDevice(config.value("device", "cpu"));
  const auto code = device == "cpu" ? BatchedFourierHeadProgram::StepCode::Kernels
                                    : BatchedFourierHeadProgram::StepCode::TensorOps;
  return device + "|" +
         BatchedFourierHeadProgram::shapeKey(ToyBenchmarkSettings::fromConfig(config), code);
}

std::string toyGroupDifference(const nlohmann::json& a, const nlohmann::json& b) {
  const std::string deviceA = configDevice(a.value("device", "cpu"));
  const std::string deviceB = configDevice(b.value("device", "cpu"));
  if (deviceA != deviceB) return "device " + deviceA + " vs " + deviceB;
  // As BatchedFourierHeadProgram steps a group there: the CPU's kernels, tensor ops elsewhere.
  const auto code = deviceA == "cpu" ? BatchedFourierHeadProgram::StepCode::Kernels
                                     : BatchedFourierHeadProgram::StepCode::TensorOps;
  return BatchedFourierHeadProgram::shapeDifference(ToyBenchmarkSettings::fromConfig(a),
                                                    ToyBenchmarkSettings::fromConfig(b), code);
}

}  // namespace fl::fourier_head
