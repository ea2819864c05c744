// Resolves a DeviceSpec against what this LibTorch build can see. `auto` picks CUDA when
// torch::cuda::is_available(), else the CPU, and the description says which was used.
#pragma once

#include <string>
#include <vector>

#include <torch/types.h>

#include "core/engine/device_spec.h"

namespace fl {

struct ResolvedDevice {
  torch::Device device = torch::kCPU;
  std::string name;         // "cpu", "cuda:0": what the run store records
  std::string description;  // "cpu (2 threads)" or "cuda:0 (auto: CUDA available)"
};

// Throws std::runtime_error with a clear message when CUDA is asked for and missing, or the
// ordinal does not exist.
ResolvedDevice resolveDevice(const std::string& spec);

// The device a config's "device" value names, resolved ("auto" too); as written where this
// machine has no such device (a run asking for it fails when it starts, with the reason).
std::string configDevice(const std::string& requested);
// Whether that device is an accelerator (anything but the CPU).
bool onAccelerator(const std::string& requested);

// Copies a host tensor into `target` (of its shape, on any device) without the host waiting
// for the copy: through contiguous pinned memory on a GPU (a plain copy from pageable memory
// waits for the device's queue to drain, once per training step), a plain copy on the CPU.
void copyWithoutWaiting(torch::Tensor& target, const torch::Tensor& host);

}  // namespace fl
