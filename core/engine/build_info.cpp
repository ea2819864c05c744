#include "core/engine/build_info.h"

#include <unistd.h>

#include <fstream>

#include <torch/cuda.h>
#include <torch/version.h>

#include "fourierlab/version.h"

namespace fl {

namespace {

// The first mapped shared object whose name says BLAS: what LibTorch's matrix products call.
std::string loadedBlas() {
  std::ifstream maps("/proc/self/maps");
  std::string line;
  while (std::getline(maps, line)) {
    const auto slash = line.find('/');
    if (slash == std::string::npos) continue;
    const std::string path = line.substr(slash);
    const auto base = path.substr(path.rfind('/') + 1);
    if (base.find("blas") != std::string::npos) return path;
  }
  return "unknown";
}

}  // namespace

nlohmann::json BuildInfo::toJson() const {
  return {{"app_version", appVersion},   {"torch_version", torchVersion},
          {"cuda_available", cudaAvailable}, {"cuda_devices", cudaDevices},
          {"blas", blasLibrary},         {"host", host}};
}

BuildInfo currentBuildInfo() {
  BuildInfo info;
  info.appVersion = FOURIERLAB_VERSION;
  info.torchVersion = TORCH_VERSION;
  info.cudaAvailable = torch::cuda::is_available();
  info.cudaDevices = info.cudaAvailable ? static_cast<int>(torch::cuda::device_count()) : 0;
  info.blasLibrary = loadedBlas();
  char host[256] = {0};
  if (gethostname(host, sizeof(host) - 1) == 0) info.host = host;
  return info;
}

}  // namespace fl
