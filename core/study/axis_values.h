// The text of an axis or a seed list, as typed on the command line or in the GUI's form:
// "gaussian,gmm2,beta", "0,1e-6", and for numbers an arithmetic range "2,4,...,20" (the first
// two values give the step, the value after "..." ends it). Each value is parsed and checked
// by its parameter's spec, so errors name the key and the value as typed.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/engine/param_spec.h"
#include "core/engine/study_spec.h"

namespace fl::study {

struct AxisParse {
  std::vector<nlohmann::json> values;
  std::optional<std::string> error;
};

// `repeats`: a value may come again (a zipped axis, whose settings are its axes' values taken
// together: frequencies 2,2,4 beside gamma 0,1e-6,0 are three settings).
AxisParse parseAxisValues(const ParamSpec& spec, const std::string& text, bool repeats = false);

// "KEY=V1,V2,..." against the experiment's specs: an Axis, or an error naming the key.
struct AxisAssignment {
  Axis axis;
  std::optional<std::string> error;
};
AxisAssignment parseAxisAssignment(const std::vector<ParamSpec>& specs, const std::string& text,
                                   bool repeats = false);

// "KEY=V1,V2,KEY2=W1,W2": axes that vary together (equal lengths); a value may repeat on one
// axis, a setting (the values at one place on every axis) may not.
struct ZipAssignment {
  ZipGroup zip;
  std::optional<std::string> error;
};
ZipAssignment parseZipAssignment(const std::vector<ParamSpec>& specs, const std::string& text);

// "1,2,3,42" or "1,2,...,10".
struct SeedList {
  std::vector<int64_t> seeds;
  std::optional<std::string> error;
};
SeedList parseSeeds(const ParamSpec& seedSpec, const std::string& text);

// Refuses the first setting a zip group gives twice: "the setting frequencies=2, gamma=0.0 is
// given twice (...)"; nullopt if none.
std::optional<std::string> repeatedZipSetting(const ZipGroup& zip);

}  // namespace fl::study
