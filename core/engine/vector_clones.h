// FL_VECTOR_CLONES: compile a hot loop once per x86-64 instruction set and let the loader pick
// the widest the CPU has (GCC's target_clones, an ifunc that tests feature bits): the baseline
// (SSE2, a quarter of an AVX-512 register), x86-64-v3 (AVX2 + FMA) and x86-64-v4 (AVX-512). The
// binary stays portable, and the loops run 8 or 16 floats wide instead of 4. Results differ
// between clones only by rounding (FMA contracts a * b + c). Elsewhere (Clang, another CPU or
// system) a loop compiles once, for the baseline.
//
//   FL_VECTOR_CLONES void scaleRow(float* row, int64_t n, float by) { ... }
//
// The transformer's row kernels (core/nn/transformer/vector_lanes.h) and the batched toy
// trainer (experiments/fourier_head) share it, so both are cloned for the same targets.
#pragma once

#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__linux__)
#if __GNUC__ >= 12
#define FL_VECTOR_CLONES \
  __attribute__((target_clones("default", "arch=x86-64-v3", "arch=x86-64-v4")))
#else
// Older GCC has no arch= clones: the nearest feature sets.
#define FL_VECTOR_CLONES __attribute__((target_clones("default", "avx2", "avx512f")))
#endif
#else
#define FL_VECTOR_CLONES
#endif
