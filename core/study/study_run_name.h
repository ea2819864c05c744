// What a study calls its settings and the runs it creates. A setting reads as its axis values
// and seed ("dataset=gmm2 head=fourier seed=3"); a run a study creates is named by the study,
// its arm (when the study has arms) and that setting ("table1 · dataset=gmm2 head=fourier
// seed=3"), so the History and `fourierlab-cli runs list` tell a study's runs apart at a glance.
//
// Torch-free: the CLI, the scheduler, the store and the window's History all read these.
#pragma once

#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

namespace fl::study {

// "dataset=gmm2 head=fourier seed=3"
std::string cellLabel(const nlohmann::json& axes, int64_t seed);

// A cell of a study with arms names its arm first ("Fourier head · frequencies=12 seed=1"): two
// arms' cells can share every axis value and seed.
std::string cellLabel(const std::string& arm, const nlohmann::json& axes, int64_t seed);

// A setting over its seeds: "Fourier head · frequencies=12"; "the study's one setting" where it
// has neither an arm nor an axis.
std::string settingLabel(const std::string& arm, const nlohmann::json& axes);

// "table1 · dataset=gmm2 head=fourier seed=3"; with an arm,
// "frequencies · Fourier head · dataset=gmm2 frequencies=12 seed=1".
std::string studyRunName(const std::string& study, const std::string& arm,
                         const nlohmann::json& axes, int64_t seed);

// Whether `name` has studyRunName's form (a study's name, " · ", then its setting): a name the
// study gave, which says less in a comparison than the values that set the run apart.
bool isStudyRunName(const std::string& name);

}  // namespace fl::study
