#include "experiments/fourier_head/batched_toy_network.h"

#include <cmath>
#include <cstring>
#include <stdexcept>
#include <string>

#include "core/engine/blas_gemm.h"
#include "core/engine/vector_clones.h"

#if defined(__SSE__)
#include <xmmintrin.h>
#endif

namespace fl::fourier_head::batched {

namespace {

// The cross-entropy's floor inside the Fourier and GMM heads' logits log(q + 1e-5).
constexpr float kLogitFloor = 1e-5f;

float bitsToFloat(int32_t bits) {
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

// exp(x) for the softmax and the Gaussians: Cephes' expf polynomial (within 2 ulp of expf),
// written so that a loop over it vectorises (libm's expf does not: it sets errno). Below
// ln(FLT_MIN) it gives FLT_MIN rather than a denormal or 0 (nothing here tells them apart from 0
// beside densities ~1). NaN gives NaN, so a diverged member's loss says so; so do +-Inf (only
// a diverged member has them). Its comparisons are the clamps alone: with more of them, GCC
// threads the jumps between them into a shape it no longer if-converts on AVX targets.
inline float vectorExp(float x) {
  constexpr float kMax = 88.3762626647949f;
  constexpr float kMin = -87.3365447505531f;
  float xc = x > kMax ? kMax : x;
  xc = xc < kMin ? kMin : xc;
  xc = xc == xc ? xc : 0.0f;  // NaN: keep the integer conversion below defined
  // n = round(x / ln 2), by truncation after adding +-1/2 (no SSE4.1 rounding needed).
  float fx = xc * 1.44269504088896341f;
  fx = fx + std::copysign(0.5f, fx);
  const auto n = static_cast<int32_t>(fx);
  const auto nf = static_cast<float>(n);
  float r = xc - nf * 0.693359375f;  // x - n ln 2, with ln 2 split in two for accuracy
  r = r - nf * -2.12194440e-4f;
  float p = 1.9875691500e-4f;
  p = p * r + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  float y = p * r * r + r + 1.0f;
  y = y * bitsToFloat((n + 127) << 23);  // times 2^n
  return y + (x - x);                    // + 0, or NaN for NaN and +-Inf
}

// tanh through vectorExp: within ~1e-7 of tanh in absolute terms (what a GMM mean needs).
inline float vectorTanh(float x) {
  const float e = vectorExp(-2.0f * std::fabs(x));
  return std::copysign((1.0f - e) / (1.0f + e), x);
}

// Sums and maxima with eight partial results: a float reduction only vectorises when the code
// itself says in which order to add.
float sumOf(const float* x, int64_t n) {
  float acc[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  int64_t i = 0;
  for (; i + 8 <= n; i += 8)
    for (int j = 0; j < 8; ++j) acc[j] += x[i + j];
  for (int j = 0; i < n; ++i, ++j) acc[j] += x[i];
  return ((acc[0] + acc[4]) + (acc[1] + acc[5])) + ((acc[2] + acc[6]) + (acc[3] + acc[7]));
}

float maxOf(const float* x, int64_t n) {
  float best = x[0];
  for (int64_t i = 1; i < n; ++i) best = x[i] > best ? x[i] : best;
  return best;
}

// Flushes denormal results to zero, and reads denormal inputs as zero, while it lives (on this
// thread, then restores the caller's mode). A GMM member's Gaussians far from a bin are ~1e-38
// there, and their products in the backward pass denormal: each one a microcode assist that
// made a GMM step 3 to 4 times slower. The values flushed are below 1e-38, against densities ~1.
class FlushDenormals {
 public:
#if defined(__SSE__)
  FlushDenormals() : m_saved(_mm_getcsr()) {
    _mm_setcsr(m_saved | kFlushToZero | kDenormalsAreZero);
  }
  ~FlushDenormals() { _mm_setcsr(m_saved); }

 private:
  static constexpr unsigned kFlushToZero = 0x8000;
  static constexpr unsigned kDenormalsAreZero = 0x0040;
  unsigned m_saved;
#endif
};

// The loops that dominate a linear or GMM member's step, one row at a time, built for each
// vector width (FL_VECTOR_CLONES).

// log_softmax and its gradient (softmax - onehot, times `scale`) of one row of logits, as
// LibTorch computes cross-entropy: shifted by the maximum. Returns the row's loss.
FL_VECTOR_CLONES double softmaxCrossEntropyRow(const float* logits, float* d, int64_t m, int64_t t,
                                               float scale) {
  const float top = maxOf(logits, m);
  for (int64_t i = 0; i < m; ++i) d[i] = vectorExp(logits[i] - top);
  const float z = sumOf(d, m);
  const float toProbability = scale / z;
  for (int64_t i = 0; i < m; ++i) d[i] *= toProbability;  // softmax * scale
  d[t] -= scale;
  return double(top) + std::log(double(z)) - double(logits[t]);
}

// One row of the GMM head: means mu = tanh(a) (G), each Gaussian at each bin centre into
// pdf (G, m), and their mean p (m).
FL_VECTOR_CLONES void gmmForwardRow(const float* a, float* mu, float* pdf, float* p, const float* c,
                                    const float* inverseSigma, const float* inverseNorm, int64_t G,
                                    int64_t m, float inverseG) {
  for (int64_t g = 0; g < G; ++g) mu[g] = vectorTanh(a[g]);
  for (int64_t i = 0; i < m; ++i) p[i] = 0.0f;
  for (int64_t g = 0; g < G; ++g) {
    float* row = pdf + g * m;
    const float mean = mu[g], invSd = inverseSigma[g], invNorm = inverseNorm[g];
    for (int64_t i = 0; i < m; ++i) {
      const float u = (c[i] - mean) * invSd;
      row[i] = vectorExp(-0.5f * u * u) * invNorm;
      p[i] += row[i];
    }
  }
  for (int64_t i = 0; i < m; ++i) p[i] *= inverseG;  // equal weights: the mean
}

// Its backward from dp (m): d loss / d a into dA (G), d loss / d sigma added to dSigma (G).
// d pdf / d mu = pdf u / sigma and d pdf / d sigma = pdf (u^2 - 1) / sigma; the 1/G of the
// mean and the 1/sigma are applied to the sums.
FL_VECTOR_CLONES void gmmBackwardRow(const float* mu, const float* pdf, const float* dp, float* dA,
                                     double* dSigma, const float* c, const float* inverseSigma,
                                     int64_t G, int64_t m, float inverseG, float* termMu,
                                     float* termSigma) {
  for (int64_t g = 0; g < G; ++g) {
    const float* row = pdf + g * m;
    const float mean = mu[g], invSd = inverseSigma[g];
    for (int64_t i = 0; i < m; ++i) {
      const float u = (c[i] - mean) * invSd;
      const float t = dp[i] * row[i];
      termMu[i] = t * u;
      termSigma[i] = t * (u * u - 1.0f);
    }
    const float scale = inverseG * invSd;
    dA[g] = sumOf(termMu, m) * scale * (1.0f - mean * mean);  // through tanh
    dSigma[g] += double(sumOf(termSigma, m) * scale);
  }
}

// Calls f(first, end) for each run of consecutive members: the products shared by all
// members are made over a run's rows at once.
template <typename F>
void forEachRun(const std::vector<int64_t>& members, F f) {
  size_t i = 0;
  while (i < members.size()) {
    size_t j = i;
    while (j + 1 < members.size() && members[j + 1] == members[j] + 1) ++j;
    f(members[i], members[j] + 1);
    i = j + 1;
  }
}

}  // namespace

int64_t NetworkShape::headOutputs() const {
  switch (head) {
    case HeadKind::Linear:
      return bins;
    case HeadKind::Fourier:
      return 2 * (frequencies + 1);
    case HeadKind::Gmm:
      return gaussians;
  }
  return 0;
}

BatchedToyNetwork::BatchedToyNetwork(NetworkShape shape, ParameterLayout layout,
                                     std::vector<float> binBasis, std::vector<float> centers)
    : m_shape(shape),
      m_layout(layout),
      m_rows(shape.members * shape.batch),
      m_outputs(shape.headOutputs()),
      m_basis(std::move(binBasis)),
      m_centers(std::move(centers)) {
  const int64_t m = m_shape.bins;
  if (static_cast<int64_t>(m_centers.size()) != m)
    throw std::invalid_argument("BatchedToyNetwork: " + std::to_string(m_centers.size()) +
                                " bin centres for " + std::to_string(m) + " bins");
  auto rows = [&](int64_t width) { return std::vector<float>(m_rows * width, 0.0f); };
  m_x = rows(m_shape.inputs);
  m_targets.assign(m_rows, 0);
  m_h1 = rows(m_shape.hidden);
  m_h2 = rows(m_shape.features);
  m_a = rows(m_outputs);
  m_dA = rows(m_outputs);
  m_dH2 = rows(m_shape.features);
  m_dH1 = rows(m_shape.hidden);
  m_scratch.assign(2 * m, 0.0f);
  if (m_shape.head != HeadKind::Linear) {
    m_s = rows(m);
    m_ds = rows(m);
  }
  if (m_shape.head == HeadKind::Fourier) {
    const int64_t n1 = m_shape.frequencies + 1;
    if (static_cast<int64_t>(m_basis.size()) != 2 * n1 * 2 * m)
      throw std::invalid_argument("BatchedToyNetwork: the Fourier basis must be (2(N+1), 2m)");
    m_basisOut = rows(2 * m);
    m_dBasisOut = rows(2 * m);
    m_coefficients = rows(2 * n1);
    m_dCoefficients = rows(2 * n1);
    for (int64_t k = 0; k < n1; ++k)
      m_penaltyWeights.push_back(static_cast<float>(2.0 * M_PI * M_PI * double(k) * double(k)));
    // |A(z)|^2 = sum_{|l| <= N} c_l exp(i pi l z), and at the centres z_i = -1 + (2i + 1)/m
    // the sums (1/m) sum_i exp(i pi d z_i) vanish for 0 < |d| < m: with m >= 2N + 1 the DFT
    // (1/m) sum_i |A(z_i)|^2 exp(-i pi k z_i) is c_k exactly, from the |A|^2 the logits need.
    m_penaltyFromBins = m >= 2 * m_shape.frequencies + 1;
    m_dft.assign(m * 2 * n1, 0.0f);
    for (int64_t i = 0; i < m; ++i) {
      const double z = -1.0 + (2.0 * double(i) + 1.0) / double(m);
      for (int64_t k = 0; k < n1; ++k) {
        m_dft[i * 2 * n1 + k] = static_cast<float>(std::cos(M_PI * double(k) * z) / double(m));
        m_dft[i * 2 * n1 + n1 + k] =
            static_cast<float>(-std::sin(M_PI * double(k) * z) / double(m));
      }
    }
  }
  if (m_shape.head == HeadKind::Gmm) {
    if (m_layout.rawStd < 0) throw std::invalid_argument("BatchedToyNetwork: GMM without raw_std");
    m_pdf = rows(m_shape.gaussians * m);
    m_mu = rows(m_shape.gaussians);
    m_sigma.assign(m_shape.gaussians, 0.0f);
    m_sigmaNorm.assign(m_shape.gaussians, 0.0f);
    m_dSigma.assign(m_shape.gaussians, 0.0);
  }
}

void BatchedToyNetwork::lossAndGradients(const float* parameters, float* gradients,
                                         const std::vector<int64_t>& members, const int64_t* counts,
                                         const double* gamma, double* losses) {
  const int64_t P = m_layout.size;
  FlushDenormals flush;
  for (size_t i = 0; i < members.size(); ++i) {
    const int64_t k = members[i];
    if (k < 0 || k >= m_shape.members || (i > 0 && k <= members[i - 1]))
      throw std::invalid_argument("BatchedToyNetwork: members must be ascending indices below K");
    if (counts[k] < 1 || counts[k] > m_shape.batch)
      throw std::invalid_argument("BatchedToyNetwork: a member's batch has " +
                                  std::to_string(counts[k]) + " rows, not 1.." +
                                  std::to_string(m_shape.batch));
    losses[k] = 0;
    trunkForward(parameters + k * P, k, counts[k]);
  }
  switch (m_shape.head) {
    case HeadKind::Linear:
      linearHead(members, counts, losses);
      break;
    case HeadKind::Fourier:
      fourierHead(members, counts, gamma, losses);
      break;
    case HeadKind::Gmm:
      gmmHead(parameters, gradients, members, counts, losses);
      break;
  }
  for (const int64_t k : members)
    trunkBackward(parameters + k * P, gradients + k * P, k, counts[k]);
}

void BatchedToyNetwork::trunkForward(const float* p, int64_t k, int64_t n) {
  const int64_t I = m_shape.inputs, H = m_shape.hidden, F = m_shape.features, O = m_outputs;
  const int64_t row0 = k * m_shape.batch;
  const float* x = m_x.data() + row0 * I;
  float* h1 = m_h1.data() + row0 * H;
  float* h2 = m_h2.data() + row0 * F;
  float* a = m_a.data() + row0 * O;
  const float* w1 = p + m_layout.w1;  // (H, I)
  const float* b1 = p + m_layout.b1;
  const float* b2 = p + m_layout.b2;
  const float* bh = p + m_layout.headBias;

  // Layer 1 has two inputs: a product is not worth a call. ReLU as torch's: NaN stays NaN.
  for (int64_t r = 0; r < n; ++r) {
    float* h = h1 + r * H;
    for (int64_t j = 0; j < H; ++j) h[j] = 0.0f;
    for (int64_t c = 0; c < I; ++c) {
      const float xc = x[r * I + c];
      for (int64_t j = 0; j < H; ++j) h[j] += xc * w1[j * I + c];
    }
    for (int64_t j = 0; j < H; ++j) {
      const float v = h[j] + b1[j];
      h[j] = v < 0.0f ? 0.0f : v;
    }
  }
  gemmRowMajor(false, true, n, F, H, 1.0f, h1, H, p + m_layout.w2, H, 0.0f, h2, F);
  for (int64_t r = 0; r < n; ++r)
    for (int64_t j = 0; j < F; ++j) {
      const float v = h2[r * F + j] + b2[j];
      h2[r * F + j] = v < 0.0f ? 0.0f : v;
    }
  gemmRowMajor(false, true, n, O, F, 1.0f, h2, F, p + m_layout.headWeight, F, 0.0f, a, O);
  for (int64_t r = 0; r < n; ++r)
    for (int64_t o = 0; o < O; ++o) a[r * O + o] += bh[o];
}

void BatchedToyNetwork::trunkBackward(const float* p, float* g, int64_t k, int64_t n) {
  const int64_t I = m_shape.inputs, H = m_shape.hidden, F = m_shape.features, O = m_outputs;
  const int64_t row0 = k * m_shape.batch;
  const float* x = m_x.data() + row0 * I;
  const float* h1 = m_h1.data() + row0 * H;
  const float* h2 = m_h2.data() + row0 * F;
  const float* dA = m_dA.data() + row0 * O;
  float* dH2 = m_dH2.data() + row0 * F;
  float* dH1 = m_dH1.data() + row0 * H;

  auto columnSums = [n](const float* d, int64_t width, float* out) {
    for (int64_t j = 0; j < width; ++j) out[j] = 0.0f;
    for (int64_t r = 0; r < n; ++r)
      for (int64_t j = 0; j < width; ++j) out[j] += d[r * width + j];
  };
  // The head's linear layer.
  gemmRowMajor(true, false, O, F, n, 1.0f, dA, O, h2, F, 0.0f, g + m_layout.headWeight, F);
  columnSums(dA, O, g + m_layout.headBias);
  gemmRowMajor(false, false, n, F, O, 1.0f, dA, O, p + m_layout.headWeight, F, 0.0f, dH2, F);
  // Layer 2, through its ReLU (torch's threshold_backward: where the output is > 0).
  for (int64_t i = 0; i < n * F; ++i) dH2[i] = h2[i] > 0.0f ? dH2[i] : 0.0f;
  gemmRowMajor(true, false, F, H, n, 1.0f, dH2, F, h1, H, 0.0f, g + m_layout.w2, H);
  columnSums(dH2, F, g + m_layout.b2);
  gemmRowMajor(false, false, n, H, F, 1.0f, dH2, F, p + m_layout.w2, H, 0.0f, dH1, H);
  // Layer 1.
  for (int64_t i = 0; i < n * H; ++i) dH1[i] = h1[i] > 0.0f ? dH1[i] : 0.0f;
  gemmRowMajor(true, false, H, I, n, 1.0f, dH1, H, x, I, 0.0f, g + m_layout.w1, I);
  columnSums(dH1, H, g + m_layout.b1);
}

void BatchedToyNetwork::linearHead(const std::vector<int64_t>& members, const int64_t* counts,
                                   double* losses) {
  const int64_t m = m_shape.bins;
  for (const int64_t k : members) {
    const int64_t n = counts[k];
    const int64_t row0 = k * m_shape.batch;
    const float scale = 1.0f / static_cast<float>(n);
    double total = 0;
    for (int64_t r = 0; r < n; ++r)
      total += softmaxCrossEntropyRow(m_a.data() + (row0 + r) * m, m_dA.data() + (row0 + r) * m, m,
                                      m_targets[row0 + r], scale);
    losses[k] += total / double(n);
  }
}

double BatchedToyNetwork::normalisedCrossEntropy(int64_t k, int64_t n) {
  const int64_t m = m_shape.bins;
  const int64_t row0 = k * m_shape.batch;
  // log_softmax(log(q + eps)) has the normaliser log(sum_i (q_i + eps)) = log(1 + m eps).
  const double logNormaliser = std::log1p(double(m) * double(kLogitFloor));
  const float scale = 1.0f / static_cast<float>(n);
  double total = 0;
  for (int64_t r = 0; r < n; ++r) {
    const float* w = m_s.data() + (row0 + r) * m;
    float* d = m_ds.data() + (row0 + r) * m;
    const int64_t t = m_targets[row0 + r];
    const float sum = sumOf(w, m);
    const float qt = w[t] / sum;
    const float floored = qt + kLogitFloor;
    total += logNormaliser - std::log(double(floored));
    // Through q = w / sum and the floor, the loss -log(q_t + eps) moves every w_i by
    // (q_t - [i = t]) / ((q_t + eps) sum): the softmax of log(q + eps) has cancelled out.
    const float common = qt / (floored * sum) * scale;
    for (int64_t i = 0; i < m; ++i) d[i] = common;
    d[t] = (qt - 1.0f) / (floored * sum) * scale;
  }
  return total / double(n);
}

double BatchedToyNetwork::flooredDensityCrossEntropy(int64_t k, int64_t n) {
  const int64_t m = m_shape.bins;
  const int64_t row0 = k * m_shape.batch;
  const float scale = 1.0f / static_cast<float>(n);
  double total = 0;
  for (int64_t r = 0; r < n; ++r) {
    const float* p = m_s.data() + (row0 + r) * m;
    float* d = m_ds.data() + (row0 + r) * m;
    const int64_t t = m_targets[row0 + r];
    // The GMM head's logits are log(p + eps) of the density itself (gmm_head.h), so the
    // cross-entropy is log(sum_i (p_i + eps)) - log(p_t + eps), and its gradient in p_i is
    // 1 / sum - [i = t] / (p_t + eps).
    const float sum = sumOf(p, m) + static_cast<float>(m) * kLogitFloor;
    const float floored = p[t] + kLogitFloor;
    total += std::log(double(sum)) - std::log(double(floored));
    const float common = scale / sum;
    for (int64_t i = 0; i < m; ++i) d[i] = common;
    d[t] = common - scale / floored;
  }
  return total / double(n);
}

void BatchedToyNetwork::fourierHead(const std::vector<int64_t>& members, const int64_t* counts,
                                    const double* gamma, double* losses) {
  const int64_t m = m_shape.bins, B = m_shape.batch, O = m_outputs, n1 = O / 2;
  // Re A(z_i) and Im A(z_i) at the bin centres, for all members' rows at once.
  forEachRun(members, [&](int64_t first, int64_t end) {
    gemmRowMajor(false, false, (end - first) * B, 2 * m, O, 1.0f, m_a.data() + first * B * O, O,
                 m_basis.data(), 2 * m, 0.0f, m_basisOut.data() + first * B * 2 * m, 2 * m);
  });
  bool anyPenalty = false;
  for (const int64_t k : members) {
    const int64_t n = counts[k];
    for (int64_t r = 0; r < n; ++r) {
      const float* re = m_basisOut.data() + (k * B + r) * 2 * m;
      const float* im = re + m;
      float* s = m_s.data() + (k * B + r) * m;
      for (int64_t i = 0; i < m; ++i) s[i] = re[i] * re[i] + im[i] * im[i];  // |A(z_i)|^2
    }
    losses[k] += normalisedCrossEntropy(k, n);
    anyPenalty = anyPenalty || gamma[k] > 0;
  }

  // The regulariser gamma * 2 * mean_rows(sum_k 2 pi^2 k^2 |c_k|^2), from the DFT of |A|^2.
  if (anyPenalty && m_penaltyFromBins) {
    forEachRun(members, [&](int64_t first, int64_t end) {
      gemmRowMajor(false, false, (end - first) * B, 2 * n1, m, 1.0f, m_s.data() + first * B * m, m,
                   m_dft.data(), 2 * n1, 0.0f, m_coefficients.data() + first * B * 2 * n1, 2 * n1);
    });
    for (const int64_t k : members) {
      const int64_t n = counts[k];
      const float coefficient = static_cast<float>(gamma[k] * 2.0 / double(n));
      double penalty = 0;
      for (int64_t r = 0; r < n; ++r) {
        const float* c = m_coefficients.data() + (k * B + r) * 2 * n1;
        float* dc = m_dCoefficients.data() + (k * B + r) * 2 * n1;
        if (gamma[k] <= 0) {
          for (int64_t j = 0; j < 2 * n1; ++j) dc[j] = 0.0f;
          continue;
        }
        float weighted = 0;
        for (int64_t j = 0; j < n1; ++j) {
          const float w = m_penaltyWeights[j];
          weighted += w * (c[j] * c[j] + c[n1 + j] * c[n1 + j]);
          dc[j] = coefficient * 2.0f * w * c[j];
          dc[n1 + j] = coefficient * 2.0f * w * c[n1 + j];
        }
        penalty += weighted;
      }
      if (gamma[k] > 0) losses[k] += gamma[k] * 2.0 * penalty / double(n);
    }
    forEachRun(members, [&](int64_t first, int64_t end) {
      gemmRowMajor(false, true, (end - first) * B, m, 2 * n1, 1.0f,
                   m_dCoefficients.data() + first * B * 2 * n1, 2 * n1, m_dft.data(), 2 * n1, 1.0f,
                   m_ds.data() + first * B * m, m);
    });
  }

  // Through |A|^2 = Re^2 + Im^2, then back through the basis to the amplitudes.
  for (const int64_t k : members)
    for (int64_t r = 0; r < counts[k]; ++r) {
      const float* re = m_basisOut.data() + (k * B + r) * 2 * m;
      const float* im = re + m;
      const float* ds = m_ds.data() + (k * B + r) * m;
      float* dre = m_dBasisOut.data() + (k * B + r) * 2 * m;
      float* dim = dre + m;
      for (int64_t i = 0; i < m; ++i) {
        dre[i] = 2.0f * re[i] * ds[i];
        dim[i] = 2.0f * im[i] * ds[i];
      }
    }
  forEachRun(members, [&](int64_t first, int64_t end) {
    gemmRowMajor(false, true, (end - first) * B, O, 2 * m, 1.0f,
                 m_dBasisOut.data() + first * B * 2 * m, 2 * m, m_basis.data(), 2 * m, 0.0f,
                 m_dA.data() + first * B * O, O);
  });
  if (anyPenalty && !m_penaltyFromBins)
    for (const int64_t k : members)
      if (gamma[k] > 0) losses[k] += autocorrelationPenalty(k, counts[k], gamma[k]);
}

double BatchedToyNetwork::autocorrelationPenalty(int64_t k, int64_t n, double gamma) {
  // c_k = sum_j a_{j+k} conj(a_j) with a = u + i v, as FourierHeadImpl::autocorrelation.
  const int64_t O = m_outputs, n1 = O / 2, B = m_shape.batch;
  const float coefficient = static_cast<float>(gamma * 2.0 / double(n));
  double penalty = 0;
  for (int64_t r = 0; r < n; ++r) {
    const float* u = m_a.data() + (k * B + r) * O;
    const float* v = u + n1;
    float* du = m_dA.data() + (k * B + r) * O;
    float* dv = du + n1;
    for (int64_t lag = 1; lag < n1; ++lag) {  // lag 0 has weight 0
      float re = 0, im = 0;
      for (int64_t j = 0; j + lag < n1; ++j) {
        re += u[j + lag] * u[j] + v[j + lag] * v[j];
        im += v[j + lag] * u[j] - u[j + lag] * v[j];
      }
      const float w = m_penaltyWeights[lag];
      penalty += double(w) * (double(re) * re + double(im) * im);
      const float gRe = coefficient * 2.0f * w * re;
      const float gIm = coefficient * 2.0f * w * im;
      for (int64_t j = 0; j + lag < n1; ++j) {
        du[j + lag] += gRe * u[j] - gIm * v[j];
        du[j] += gRe * u[j + lag] + gIm * v[j + lag];
        dv[j + lag] += gRe * v[j] + gIm * u[j];
        dv[j] += gRe * v[j + lag] - gIm * u[j + lag];
      }
    }
  }
  return gamma * 2.0 * penalty / double(n);
}

void BatchedToyNetwork::gmmHead(const float* parameters, float* gradients,
                                const std::vector<int64_t>& members, const int64_t* counts,
                                double* losses) {
  const int64_t m = m_shape.bins, G = m_shape.gaussians, B = m_shape.batch;
  const int64_t P = m_layout.size;
  const float* c = m_centers.data();
  const float inverseG = 1.0f / static_cast<float>(G);
  const auto sqrtTwoPi = static_cast<float>(std::sqrt(2.0 * M_PI));
  // Per Gaussian: 1 / sigma and 1 / (sigma sqrt(2 pi)). Multiplying by them where GmmHead
  // divides differs by an ulp, and a division costs several multiplications.
  float* inverseSigma = m_sigma.data();
  float* inverseNorm = m_sigmaNorm.data();
  double* dSigma = m_dSigma.data();
  float* termMu = m_scratch.data();
  float* termSigma = m_scratch.data() + m;
  for (const int64_t k : members) {
    const int64_t n = counts[k];
    const float* raw = parameters + k * P + m_layout.rawStd;
    for (int64_t g = 0; g < G; ++g) {
      // softplus as LibTorch's (threshold 20).
      const float sigma = raw[g] > 20.0f ? raw[g] : std::log1p(std::exp(raw[g]));
      inverseSigma[g] = 1.0f / sigma;
      inverseNorm[g] = 1.0f / (sigma * sqrtTwoPi);
      dSigma[g] = 0;
    }
    for (int64_t r = 0; r < n; ++r) {
      const int64_t row = k * B + r;
      gmmForwardRow(m_a.data() + row * G, m_mu.data() + row * G, m_pdf.data() + row * G * m,
                    m_s.data() + row * m, c, inverseSigma, inverseNorm, G, m, inverseG);
    }
    losses[k] += flooredDensityCrossEntropy(k, n);

    for (int64_t r = 0; r < n; ++r) {
      const int64_t row = k * B + r;
      gmmBackwardRow(m_mu.data() + row * G, m_pdf.data() + row * G * m, m_ds.data() + row * m,
                     m_dA.data() + row * G, dSigma, c, inverseSigma, G, m, inverseG, termMu,
                     termSigma);
    }
    float* dRaw = gradients + k * P + m_layout.rawStd;
    for (int64_t g = 0; g < G; ++g) {
      const float e = std::exp(raw[g]);
      dRaw[g] = raw[g] > 20.0f ? float(dSigma[g]) : float(dSigma[g]) * e / (e + 1.0f);
    }
  }
}

}  // namespace fl::fourier_head::batched
