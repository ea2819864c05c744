#include "experiments/fourier_qk/fourier_qk_settings.h"

#include <cmath>

#include "core/nn/qk_filters/causal_kernel_filter.h"
#include "core/nn/qk_filters/spectral_filter.h"

namespace fl::fourier_qk {

std::vector<std::string> variantNames() {
  return {"none",
          "random",
          "fourier",
          "multi",
          "spectral_mexican_hat",
          "spectral_mexican_hat_k4",
          "gaussian",
          "mexican_hat",
          "causal_morlet"};
}

FourierQkSettings FourierQkSettings::fromConfig(const nlohmann::json& c) {
  FourierQkSettings s;
  s.lm = char_lm::CharLmSettings::fromConfig(c);
  s.variant = c.at("variant").get<std::string>();
  s.scoreScaling = c.at("score_scaling").get<std::string>() == "double" ? nn::ScoreScaling::Double
                                                                        : nn::ScoreScaling::Sqrt;
  s.position = nn::parsePositionKind(c.at("position").get<std::string>()).value();
  s.sigmaBins = c.at("sigma").get<double>();
  s.initialBin = c.at("init_bin").get<double>();
  s.fixedCentre = c.at("fixed_centre").get<bool>();
  s.filterNorm =
      c.at("filter_norm").get<std::string>() == "l1" ? nn::SpectralNorm::L1 : nn::SpectralNorm::L2;
  s.centres = c.at("centres").get<int64_t>();
  s.kernelLength = c.at("kernel_len").get<int64_t>();
  s.kernelScale = c.at("kernel_scale").get<double>();
  s.causalityTolerance = c.at("causality_tolerance").get<double>();
  s.probeWindows = c.at("probe_windows").get<int64_t>();
  return s;
}

std::vector<double> FourierQkSettings::initialCentres() const {
  if (variant != "multi") return {initialBin};
  std::vector<double> bins;
  const double top = static_cast<double>(lm.trainLength / 2);
  for (int64_t k = 0; k < centres; ++k)
    bins.push_back(std::min(initialBin * std::pow(2.0, k), top));
  return bins;
}

namespace {

// The variants that are causal time-domain kernels (the ones kernel_len and kernel_scale set).
std::vector<std::string> causalKernelVariants() {
  std::vector<std::string> names;
  for (const auto& name : variantNames())
    if (nn::parseCausalKernel(name)) names.push_back(name);
  return names;
}

}  // namespace

std::vector<ParamSpec> fourierQkParams() {
  using P = ParamSpec;
  char_lm::CharLmSettings d;  // the tiny CPU model; context 256 as in the paper
  d.trainLength = 256;
  d.training.batchSize = 16;
  d.training.steps = 600;
  d.training.lr = 2e-3;
  d.training.minLr = 2e-4;
  d.training.warmupSteps = 50;
  d.training.evalEvery = 100;
  d.evalTokens = 16384;
  d.model.norm = "layernorm";
  std::vector<ParamSpec> params{
      P::choice("variant", "fourier", variantNames(),
                "Q/K preprocessing: none (standard attention); random, fourier, multi: spectral "
                "filters over the whole window (NOT causal; random and multi are FourierLab's "
                "own designs, not in the author's code); spectral_mexican_hat: the author's "
                "zero-mean Mexican hat over frequency bins, peak at init_bin, one learned scale "
                "per head (NOT causal); spectral_mexican_hat_k4: the author's MexHat-K4, four "
                "such filters at periods 50, 26, 10 and 5 tokens, their scores averaged after "
                "q k^T (NOT causal); gaussian, mexican_hat, causal_morlet: causal "
                "time-domain kernels")
          .inGroup("filter"),
      P::choice("score_scaling", "sqrt", {"sqrt", "double"},
                "How attention scales the scores q k^T: sqrt, by 1 / sqrt(head size), as the "
                "author's corrected code; double, by 1 / (head size x sqrt(head size)), as the "
                "earlier version whose scores gave the paper's headline numbers (1.031, 0.608, "
                "0.309)")
          .inGroup("filter"),
      P::real("sigma", 2.0, 0.1, 64.0,
              "fourier/multi: Gaussian width in frequency bins (author: 2)")
          .usedOnlyWhen("variant", {"fourier", "multi"})
          .inGroup("filter"),
      P::real("init_bin", 4.0, 0.0, 4096.0,
              "fourier/multi: initial centre in bins of the training window (author: 4 = a "
              "64-token period at 256); multi doubles it for each further centre. "
              "spectral_mexican_hat: the bin of its peak (period train_len / init_bin). Bin 0 "
              "(DC) only with fixed_centre: a learned centre lives in log space")
          .usedOnlyWhen("variant", {"fourier", "multi", "spectral_mexican_hat"})
          .inGroup("filter"),
      P::flag("fixed_centre", false,
              "fourier/multi: keep the centres at init_bin instead of learning them (the "
              "author's spectral ladder: bins 0, 1, 4, 16, 64, 128 of 256)")
          .usedOnlyWhen("variant", {"fourier", "multi"})
          .inGroup("filter"),
      P::choice("filter_norm", "l2", {"l2", "l1"},
                "fourier/multi: how the Gaussian response is scaled over bins: l2 (unit norm, "
                "the author's FourierQK and ladder) or l1 (unit sum, the author's filter-shape "
                "script: narrow and wide bands). spectral_mexican_hat is always l1, as the "
                "author's")
          .usedOnlyWhen("variant", {"fourier", "multi"})
          .inGroup("filter"),
      P::integer("centres", 4, 1, 32, "multi: learnable centres per head (paper: 4)")
          .usedOnlyWhen("variant", {"multi"})
          .inGroup("filter"),
      P::integer("kernel_len", 16, 1, 1024, "Causal kernels: taps (how far back they look)")
          .usedOnlyWhen("variant", causalKernelVariants())
          .inGroup("filter"),
      P::real("kernel_scale", 4.0, 0.1, 1024.0, "Causal kernels: scale in tokens")
          .usedOnlyWhen("variant", causalKernelVariants())
          .inGroup("filter"),
      P::choice("position", "learned", nn::positionKindNames(),
                "Position encoding (the author's model: learned absolute)")
          .inGroup("model"),
  };
  auto shared = char_lm::charLmParams(d);
  params.insert(params.end(), shared.begin(), shared.end());
  params.push_back(P::real("causality_tolerance", 1e-4, 0.0, 1.0,
                           "Largest change in earlier log-probabilities still counted as causal "
                           "(float round-off is ~1e-6)")
                       .logarithmic()
                       .inGroup("evaluation"));
  params.push_back(
      P::integer("probe_windows", 8, 1, 1024, "Validation windows the causality probe perturbs")
          .inGroup("evaluation"));
  return params;
}

std::vector<ConfigIssue> checkFilterSettings(const nlohmann::json& config) {
  const auto variant = config.at("variant").get<std::string>();
  const bool learnsInLogSpace =
      variant == "spectral_mexican_hat" ||
      ((variant == "fourier" || variant == "multi") && !config.at("fixed_centre").get<bool>());
  if (learnsInLogSpace && config.at("init_bin").get<double>() <= 0.0)
    return {{"init_bin",
             "init_bin: bin 0 (DC) needs a fixed centre (fixed_centre=true with "
             "fourier or multi): variant '" +
                 variant + "' learns its frequency in log space"}};
  const auto position = config.at("position").get<std::string>();
  if (variant == "spectral_mexican_hat_k4" && (position == "rope" || position == "fope"))
    return {{"position", "position: '" + position +
                             "' rotates pairs of a head's dimensions, and variant "
                             "'spectral_mexican_hat_k4' hands the attention four filtered copies "
                             "of each query and key side by side: use learned, none or alibi"}};
  return {};
}

// The author's MexHat-K4 periods, in tokens.
const std::vector<double> kMexicanHatBankPeriods{50, 26, 10, 5};

std::shared_ptr<nn::QkFilterImpl> makeQkFilter(const FourierQkSettings& s) {
  const int64_t heads = s.lm.model.heads, t = s.lm.trainLength;
  if (s.variant == "none") return nullptr;
  if (s.variant == "random") return std::make_shared<nn::RandomSpectralFilterImpl>(heads, t);
  if (s.variant == "fourier" || s.variant == "multi") {
    const auto bins = s.initialCentres();
    return std::make_shared<nn::GaussianBandFilterImpl>(heads, t, static_cast<int64_t>(bins.size()),
                                                        s.sigmaBins, bins, s.filterNorm,
                                                        /*learnCentres=*/!s.fixedCentre);
  }
  if (s.variant == "spectral_mexican_hat")
    return std::make_shared<nn::SpectralMexicanHatFilterImpl>(heads, t,
                                                              std::vector<double>{s.initialBin});
  if (s.variant == "spectral_mexican_hat_k4") {
    std::vector<double> peakBins;
    for (const double period : kMexicanHatBankPeriods)
      peakBins.push_back(static_cast<double>(t) / period);
    return std::make_shared<nn::SpectralMexicanHatFilterImpl>(heads, t, peakBins);
  }
  if (auto kernel = nn::parseCausalKernel(s.variant))
    return std::make_shared<nn::CausalKernelFilterImpl>(*kernel, s.kernelLength, s.kernelScale);
  throw std::invalid_argument("unknown variant '" + s.variant + "'");
}

std::string learnedPeriodMetric(int64_t head, int64_t place, int64_t placesPerHead) {
  return "qk/period_h" + std::to_string(head) +
         (placesPerHead > 1 ? "_c" + std::to_string(place) : "");
}

int64_t learnedPeriodsPerHead(const FourierQkSettings& s) {
  if (s.variant == "fourier" || s.variant == "multi")
    return s.fixedCentre ? 0 : static_cast<int64_t>(s.initialCentres().size());
  if (s.variant == "spectral_mexican_hat") return 1;
  if (s.variant == "spectral_mexican_hat_k4")
    return static_cast<int64_t>(kMexicanHatBankPeriods.size());
  return 0;
}

}  // namespace fl::fourier_qk
