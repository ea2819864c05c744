// What a device picker and a device error show of the machine's GPUs: each CUDA device LibTorch
// can use, by ordinal, name and memory ("cuda:0 — NVIDIA H200, 140 GiB"). LibTorch's C++ API
// says how many devices there are but not what they are (that needs the CUDA runtime's headers,
// which a machine with only the driver lacks), so names and memory come from the driver's own
// library, loaded at run time; without it a device is still listed, by ordinal.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace fl {

struct CudaDevice {
  int index = 0;
  std::string name;         // "NVIDIA H200"; empty when the driver library could not say
  uint64_t totalBytes = 0;  // 0 when unknown
  // "0000:3B:00.0": how NVML (which numbers devices its own way) finds this device; empty when
  // the driver library could not say.
  std::string pciBusId;
};

struct CudaDevices {
  std::vector<CudaDevice> devices;
  // Why there are none, for a greyed choice and an error: "no CUDA device is visible to
  // LibTorch", "no CUDA device is visible (no NVIDIA driver on this machine)". Empty when there
  // are devices.
  std::string unavailableReason;
};

// Asked of LibTorch once per process and kept: devices do not come and go while the lab runs.
const CudaDevices& cudaDevices();

// "cuda:0 — NVIDIA H200, 140 GiB" (binary gigabytes, as nvidia-smi counts).
std::string describeCudaDevice(const CudaDevice& device);

}  // namespace fl
