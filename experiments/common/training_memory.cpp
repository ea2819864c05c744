#include "experiments/common/training_memory.h"

#include <unistd.h>

#include <cstdio>
#include <string>

#include "core/engine/cuda_devices.h"
#include "core/engine/device_spec.h"

namespace fl::transformer_setup {

namespace {

// Float32 weight, gradient, and Adam's first and second moments.
constexpr uint64_t kBytesPerTrainedParameter = 16;

uint64_t hostMemory() {
  const long pages = sysconf(_SC_PHYS_PAGES), pageSize = sysconf(_SC_PAGESIZE);
  return pages > 0 && pageSize > 0 ? static_cast<uint64_t>(pages) * static_cast<uint64_t>(pageSize)
                                   : 0;
}

std::string gib(uint64_t bytes) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f GiB", static_cast<double>(bytes) / (1ull << 30));
  return text;
}

}  // namespace

uint64_t trainingMemoryFloor(const nlohmann::json& config) {
  const auto d = static_cast<uint64_t>(config.at("d_model").get<int64_t>());
  const auto layers = static_cast<uint64_t>(config.at("layers").get<int64_t>());
  const auto ratio = static_cast<uint64_t>(config.at("mlp_ratio").get<int64_t>());
  return layers * (4 + 2 * ratio) * d * d * kBytesPerTrainedParameter;
}

uint64_t deviceMemory(const nlohmann::json& config) {
  const auto spec = parseDeviceSpec(config.value("device", std::string("auto")));
  if (!spec || spec->kind == DeviceSpec::Kind::Cpu) return hostMemory();
  const auto& cuda = cudaDevices().devices;
  if (spec->kind == DeviceSpec::Kind::Auto && cuda.empty()) return hostMemory();
  const size_t index = spec->index < 0 ? 0 : static_cast<size_t>(spec->index);
  return index < cuda.size() ? cuda[index].totalBytes : 0;
}

std::optional<ConfigIssue> checkTrainingMemory(const nlohmann::json& config) {
  const uint64_t floor = trainingMemoryFloor(config);
  const uint64_t available = deviceMemory(config);
  if (available == 0 || floor <= available) return std::nullopt;
  const double parameters = static_cast<double>(floor / kBytesPerTrainedParameter);
  char count[32];
  std::snprintf(count, sizeof count, "%.3g", parameters / 1e9);
  return ConfigIssue{
      "d_model",
      "'d_model'=" + std::to_string(config.at("d_model").get<int64_t>()) +
          " with 'layers'=" + std::to_string(config.at("layers").get<int64_t>()) +
          " and 'mlp_ratio'=" + std::to_string(config.at("mlp_ratio").get<int64_t>()) +
          " makes at least " + count + " billion parameters: training them needs at least " +
          gib(floor) +
          " (weights, gradients and Adam's two moments, 16 bytes each), and the device ('" +
          config.value("device", std::string("auto")) + "') has " + gib(available)};
}

}  // namespace fl::transformer_setup
