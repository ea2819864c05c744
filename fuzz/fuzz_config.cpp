// Fuzzes what `--set KEY=VALUE` and the window's form hand the config code: each input line is
// an assignment applied to one parameter list of every kind the experiments declare, then the
// whole config is validated. Nothing may crash, hang, leak or hit undefined behaviour; every
// refusal is an issue with a message.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "core/engine/config.h"
#include "core/engine/device_spec.h"

namespace {

std::vector<fl::ParamSpec> specs() {
  using P = fl::ParamSpec;
  std::vector<P> out = fl::runParams();
  out.push_back(P::integer("epochs", 500, 1, 100000, "passes"));
  out.push_back(P::real("lr", 1e-3, 0.0, 1.0, "rate").exclusiveMinimum().logarithmic());
  out.push_back(P::real("gamma", 0.0, 0.0, 1.0, "weight"));
  out.push_back(P::choice("head", "fourier", {"linear", "fourier", "gmm"}, "head"));
  out.push_back(P::flag("learnable", false, "flag"));
  out.push_back(P::text("corpus", "", "a path"));
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const std::vector<fl::ParamSpec> params = specs();
  const std::string text(reinterpret_cast<const char*>(data), size);
  nlohmann::json overrides = nlohmann::json::object();
  size_t start = 0;
  while (start <= text.size()) {
    const size_t end = std::min(text.find('\n', start), text.size());
    const auto issue = fl::applyAssignment(params, text.substr(start, end - start), overrides);
    if (issue && issue->message.empty()) __builtin_trap();  // a refusal must say why
    start = end + 1;
  }
  const auto validated = fl::validateConfig(params, overrides);
  if (!validated.ok() && validated.summary().empty()) __builtin_trap();
  (void)fl::checkDeviceSpec(overrides.value("device", nlohmann::json("auto")).is_string()
                                ? overrides.value("device", std::string("auto"))
                                : std::string("auto"));
  return 0;
}
