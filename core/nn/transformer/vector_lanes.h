// 16-lane float vectors for the CPU kernels' element-wise loops (attention rows, GELU,
// dropout), and the macros that compile a loop once per instruction set.
//
// Include only from .cpp files: the helpers are inline, always inlined into each clone.
#pragma once

#include <cstdint>
#include <cstring>

#include "core/engine/vector_clones.h"

// The row loops are compiled for AVX-512, AVX2 + FMA and the baseline, chosen at load time
// (FL_VECTOR_CLONES). Exp, sums and maxima are written on 16-lane vectors: a compiler does not
// vectorise a float sum by itself without reassociating it (-ffast-math), and not a call to exp.
// Helpers are inlined into each clone, so they are compiled for its instruction set too.
#define FL_INLINE inline __attribute__((always_inline))

// Vectors pass between inline helpers only, never across a library boundary: the notes on
// their calling convention do not apply.
#pragma GCC diagnostic ignored "-Wpsabi"

namespace fl::nn::lanes {

// 16 floats as one value (GCC/Clang vector extensions): one AVX-512 register, two AVX2 ones or
// four SSE2 ones, whatever the clone was compiled for. Unaligned loads and stores go through
// memcpy; a partial vector is padded.
constexpr int64_t kLanes = 16;
typedef float Floats __attribute__((vector_size(kLanes * sizeof(float))));
typedef int32_t Ints __attribute__((vector_size(kLanes * sizeof(int32_t))));
typedef uint32_t Uints __attribute__((vector_size(kLanes * sizeof(uint32_t))));

FL_INLINE Floats splat(float x) { return Floats{} + x; }

FL_INLINE Floats load(const float* p) {
  Floats v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

FL_INLINE void store(float* p, const Floats& v) { std::memcpy(p, &v, sizeof v); }

// The first n < kLanes floats of p, the rest `pad`.
FL_INLINE Floats loadPartial(const float* p, int64_t n, float pad) {
  float buffer[kLanes];
  for (int64_t l = 0; l < kLanes; ++l) buffer[l] = l < n ? p[l] : pad;
  return load(buffer);
}

FL_INLINE void storePartial(float* p, int64_t n, const Floats& v) {
  float buffer[kLanes];
  store(buffer, v);
  std::memcpy(p, buffer, static_cast<size_t>(n) * sizeof(float));
}

// exp(x) for the x <= ~0 of a softmax (scores minus their maximum): Cephes' expf (range
// reduction by ln 2, degree-6 polynomial, relative error ~2e-7) on 16 lanes at once. Below -87
// (2^-126, where floats turn subnormal) it returns 0, and so for -inf.
FL_INLINE Floats expNonPositive(const Floats& in) {
  Floats x = in;
  const auto underflow = x < splat(-87.0f);
  x = underflow ? splat(-87.0f) : x;
  const Floats shifter = splat(12582912.0f);  // 1.5 * 2^23: adding it rounds to an integer
  const Floats n = (x * 1.44269504088896341f + shifter) - shifter;  // round(x / ln 2)
  Floats r = x - n * 0.693359375f;  // ln 2 in two parts keeps r exact
  r = r + n * 2.12194440e-4f;
  Floats p = splat(1.9875691500e-4f);
  p = p * r + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  p = p * r * r + r + 1.0f;
  const Ints bits = (__builtin_convertvector(n, Ints) + 127) << 23;  // 2^n
  return underflow ? splat(0.0f) : p * (Floats)bits;  // (Floats)bits: the bits as floats
}

// Dropout hashing: SplitMix64 turns (seed, unit, row) into a row key; MurmurHash3's finaliser
// (a bijection of 32-bit words with full avalanche) of key + j * kWeyl gives key j's draw.
constexpr uint32_t kWeyl = 0x9E3779B9u;  // 2^32 / golden ratio, odd

FL_INLINE uint64_t splitMix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

FL_INLINE Uints fmix32(const Uints& in) {
  Uints h = in;
  h ^= h >> 16;
  h *= 0x85EBCA6Bu;
  h ^= h >> 13;
  h *= 0xC2B2AE35u;
  h ^= h >> 16;
  return h;
}

}  // namespace fl::nn::lanes
