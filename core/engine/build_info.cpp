#include "core/engine/build_info.h"

#include <unistd.h>

#include <torch/cuda.h>
#include <torch/version.h>

#include "core/engine/blas_gemm.h"
#include "fourierlab/version.h"

namespace fl {

namespace {

// Which BLAS does what: LibTorch's matrix products call the MKL inside PyTorch's wheel
// (libtorch_cpu); our small products (blas_gemm.h) may call another.
std::string loadedBlas() {
  return "LibTorch: MKL in libtorch_cpu; small products: " + gemmBackend();
}

}  // namespace

nlohmann::json BuildInfo::toJson() const {
  return {{"app_version", appVersion},
          {"torch_version", torchVersion},
          {"cuda_available", cudaAvailable},
          {"cuda_devices", cudaDevices},
          {"blas", blasLibrary},
          {"host", host}};
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
