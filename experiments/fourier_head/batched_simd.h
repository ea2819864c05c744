// FL_VECTOR_CLONES: compile a hot loop of the batched toy trainer three times (the x86-64
// baseline, x86-64-v3 = AVX2 + FMA, x86-64-v4 = AVX-512) and let the loader pick the widest the
// CPU has (GCC's target_clones, an ifunc that tests feature bits): the binary stays portable,
// and the loops run 8 or 16 floats wide instead of 4. Elsewhere they compile once, for the
// baseline. Results differ between clones only by rounding (FMA contracts a * b + c).
#pragma once

#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__linux__)
#if __GNUC__ >= 12
#define FL_VECTOR_CLONES \
  __attribute__((target_clones("default", "arch=x86-64-v3", "arch=x86-64-v4")))
#else
#define FL_VECTOR_CLONES __attribute__((target_clones("default", "avx2", "avx512f")))
#endif
#else
#define FL_VECTOR_CLONES
#endif
