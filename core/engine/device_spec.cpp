#include "core/engine/device_spec.h"

#include <cctype>

namespace fl {

std::optional<DeviceSpec> parseDeviceSpec(const std::string& text, std::string* error) {
  DeviceSpec spec;
  if (text == "auto") return spec;
  if (text == "cpu") {
    spec.kind = DeviceSpec::Kind::Cpu;
    return spec;
  }
  if (text == "cuda") {
    spec.kind = DeviceSpec::Kind::Cuda;
    return spec;
  }
  const std::string prefix = "cuda:";
  if (text.rfind(prefix, 0) == 0 && text.size() > prefix.size() &&
      text.size() <= prefix.size() + 3) {
    bool digits = true;
    for (size_t i = prefix.size(); i < text.size(); ++i)
      digits = digits && std::isdigit(static_cast<unsigned char>(text[i]));
    if (digits) {
      spec.kind = DeviceSpec::Kind::Cuda;
      spec.index = std::stoi(text.substr(prefix.size()));
      return spec;
    }
  }
  if (error) *error = "device must be auto, cpu, cuda or cuda:N, got '" + text + "'";
  return std::nullopt;
}

std::optional<std::string> checkDeviceSpec(const std::string& text) {
  std::string error;
  if (parseDeviceSpec(text, &error)) return std::nullopt;
  return error;
}

}  // namespace fl
