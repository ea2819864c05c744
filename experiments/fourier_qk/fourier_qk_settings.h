// The FourierQK experiment's settings: the shared char-LM settings plus the Q/K filter variant
// and the leakage probes.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "core/engine/config.h"
#include "core/nn/qk_filters/spectral_filter.h"
#include "core/nn/transformer/causal_self_attention.h"
#include "core/nn/transformer/position_encoding.h"
#include "core/nn/transformer/qk_filter.h"
#include "experiments/char_lm/char_lm_settings.h"

namespace fl::fourier_qk {

// none, random, fourier, multi, spectral_mexican_hat, gaussian, mexican_hat, causal_morlet
std::vector<std::string> variantNames();

struct FourierQkSettings {
  char_lm::CharLmSettings lm;
  std::string variant = "fourier";
  nn::ScoreScaling scoreScaling = nn::ScoreScaling::Sqrt;
  nn::PositionKind position = nn::PositionKind::Learned;
  double sigmaBins = 2.0;
  double initialBin = 4.0;
  bool fixedCentre = false;  // fourier/multi: centres stay at their initial bins (the ladder)
  nn::SpectralNorm filterNorm = nn::SpectralNorm::L2;  // fourier/multi
  int64_t centres = 4;                                 // multi
  int64_t kernelLength = 16;
  double kernelScale = 4.0;
  double causalityTolerance = 1e-4;
  int64_t probeWindows = 8;

  static FourierQkSettings fromConfig(const nlohmann::json& config);
  // The initial centres (train-window bins) of `fourier` (one) or `multi` (K, doubling).
  std::vector<double> initialCentres() const;
};

std::vector<ParamSpec> fourierQkParams();

// Filter settings that are each allowed but not together: a learned centre or scale at bin 0
// (DC), whose logarithm does not exist.
std::vector<ConfigIssue> checkFilterSettings(const nlohmann::json& config);

// The variant's filter for one layer (null for `none`). Random filters draw from torch's
// generator, so build the model inside the run's SeededScope.
std::shared_ptr<nn::QkFilterImpl> makeQkFilter(const FourierQkSettings& settings);

// How many places each head's filter learns where it passes (Gaussian centres unless fixed,
// Mexican hat scales), each reported as a period in tokens, qk/period_h<head>[_c<place>]; 0 for
// a filter that learns none.
int64_t learnedPeriodsPerHead(const FourierQkSettings& settings);
// "qk/period_h3", or "qk/period_h3_c1" where each head learns several.
std::string learnedPeriodMetric(int64_t head, int64_t place, int64_t placesPerHead);

}  // namespace fl::fourier_qk
