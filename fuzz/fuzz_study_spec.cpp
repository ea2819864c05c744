// Fuzzes a study as a user writes it: the input is a study file's text (JSON) for
// StudySpec::fromText, and, line by line, the command line's axes (--grid KEY=V1,V2,...,
// --zip, --seeds). Bad input must be refused with a message (std::invalid_argument or an
// error string), never crash, hang, leak or overflow; an accepted spec must survive a round trip
// through its own JSON, and its metric names are checked against a toy experiment's (every
// one a metric names is said where it is).
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/engine/config.h"
#include "core/engine/study_spec.h"
#include "core/study/axis_values.h"
#include "core/study/metric_names.h"

namespace {

std::vector<fl::ParamSpec> specs() {
  using P = fl::ParamSpec;
  std::vector<P> out = fl::runParams();
  out.push_back(P::integer("frequencies", 12, 1, 64, "N"));
  out.push_back(P::real("gamma", 0.0, 0.0, 1.0, "weight"));
  out.push_back(P::choice("dataset", "gmm2", {"gaussian", "gmm2", "beta"}, "data"));
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const std::vector<fl::ParamSpec> params = specs();
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    const auto spec = fl::study::StudySpec::fromText(text);
    (void)fl::study::countRuns(spec);
    const auto again = fl::study::StudySpec::fromJson(spec.toJson());
    if (again.toJson() != spec.toJson()) __builtin_trap();  // the round trip loses nothing
    static const std::vector<std::string> recorded{"train/loss", "system/*",    "test/kl",
                                                   "val/ppl@64", "val/ppl@128", "qk/period_h*"};
    for (const auto& problem : fl::study::unrecordedMetrics(spec, recorded))
      if (problem.text().find(": no run of this study records ") == std::string::npos)
        __builtin_trap();
  } catch (const std::invalid_argument& e) {
    if (std::string(e.what()).empty()) __builtin_trap();
  }
  size_t start = 0;
  while (start <= text.size()) {
    const size_t end = std::min(text.find('\n', start), text.size());
    const std::string line = text.substr(start, end - start);
    const auto axis = fl::study::parseAxisAssignment(params, line);
    const auto zip = fl::study::parseZipAssignment(params, line);
    const auto seeds = fl::study::parseSeeds(*fl::findParam(params, "seed"), line);
    if ((axis.error && axis.error->empty()) || (seeds.error && seeds.error->empty()))
      __builtin_trap();
    (void)zip;
    start = end + 1;
  }
  return 0;
}
