#include "core/engine/device.h"

#include <stdexcept>

#include <ATen/Parallel.h>
#include <torch/cuda.h>

namespace fl {

namespace {

std::string cpuDescription() {
  const int threads = at::get_num_threads();
  return "cpu (" + std::to_string(threads) + (threads == 1 ? " thread)" : " threads)");
}

}  // namespace

ResolvedDevice resolveDevice(const std::string& text) {
  std::string error;
  auto spec = parseDeviceSpec(text, &error);
  if (!spec) throw std::runtime_error(error);

  const bool cudaAvailable = torch::cuda::is_available();
  const int cudaCount = cudaAvailable ? static_cast<int>(torch::cuda::device_count()) : 0;

  switch (spec->kind) {
    case DeviceSpec::Kind::Cpu:
      return {torch::kCPU, "cpu", cpuDescription()};
    case DeviceSpec::Kind::Auto:
      if (cudaAvailable)
        return {torch::Device(torch::kCUDA, 0), "cuda:0", "cuda:0 (auto: CUDA is available)"};
      return {torch::kCPU, "cpu", cpuDescription() + " (auto: no CUDA device available)"};
    case DeviceSpec::Kind::Cuda: {
      if (!cudaAvailable)
        throw std::runtime_error(
            "device '" + text +
            "' requested, but CUDA is not available (this LibTorch build has no CUDA support "
            "or no CUDA device is visible); use --device cpu or auto");
      const int index = spec->index < 0 ? 0 : spec->index;
      if (index >= cudaCount)
        throw std::runtime_error("device '" + text + "' requested, but only " +
                                 std::to_string(cudaCount) + " CUDA device(s) are visible");
      const std::string name = "cuda:" + std::to_string(index);
      return {torch::Device(torch::kCUDA, static_cast<c10::DeviceIndex>(index)), name, name};
    }
  }
  throw std::runtime_error("unreachable device kind");
}

std::vector<std::string> availableDevices() {
  std::vector<std::string> out{"cpu"};
  if (torch::cuda::is_available()) {
    const auto n = torch::cuda::device_count();
    for (size_t i = 0; i < n; ++i) out.push_back("cuda:" + std::to_string(i));
  }
  return out;
}

}  // namespace fl
