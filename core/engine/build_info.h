// What every run records about the software and machine it ran on: app, LibTorch and CUDA
// versions, the BLAS library actually loaded, and the host.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace fl {

struct BuildInfo {
  std::string appVersion;
  std::string torchVersion;
  bool cudaAvailable = false;
  int cudaDevices = 0;
  std::string blasLibrary;  // "LibTorch: MKL in libtorch_cpu; small products: sgemm_ in …"
  std::string host;

  nlohmann::json toJson() const;
};

BuildInfo currentBuildInfo();

}  // namespace fl
