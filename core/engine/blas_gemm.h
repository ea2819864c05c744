// Row-major float matrix products called straight into a BLAS's sgemm_, without a tensor or a
// dispatcher on the way: Debian's OpenBLAS where it is installed (setup.sh installs it: its
// per-call cost on small products is about half MKL's), else the MKL that PyTorch's wheel
// exports from libtorch_cpu. Two callers need that: the batched toy trainer, whose group step makes
// about six 32 x 64 x 32 products per member, where torch::bmm's per-matrix overhead (views,
// checks) costs more than the arithmetic; and the blocked attention, whose per-block products
// through ATen paid ~30 us each of dispatch, views and transposes (23% of a paper step). Where
// no sgemm_ is loaded (a LibTorch without an exported BLAS), plain loops compute the same
// products, slower. Torch-free, so it compiles apart from the torch headers.
#pragma once

#include <cstdint>
#include <string>

namespace fl {

// C = alpha * op(A) * op(B) + beta * C for row-major matrices: op(A) is m x k, op(B) is k x n,
// C is m x n; lda, ldb, ldc are the row strides as stored. beta = 0 never reads C. Inside an
// OpenMP parallel region the BLAS runs on the calling thread (MKL and OpenBLAS both check).
void gemmRowMajor(bool transposeA, bool transposeB, int64_t m, int64_t n, int64_t k, float alpha,
                  const float* a, int64_t lda, const float* b, int64_t ldb, float beta, float* c,
                  int64_t ldc);

// "sgemm_ in /usr/lib/x86_64-linux-gnu/openblas-openmp/libopenblas.so.0", "sgemm_ in
// /…/torch/lib/libtorch_cpu.so" or "built-in loops (no sgemm_ loaded)".
std::string gemmBackend();

// While it lives, the BLAS products called on this thread run on this thread alone. Inside
// at::parallel_for's OpenMP region the BLAS already does so; this guard covers a loop run
// outside any region (a build without OpenMP, where parallel_for is serial), where the BLAS
// would give each small product a team of all the cores: a lone 256 x 128 x 32 product measured
// 16 GFLOP/s with a team of two, 78 without.
class SingleThreadedBlas {
 public:
  SingleThreadedBlas();
  ~SingleThreadedBlas();
  SingleThreadedBlas(const SingleThreadedBlas&) = delete;
  SingleThreadedBlas& operator=(const SingleThreadedBlas&) = delete;

 private:
  int m_saved = 0;
};

}  // namespace fl
