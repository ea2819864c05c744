#include "core/nn/transformer/attention_rows.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

#include "core/nn/transformer/vector_lanes.h"

namespace fl::nn::attention_rows {

namespace {

using namespace lanes;

FL_INLINE float rowMax(const float* x, int64_t n) {
  const float lowest = -std::numeric_limits<float>::infinity();
  Floats m = splat(lowest);
  int64_t j = 0;
  for (; j + kLanes <= n; j += kLanes) {
    const Floats v = load(x + j);
    m = v > m ? v : m;
  }
  if (j < n) {
    const Floats v = loadPartial(x + j, n - j, lowest);
    m = v > m ? v : m;
  }
  float result = lowest;
  for (int64_t l = 0; l < kLanes; ++l) result = std::max(result, m[l]);
  return result;
}

// x_j <- exp(x_j - shift); returns their sum (lane by lane, then across: a fixed order).
FL_INLINE float expShiftedAndSum(float* x, int64_t n, float shift) {
  Floats sum = splat(0.0f);
  int64_t j = 0;
  for (; j + kLanes <= n; j += kLanes) {
    const Floats e = expNonPositive(load(x + j) - shift);
    store(x + j, e);
    sum += e;
  }
  if (j < n) {
    const Floats e =
        expNonPositive(loadPartial(x + j, n - j, -std::numeric_limits<float>::infinity()) - shift);
    storePartial(x + j, n - j, e);
    sum += e;  // the padding's exp is 0
  }
  float result = 0;
  for (int64_t l = 0; l < kLanes; ++l) result += sum[l];
  return result;
}

FL_INLINE void expShifted(float* x, int64_t n, float shift) {
  int64_t j = 0;
  for (; j + kLanes <= n; j += kLanes) store(x + j, expNonPositive(load(x + j) - shift));
  if (j < n) storePartial(x + j, n - j, expNonPositive(loadPartial(x + j, n - j, 0.0f) - shift));
}

FL_INLINE void addRow(float* x, const float* b, int64_t n) {
  for (int64_t j = 0; j < n; ++j) x[j] += b[j];
}

FL_INLINE void zeroTail(float* x, int64_t from, int64_t to) {
  if (to > from) std::memset(x + from, 0, static_cast<size_t>(to - from) * sizeof(float));
}

}  // namespace

FL_VECTOR_CLONES
void softmaxForward(float* scores, int64_t ld, int64_t rows, int64_t r0, const float* bias,
                    int64_t biasLd, float* lse) {
  for (int64_t i = 0; i < rows; ++i) {
    float* s = scores + i * ld;
    const int64_t n = r0 + i + 1;  // keys 0 .. r0 + i
    if (bias) addRow(s, bias + (r0 + i) * biasLd, n);
    const float m = rowMax(s, n);
    const float sum = expShiftedAndSum(s, n, m);
    const float inverse = 1.0f / sum;
    for (int64_t j = 0; j < n; ++j) s[j] *= inverse;
    zeroTail(s, n, ld);
    lse[i] = m + std::log(sum);
  }
}

FL_VECTOR_CLONES
void recomputeWeights(float* scores, int64_t ld, int64_t rows, int64_t r0, const float* bias,
                      int64_t biasLd, const float* lse) {
  for (int64_t i = 0; i < rows; ++i) {
    float* s = scores + i * ld;
    const int64_t n = r0 + i + 1;
    if (bias) addRow(s, bias + (r0 + i) * biasLd, n);
    expShifted(s, n, lse[i]);
    zeroTail(s, n, ld);
  }
}

FL_VECTOR_CLONES
void softmaxBackward(float* weights, const float* gradOut, int64_t ld, int64_t rows, int64_t r0,
                     const float* rowDot, const float* factor) {
  for (int64_t i = 0; i < rows; ++i) {
    float* p = weights + i * ld;
    const float* g = gradOut + i * ld;
    const int64_t n = r0 + i + 1;
    const float d = rowDot[i];
    if (factor) {
      const float* f = factor + i * ld;
      for (int64_t j = 0; j < n; ++j) p[j] *= g[j] * f[j] - d;
    } else {
      for (int64_t j = 0; j < n; ++j) p[j] *= g[j] - d;
    }
    zeroTail(p, n, ld);
  }
}

FL_VECTOR_CLONES
void applyDropout(float* dst, const float* src, const float* factor, int64_t ld, int64_t rows) {
  const int64_t n = ld * rows;
  for (int64_t j = 0; j < n; ++j) dst[j] = src[j] * factor[j];
}

FL_VECTOR_CLONES
void drawDropout(float* factor, int64_t ld, int64_t rows, int64_t r0, uint64_t seed, int64_t unit,
                 int64_t length, double keepProbability, float keepScale) {
  // Keep when the 32-bit hash falls below keepProbability * 2^32 (p > 0: below 2^32).
  const auto threshold = static_cast<uint32_t>(
      std::min(std::llround(std::clamp(keepProbability, 0.0, 1.0) * 4294967296.0), 4294967295LL));
  Uints offsets;
  for (int64_t l = 0; l < kLanes; ++l) offsets[l] = static_cast<uint32_t>(l) * kWeyl;
  for (int64_t i = 0; i < rows; ++i) {
    const int64_t row = r0 + i;
    const auto key = static_cast<uint32_t>(
        splitMix64(seed ^ splitMix64(static_cast<uint64_t>(unit * length + row))));
    float* f = factor + i * ld;
    const int64_t n = row + 1;
    for (int64_t j = 0; j < n; j += kLanes) {
      const Uints hash = fmix32(key + static_cast<uint32_t>(j) * kWeyl + offsets);
      const Floats kept = (hash < threshold) ? splat(keepScale) : splat(0.0f);
      if (j + kLanes <= n)
        store(f + j, kept);
      else
        storePartial(f + j, n - j, kept);
    }
    zeroTail(f, n, ld);
  }
}

}  // namespace fl::nn::attention_rows
