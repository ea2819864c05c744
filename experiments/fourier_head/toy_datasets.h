// The Fourier head paper's synthetic benchmark (docs/papers.md, "Fourier head"): a target z in
// [-1, 1] whose conditional density given two inputs (x, y) is known exactly.
//   gaussian: x ~ U(-0.8, 0.8), y ~ N(x, var), z ~ N(y, var)
//   gmm2:     x, y ~ U(-0.8, 0.8), z ~ N(x, var) or N(y, var) with probability 1/2 each
//   beta:     x ~ U(-0.8, 0.8), y ~ N(x, var), z = s * Beta(100|x|, 100|y|), s = +-1
// Plain C++ (no torch) so the generators and densities can be checked on their own.
#pragma once

#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <vector>

namespace fl::fourier_head {

enum class ToyDataset { Gaussian, Gmm2, Beta };

std::optional<ToyDataset> parseToyDataset(const std::string& name);
std::string toString(ToyDataset dataset);
std::vector<std::string> toyDatasetNames();

struct ToySample {
  double x = 0;
  double y = 0;
  double z = 0;
};

// Draws the inputs and then the target.
ToySample drawToySample(ToyDataset dataset, double variance, std::mt19937_64& rng);
// Draws only the target for given inputs: the conditional distribution the head must learn.
double drawToyTarget(ToyDataset dataset, double variance, double x, double y, std::mt19937_64& rng);

// The true conditional density p(z | x, y) on the real line.
double toyTrueDensity(ToyDataset dataset, double variance, double x, double y, double z);

// Bin index of v among `bins` equal bins of [-1, 1]; values outside fall in the edge bins.
int64_t toBin(double v, int64_t bins);
double binCenter(int64_t index, int64_t bins);

// The true density at the bin centres, normalised to sum to 1: the reference for KL.
std::vector<double> toyTruePmf(ToyDataset dataset, double variance, double x, double y,
                               int64_t bins);

}  // namespace fl::fourier_head
