// BatchedToyNetwork: the loss and gradients of K toy regressors (the paper's MLP, 2 -> 64 ->
// ReLU -> 32 -> ReLU -> head) at once, each with its own parameters and its own batch, written
// out by hand over flat float buffers: no autograd graph, no tensor per op, no allocation per
// step. Member k's parameters are row k of a (K, P) buffer laid out as its single run's
// FlatAdam lays them out (ParameterLayout), so a row is that run's "parameters".
//
// Per member: the trunk and the head's linear layer as small matrix products
// (core/engine/blas_gemm.h). Shared by all members, as one product over all K x B rows: the Fourier
// head's basis at the bin centres, and its regulariser, which is the DFT of |A|^2 at the bin
// centres (exact when bins >= 2N + 1, see below; the autocorrelation of the amplitudes otherwise).
//
// The heads' arithmetic follows core/nn (linear_head, fourier_head, gmm_head) and the
// cross-entropy of torch::nn::functional::cross_entropy; tests/test_batched_fourier_head.cpp
// checks every member's losses against its single FourierHeadTrial. Torch-free.
#pragma once

#include <cstdint>
#include <vector>

namespace fl::fourier_head::batched {

enum class HeadKind { Linear, Fourier, Gmm };

// Offsets of one member's parameter tensors in its row (weights row-major (out, in), as
// torch::nn::Linear stores them).
struct ParameterLayout {
  int64_t size = 0;  // P
  int64_t w1 = 0, b1 = 0, w2 = 0, b2 = 0, headWeight = 0, headBias = 0;
  int64_t rawStd = -1;  // the GMM head's softplus^-1 of its standard deviations; -1 otherwise
};

struct NetworkShape {
  HeadKind head = HeadKind::Fourier;
  int64_t members = 1;  // K
  int64_t batch = 32;   // B: rows reserved per member
  int64_t inputs = 2;
  int64_t hidden = 64;
  int64_t features = 32;    // what the head sees
  int64_t bins = 50;        // m
  int64_t frequencies = 0;  // N, Fourier head
  int64_t gaussians = 0;    // G, GMM head

  int64_t headOutputs() const;  // m, 2(N+1) or G
};

class BatchedToyNetwork {
 public:
  // `binBasis`: the Fourier head's basis at the bin centres, (2(N+1), 2m) row-major, as its
  // bin_basis buffer (empty for the other heads); `centers`: the m bin centres.
  BatchedToyNetwork(NetworkShape shape, ParameterLayout layout, std::vector<float> binBasis,
                    std::vector<float> centers);

  const NetworkShape& shape() const { return m_shape; }
  // Whether the Fourier regulariser comes from the DFT at the bin centres (bins >= 2N + 1).
  bool penaltyFromBins() const { return m_penaltyFromBins; }

  // The batch: member k's rows are [k B, k B + counts[k]) of these (K B, inputs) and (K B).
  float* inputs() { return m_x.data(); }
  int64_t* targets() { return m_targets.data(); }

  // For every member k in `members` (ascending): its mean cross-entropy over its rows, plus
  // gamma[k] times the Fourier regulariser when gamma[k] > 0, into losses[k], and the gradient
  // of that loss into row k of `gradients` (every entry written). Other rows are left as they
  // are. A non-finite member stays in its own rows.
  void lossAndGradients(const float* parameters, float* gradients,
                        const std::vector<int64_t>& members, const int64_t* counts,
                        const double* gamma, double* losses);

 private:
  void trunkForward(const float* p, int64_t k, int64_t n);
  void trunkBackward(const float* p, float* g, int64_t k, int64_t n);
  // Head forward and backward: dA for the members' rows, loss terms into `losses`.
  void linearHead(const std::vector<int64_t>& members, const int64_t* counts, double* losses);
  void fourierHead(const std::vector<int64_t>& members, const int64_t* counts, const double* gamma,
                   double* losses);
  void gmmHead(const float* parameters, float* gradients, const std::vector<int64_t>& members,
               const int64_t* counts, double* losses);
  // The Fourier regulariser from the amplitudes themselves (bins < 2N + 1).
  double autocorrelationPenalty(int64_t k, int64_t n, double gamma);
  // Cross-entropy of log(q + 1e-5) with q = w / sum(w) (the Fourier head) over member k's
  // rows of the unnormalised weights w in m_s: the mean loss, d loss / d w in m_ds.
  double normalisedCrossEntropy(int64_t k, int64_t n);
  // Cross-entropy of log(p + 1e-5) with p the density itself, not normalised (the GMM head,
  // as the official code): the mean loss over member k's rows of m_s, d loss / d p in m_ds.
  double flooredDensityCrossEntropy(int64_t k, int64_t n);

  NetworkShape m_shape;
  ParameterLayout m_layout;
  int64_t m_rows;                       // K B
  int64_t m_outputs;                    // the head's linear outputs O
  std::vector<float> m_basis;           // (O, 2m) Fourier: the basis at the bin centres
  std::vector<float> m_dft;             // (m, 2(N+1)) Fourier: cos, -sin(pi k z_i) / m
  std::vector<float> m_penaltyWeights;  // (N+1) 2 pi^2 k^2
  std::vector<float> m_centers;         // (m)
  bool m_penaltyFromBins = false;

  std::vector<float> m_x;           // (K B, inputs)
  std::vector<int64_t> m_targets;   // (K B)
  std::vector<float> m_h1, m_h2;    // (K B, hidden), (K B, features): after ReLU
  std::vector<float> m_a, m_dA;     // (K B, O)
  std::vector<float> m_dH2, m_dH1;  // (K B, features), (K B, hidden)
  std::vector<float> m_s, m_ds;     // (K B, m): unnormalised bin weights and their gradient
  std::vector<float> m_basisOut, m_dBasisOut;          // (K B, 2m) Fourier: Re A(z_i), Im A(z_i)
  std::vector<float> m_coefficients, m_dCoefficients;  // (K B, 2(N+1)) Fourier: c_k
  std::vector<float> m_pdf;                 // (K B, G, m) GMM: each Gaussian at each bin centre
  std::vector<float> m_mu;                  // (K B, G) GMM: the means
  std::vector<float> m_sigma, m_sigmaNorm;  // (G) GMM: 1 / sigma, 1 / (sigma sqrt(2 pi))
  std::vector<double> m_dSigma;             // (G)
  std::vector<float> m_scratch;             // (m)
};

}  // namespace fl::fourier_head::batched
