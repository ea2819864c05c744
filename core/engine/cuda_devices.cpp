#include "core/engine/cuda_devices.h"

#include <dlfcn.h>

#include <cmath>

#include <torch/cuda.h>

namespace fl {

namespace {

// The few driver API entry points we need, with their documented C signatures (cuda.h).
using CuInit = int (*)(unsigned int flags);
using CuDeviceGet = int (*)(int* device, int ordinal);
using CuDeviceGetName = int (*)(char* name, int length, int device);
using CuDeviceTotalMem = int (*)(size_t* bytes, int device);
using CuDeviceGetPciBusId = int (*)(char* id, int length, int device);

// Fills in names, memory and PCI bus ids where the driver library answers; leaves them empty
// otherwise.
void describeFromDriver(std::vector<CudaDevice>& devices) {
  void* driver = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!driver) return;
  auto init = reinterpret_cast<CuInit>(dlsym(driver, "cuInit"));
  auto get = reinterpret_cast<CuDeviceGet>(dlsym(driver, "cuDeviceGet"));
  auto getName = reinterpret_cast<CuDeviceGetName>(dlsym(driver, "cuDeviceGetName"));
  auto totalMem = reinterpret_cast<CuDeviceTotalMem>(dlsym(driver, "cuDeviceTotalMem_v2"));
  auto busId = reinterpret_cast<CuDeviceGetPciBusId>(dlsym(driver, "cuDeviceGetPCIBusId"));
  if (init && get && init(0) == 0) {
    for (auto& d : devices) {
      int handle = 0;
      if (get(&handle, d.index) != 0) continue;
      char name[256] = {};
      if (getName && getName(name, sizeof name, handle) == 0) d.name = name;
      size_t bytes = 0;
      if (totalMem && totalMem(&bytes, handle) == 0) d.totalBytes = bytes;
      char id[64] = {};
      if (busId && busId(id, sizeof id, handle) == 0) d.pciBusId = id;
    }
  }
  // Not closed: LibTorch loads the same library, and the handle costs nothing to keep.
}

CudaDevices askLibTorch() {
  CudaDevices out;
  if (!torch::cuda::is_available()) {
    void* driver = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL);
    out.unavailableReason = driver ? "no CUDA device is visible to LibTorch"
                                   : "no CUDA device is visible (no NVIDIA driver on this machine)";
    return out;
  }
  const auto count = static_cast<int>(torch::cuda::device_count());
  for (int i = 0; i < count; ++i) out.devices.push_back({i, {}, 0});
  describeFromDriver(out.devices);
  return out;
}

}  // namespace

const CudaDevices& cudaDevices() {
  static const CudaDevices devices = askLibTorch();
  return devices;
}

std::string describeCudaDevice(const CudaDevice& device) {
  std::string text = "cuda:" + std::to_string(device.index);
  if (device.name.empty() && device.totalBytes == 0) return text;
  text += " \u2014 " + (device.name.empty() ? std::string("CUDA device") : device.name);
  if (device.totalBytes > 0) {
    // Binary gigabytes, as nvidia-smi's MiB: an H200 (the vendor's "141 GB") reports 143,771
    // MiB, 140 GiB; in decimal gigabytes it read "150 GB", which matched neither.
    const double gibibytes = static_cast<double>(device.totalBytes) / (1024.0 * 1024.0 * 1024.0);
    text += ", " + std::to_string(static_cast<long long>(std::llround(gibibytes))) + " GiB";
  }
  return text;
}

}  // namespace fl
