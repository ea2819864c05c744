#include "core/engine/blas_gemm.h"

#include <dlfcn.h>
#include <sys/resource.h>

#include <climits>
#include <cstdlib>
#include <fstream>
#include <stdexcept>

namespace fl {

namespace {

// The Fortran BLAS interface (LP64: 32-bit integers), column-major.
using SgemmFn = void (*)(const char* transA, const char* transB, const int* m, const int* n,
                         const int* k, const float* alpha, const float* a, const int* lda,
                         const float* b, const int* ldb, const float* beta, float* c,
                         const int* ldc);

struct Backend {
  SgemmFn sgemm = nullptr;
  std::string description;
};

std::string libraryOf(void* symbol) {
  Dl_info info{};
  const bool named = dladdr(symbol, &info) && info.dli_fname;
  return named ? info.dli_fname : "an unnamed library";
}

// OpenBLAS 0.3.21 (Debian 12) maps its work buffer (128 MiB) on a thread's first product and
// retries that mmap forever when it fails: under `ulimit -v` (RLIMIT_AS) or strict overcommit a
// big batch hung there, busy in the kernel, and no cancel or SIGTERM could end the step. Where
// an mmap can fail, LibTorch's MKL does the products instead: its allocation failures end.
bool addressSpaceLimited() {
  rlimit limit{};
  if (getrlimit(RLIMIT_AS, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY) return true;
  std::ifstream overcommit("/proc/sys/vm/overcommit_memory");
  int mode = 0;
  return overcommit >> mode && mode == 2;
}

// Debian's OpenMP OpenBLAS (libopenblas0-openmp), loaded privately (RTLD_LOCAL: its sgemm_
// never interposes LibTorch's); it shares LibTorch's libgomp, so a product inside an OpenMP
// region, or under SingleThreadedBlas, runs on its calling thread. Not the serial build: it
// keeps its packing buffers in unlocked globals, and concurrent runs (a study's groups on two
// threads) corrupted each other's products (NaN losses in 6 of a study's first 118 runs).
// Null where it is not installed.
SgemmFn openBlas() {
  if (std::getenv("FOURIERLAB_SMALL_GEMM_MKL")) return nullptr;  // to compare, in benchmarks
  if (addressSpaceLimited()) return nullptr;
  void* library =
      dlopen("/usr/lib/x86_64-linux-gnu/openblas-openmp/libopenblas.so.0", RTLD_NOW | RTLD_LOCAL);
  return library ? reinterpret_cast<SgemmFn>(dlsym(library, "sgemm_")) : nullptr;
}

const Backend& backend() {
  static const Backend found = [] {
    Backend b;
    // Small products first: MKL's sgemm_ costs about 1 us per call more than OpenBLAS's on
    // 32 x 64 x 32 (the batched toy step: 31 against 17 us per model-step, measured side by
    // side, docs/libtorch-2.15.md), and these callers make thousands of them per step, each on
    // one thread. Else LibTorch's own, in the global scope (the wheel's MKL).
    b.sgemm = openBlas();
    if (!b.sgemm) b.sgemm = reinterpret_cast<SgemmFn>(dlsym(RTLD_DEFAULT, "sgemm_"));
    b.description = b.sgemm ? "sgemm_ in " + libraryOf(reinterpret_cast<void*>(b.sgemm))
                            : "built-in loops (no sgemm_ loaded)";
    return b;
  }();
  return found;
}

// The fallback: C = alpha op(A) op(B) + beta C, row-major, i-p-j order (contiguous in j).
void loopGemm(bool transposeA, bool transposeB, int64_t m, int64_t n, int64_t k, float alpha,
              const float* a, int64_t lda, const float* b, int64_t ldb, float beta, float* c,
              int64_t ldc) {
  for (int64_t i = 0; i < m; ++i) {
    float* row = c + i * ldc;
    for (int64_t j = 0; j < n; ++j) row[j] = beta == 0.0f ? 0.0f : beta * row[j];
    for (int64_t p = 0; p < k; ++p) {
      const float x = alpha * (transposeA ? a[p * lda + i] : a[i * lda + p]);
      if (transposeB)
        for (int64_t j = 0; j < n; ++j) row[j] += x * b[j * ldb + p];
      else
        for (int64_t j = 0; j < n; ++j) row[j] += x * b[p * ldb + j];
    }
  }
}

int asInt(int64_t v) {
  if (v > INT_MAX) throw std::overflow_error("matrix dimension beyond the BLAS's 32-bit range");
  return static_cast<int>(v);
}

}  // namespace

void gemmRowMajor(bool transposeA, bool transposeB, int64_t m, int64_t n, int64_t k, float alpha,
                  const float* a, int64_t lda, const float* b, int64_t ldb, float beta, float* c,
                  int64_t ldc) {
  if (m == 0 || n == 0) return;
  const SgemmFn sgemm = backend().sgemm;
  if (!sgemm) {
    loopGemm(transposeA, transposeB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
    return;
  }
  // Row-major C = op(A) op(B) is column-major C^T = op(B)^T op(A)^T: the same memory, with
  // the operands swapped and each one's transposition flag kept.
  const char tb = transposeB ? 'T' : 'N';
  const char ta = transposeA ? 'T' : 'N';
  const int cm = asInt(n), cn = asInt(m), ck = asInt(k);
  const int clda = asInt(ldb), cldb = asInt(lda), cldc = asInt(ldc);
  sgemm(&tb, &ta, &cm, &cn, &ck, &alpha, b, &clda, a, &cldb, &beta, c, &cldc);
}

std::string gemmBackend() { return backend().description; }

// OpenMP's per-thread team size, which the BLAS reads to decide how many threads one product
// gets. Weak: libgomp comes with LibTorch, and without it the products run as they are.
extern "C" __attribute__((weak)) int omp_get_max_threads();
extern "C" __attribute__((weak)) void omp_set_num_threads(int);

SingleThreadedBlas::SingleThreadedBlas() {
  if (omp_get_max_threads && omp_set_num_threads) {
    m_saved = omp_get_max_threads();
    omp_set_num_threads(1);
  }
}

SingleThreadedBlas::~SingleThreadedBlas() {
  if (m_saved > 0) omp_set_num_threads(m_saved);
}

}  // namespace fl
