#include "core/engine/device.h"

#include <stdexcept>

#include <ATen/Parallel.h>
#include <torch/cuda.h>

#include "core/engine/cuda_devices.h"

namespace fl {

namespace {

// "cpu, cuda:0 — NVIDIA H200, 140 GiB": what an error about a missing device offers instead.
std::string devicesHere() {
  std::string text = "cpu";
  for (const auto& d : cudaDevices().devices) text += ", " + describeCudaDevice(d);
  return text;
}

std::string cpuDescription() {
  const int threads = at::get_num_threads();
  return "cpu (" + std::to_string(threads) + (threads == 1 ? " thread)" : " threads)");
}

}  // namespace

ResolvedDevice resolveDevice(const std::string& text) {
  std::string error;
  auto spec = parseDeviceSpec(text, &error);
  if (!spec) throw std::runtime_error(error);

  const auto& cuda = cudaDevices().devices;
  switch (spec->kind) {
    case DeviceSpec::Kind::Cpu:
      return {torch::kCPU, "cpu", cpuDescription()};
    case DeviceSpec::Kind::Auto:
      if (!cuda.empty())
        return {torch::Device(torch::kCUDA, 0), "cuda:0",
                describeCudaDevice(cuda.front()) + " (auto: the first CUDA device)"};
      return {torch::kCPU, "cpu", cpuDescription() + " (auto: no CUDA device available)"};
    case DeviceSpec::Kind::Cuda: {
      if (cuda.empty())
        throw std::runtime_error("device '" + text + "' requested, but " +
                                 cudaDevices().unavailableReason +
                                 "; this machine has: cpu (use --device cpu or auto)");
      const int index = spec->index < 0 ? 0 : spec->index;
      if (index >= static_cast<int>(cuda.size()))
        throw std::runtime_error("device '" + text + "' requested, but there is no such device; " +
                                 "this machine has: " + devicesHere());
      const std::string name = "cuda:" + std::to_string(index);
      return {torch::Device(torch::kCUDA, static_cast<c10::DeviceIndex>(index)), name,
              describeCudaDevice(cuda[index])};
    }
  }
  throw std::runtime_error("unreachable device kind");
}

std::optional<std::string> pickerValueFor(const std::string& text, std::string* error) {
  try {
    const ResolvedDevice resolved = resolveDevice(text);
    return text == "auto" ? std::string("auto") : resolved.name;
  } catch (const std::exception& e) {
    if (error) *error = e.what();
    return std::nullopt;
  }
}

std::vector<DeviceChoice> deviceChoices() {
  const auto& cuda = cudaDevices();
  std::vector<DeviceChoice> out;
  // Short: the picker is a narrow dock; the device's full label is the entry below it.
  out.push_back({"auto", cuda.devices.empty() ? "auto (cpu)" : "auto (cuda:0)", ""});
  out.push_back({"cpu", "cpu", ""});
  for (const auto& d : cuda.devices)
    out.push_back({"cuda:" + std::to_string(d.index), describeCudaDevice(d), ""});
  if (cuda.devices.empty()) out.push_back({"cuda", "cuda", cuda.unavailableReason});
  return out;
}

void copyWithoutWaiting(torch::Tensor& target, const torch::Tensor& host) {
  if (!target.is_cuda() || !host.device().is_cpu()) {
    target.copy_(host);
    return;
  }
  // The caching host allocator keeps the pinned block until the queued copy has read it.
  target.copy_(host.contiguous().pin_memory(), /*non_blocking=*/true);
}

std::string configDevice(const std::string& requested) {
  try {
    return resolveDevice(requested).device.str();
  } catch (const std::exception&) {
    return requested;
  }
}

bool onAccelerator(const std::string& requested) { return configDevice(requested) != "cpu"; }

}  // namespace fl
