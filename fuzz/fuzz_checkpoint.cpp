// Fuzzes a checkpoint file as a resume reads it: the input is the file's bytes (the corpus holds
// real checkpoints of a tiny model, so mutations reach past the zip into the archive's records),
// loaded with loadToyCheckpoint and handed to FlatAdam::loadState as FourierHeadTrial's resume
// does, its permutation read as the batched group's does. A refusal must be an exception with a
// message (the Runner reports c10::Error and std::exception as the run's failure); nothing may
// crash, hang, leak or hit undefined behaviour in our code (LibTorch itself is not instrumented).
//   FUZZ_WRITE_SEED=DIR build-fuzz/fuzz_checkpoint   writes the corpus's checkpoints into DIR
#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <new>
#include <random>
#include <string>

#include <torch/torch.h>

#include "core/optim/flat_adam.h"
#include "experiments/fourier_head/toy_checkpoint.h"

namespace fs = std::filesystem;
using fl::fourier_head::ToyCheckpoint;

namespace {

constexpr int64_t kParameters = 6;
constexpr int64_t kTrainSize = 5;

std::string scratchFile() {
  const char* shm = "/dev/shm";
  std::string pattern =
      std::string(::access(shm, W_OK) == 0 ? shm : "/tmp") + "/fuzz_checkpoint.XXXXXX";
  if (!::mkdtemp(pattern.data())) __builtin_trap();
  static const std::string folder = pattern;
  std::atexit([] {
    std::error_code ec;
    fs::remove_all(folder, ec);
  });
  return pattern + "/checkpoint.pt";
}

void writeSeeds(const std::string& folder) {
  fs::create_directories(folder);
  ToyCheckpoint c;
  c.optimizer.parameters = torch::linspace(-1, 1, kParameters);
  c.optimizer.firstMoment = torch::full({kParameters}, 0.01);
  c.optimizer.secondMoment = torch::full({kParameters}, 1e-4);
  c.optimizer.stepCount = 12;
  c.shuffleRng.seed(7);
  c.permutation = torch::tensor({3, 1, 4, 0, 2}, torch::kLong);
  fl::fourier_head::saveToyCheckpoint(c, folder + "/mid-epoch.pt");
  c.permutation = torch::Tensor();  // before the first step: no order yet
  c.optimizer.stepCount = 0;
  fl::fourier_head::saveToyCheckpoint(c, folder + "/first-step.pt");
}

}  // namespace

// LibTorch's unpickler sizes a string by a length read from the file before it knows that many
// bytes follow: a damaged length asks for gigabytes (LibTorch's bug, not instrumented here).
// Production then gets the memory, or std::bad_alloc: a refusal. Here allocations past 256 MB
// fail (ASan returns null), and operator new, replaced below because ASan's reports a failure
// instead of throwing, throws std::bad_alloc as production's would.
extern "C" const char* __asan_default_options() {
  return "allocator_may_return_null=1:max_allocation_size_mb=256";
}

namespace {

void* allocate(std::size_t size, std::size_t alignment) {
  void* p = nullptr;
  if (::posix_memalign(&p, std::max(alignment, sizeof(void*)), size ? size : 1) != 0)
    return nullptr;
  return p;
}

void* allocateOrThrow(std::size_t size, std::size_t alignment) {
  if (void* p = allocate(size, alignment)) return p;
  throw std::bad_alloc();
}

constexpr std::size_t kDefault = __STDCPP_DEFAULT_NEW_ALIGNMENT__;

}  // namespace

void* operator new(std::size_t n) { return allocateOrThrow(n, kDefault); }
void* operator new[](std::size_t n) { return allocateOrThrow(n, kDefault); }
void* operator new(std::size_t n, std::align_val_t a) {
  return allocateOrThrow(n, static_cast<std::size_t>(a));
}
void* operator new[](std::size_t n, std::align_val_t a) {
  return allocateOrThrow(n, static_cast<std::size_t>(a));
}
void* operator new(std::size_t n, const std::nothrow_t&) noexcept { return allocate(n, kDefault); }
void* operator new[](std::size_t n, const std::nothrow_t&) noexcept {
  return allocate(n, kDefault);
}
void* operator new(std::size_t n, std::align_val_t a, const std::nothrow_t&) noexcept {
  return allocate(n, static_cast<std::size_t>(a));
}
void* operator new[](std::size_t n, std::align_val_t a, const std::nothrow_t&) noexcept {
  return allocate(n, static_cast<std::size_t>(a));
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }
void operator delete(void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete[](void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete(void* p, std::size_t, std::align_val_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t, std::align_val_t) noexcept { std::free(p); }
void operator delete(void* p, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete(void* p, std::align_val_t, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete[](void* p, std::align_val_t, const std::nothrow_t&) noexcept { std::free(p); }

// Leaks inside LibTorch, never in our code. Its PyTorchStreamReader, refusing a zip that miniz
// opened (a record outside the archive's one folder, say), throws from its constructor without
// mz_zip_reader_end: the state miniz allocated (about 1 kB) stays behind.
extern "C" const char* __lsan_default_suppressions() {
  return "leak:mz_zip_reader_init\nleak:mz_zip_reader_read_central_dir\n";
}

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  torch::set_num_threads(1);
  if (const char* folder = std::getenv("FUZZ_WRITE_SEED")) {
    writeSeeds(folder);
    std::exit(0);
  }
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const std::string path = scratchFile();
  {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  }
  try {
    const ToyCheckpoint checkpoint = fl::fourier_head::loadToyCheckpoint(path, torch::kCPU);
    // FourierHeadTrial::loadCheckpoint: the optimiser takes the state into its own buffers.
    auto parameter = torch::zeros({2, kParameters / 2}).requires_grad_();
    fl::optim::FlatAdam adam({parameter}, fl::optim::FlatAdamOptions());
    adam.loadState(checkpoint.optimizer);
    // BatchedFourierHeadProgram::loadCheckpoint: the order as int64 values.
    if (checkpoint.permutation.defined()) {
      auto p = checkpoint.permutation.to(torch::kCPU, torch::kLong).contiguous();
      std::vector<int64_t> order(p.data_ptr<int64_t>(), p.data_ptr<int64_t>() + p.numel());
      (void)order;
    }
    auto rng = checkpoint.shuffleRng;
    (void)rng();
  } catch (const c10::Error& e) {
    if (e.what_without_backtrace()[0] == '\0') __builtin_trap();  // a refusal says why
  } catch (const std::exception& e) {
    if (e.what()[0] == '\0') __builtin_trap();
  }
  return 0;
}
