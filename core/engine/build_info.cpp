#include "core/engine/build_info.h"

#include <unistd.h>


#include <torch/cuda.h>
#include <torch/version.h>

#include "core/engine/blas_gemm.h"
#include "fourierlab/version.h"

namespace fl {

namespace {

// Where the matrix products' sgemm_ comes from: PyTorch's wheel exports MKL's from
// libtorch_cpu; another LibTorch may load a separate BLAS library.
std::string loadedBlas() {
  const std::string backend = gemmBackend();
  const bool mkl = backend.find("libtorch_cpu") != std::string::npos;
  return mkl ? "MKL (" + backend + ")" : backend;
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
