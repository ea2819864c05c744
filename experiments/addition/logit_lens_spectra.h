// The paper's Figure 3 (Zhou et al., Section 3.1): what each layer's attention and MLP write at
// the answer position, read in logit space over the number tokens and transformed over the
// number axis,
//
//   z = W_U o  (M numbers),   S_k = |DFT(z)_k|,   k = 1 .. M/2,
//
// averaged over the test problems. The paper finds the MLPs' spectra concentrated at low
// frequencies (the answer's magnitude) and attention's at high ones (periods 2, 2.5, 5, 10: the
// answer modulo 2, 5, 10). k = 0 is left out: it is the logits' mean over the numbers, which the
// softmax ignores. o is read without the final norm, as the paper's filter reads it
// (logit_lens_ablation.h).
//
// Besides the layer x frequency picture per module, each module's outputs summed over layers
// (what all its layers add to the answer's logits together) give one spectrum per module and the
// share of its energy at high frequencies (period <= the cutoff, as the ablation splits them):
//
//   high share = sum_{k high} mean |Z_k|^2 / sum_{k >= 1} mean |Z_k|^2.
#pragma once

#include <array>
#include <vector>

#include <torch/types.h>

#include "core/nn/transformer/gpt.h"

namespace fl::addition {

struct ModuleSpectra {
  torch::Tensor perLayer;  // (layers, M/2): mean |DFT| of each layer's logits, k = 1 .. M/2
  torch::Tensor summed;    // (M/2): mean |DFT| of the logits summed over layers
  double highShare = 0;    // of the summed logits' energy, k >= 1
};

struct LensSpectra {
  ModuleSpectra attention;
  ModuleSpectra mlp;
  std::vector<int64_t> frequencies;  // 1 .. M/2, the columns' k
  int64_t numbers = 0;               // M
};

// Accumulates the spectra over batches of problems: the hook records every sublayer's output at
// the last position and passes it on unchanged; finishBatch() closes a batch (the per-layer sums
// are only known once every layer has run).
class LensSpectraRecorder {
 public:
  // unembedding: the number tokens' rows of W_U (M, d).
  LensSpectraRecorder(torch::Tensor unembedding, int64_t layers, double cutoffPeriod);

  nn::SublayerHook hook();
  void finishBatch();
  LensSpectra result() const;

 private:
  struct Accumulator {
    std::vector<torch::Tensor> magnitudeSums;  // per layer (M/2 + 1), over problems
    torch::Tensor batchSpectrum;               // complex (B, M/2 + 1): this batch's layers summed
    torch::Tensor summedMagnitudeSum;          // (M/2 + 1)
    torch::Tensor summedEnergySum;             // (M/2 + 1)
  };
  void record(Accumulator& module, int64_t layer, const torch::Tensor& out);
  ModuleSpectra resultOf(const Accumulator& module) const;

  torch::Tensor m_unembedding;  // (M, d) float
  double m_cutoffPeriod;
  std::array<Accumulator, 2> m_modules;  // attention, MLP
  int64_t m_problems = 0;
  int64_t m_batchProblems = 0;
};

}  // namespace fl::addition
