// Small row-major float matrix products for the batched toy trainer, called straight into the
// BLAS that LibTorch itself loaded (its sgemm_), without a tensor or a dispatcher on the way:
// a group step makes about six products per member of 32 x 64 x 32, where torch::bmm's
// per-matrix overhead (views, checks) costs more than the arithmetic. Where no sgemm_ is
// loaded (a LibTorch with a private MKL), plain loops compute the same products, slower.
// Torch-free, so it compiles apart from the torch headers.
#pragma once

#include <cstdint>
#include <string>

namespace fl::fourier_head::batched {

// C = alpha * op(A) * op(B) + beta * C for row-major matrices: op(A) is m x k, op(B) is k x n,
// C is m x n; lda, ldb, ldc are the row strides as stored. beta = 0 never reads C.
void gemmRowMajor(bool transposeA, bool transposeB, int64_t m, int64_t n, int64_t k, float alpha,
                  const float* a, int64_t lda, const float* b, int64_t ldb, float beta, float* c,
                  int64_t ldc);

// "sgemm_ in /usr/lib/x86_64-linux-gnu/libopenblas.so.0" or "built-in loops (no sgemm_ loaded)".
std::string gemmBackend();

}  // namespace fl::fourier_head::batched
