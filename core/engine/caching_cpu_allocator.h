// A caching allocator for LibTorch's large CPU tensors: freed blocks of 1 MiB and more are kept
// and handed to the next request of the same (rounded) size instead of going back to glibc.
//
// A training step allocates the same activations every step. glibc serves blocks above its
// mmap threshold (32 MiB at most, see allocator_tuning.h) with a fresh mmap, so each step maps,
// zero-faults and unmaps them again: at the FourierQK paper's batch 64 x T 256 the MLP's
// (B T, 4 d) activations are 64 MiB each and 31% of a step went to the kernel. Worker threads
// allocate from glibc's per-thread arenas, which mmap such blocks whatever mallopt says, so
// the cache sits in front of malloc. Small blocks go to LibTorch's default allocator untouched.
//
//   installCachingCpuAllocator();   // once per process, before training; idempotent
#pragma once

#include <cstddef>
#include <cstdint>

namespace fl {

struct CachingAllocatorStats {
  bool installed = false;
  int64_t hits = 0, misses = 0;  // large allocations served from the cache or from malloc
  size_t cachedBytes = 0;        // free blocks held now
  size_t limitBytes = 0;         // at most this much is held free; beyond it blocks are freed
};

// Makes the cache LibTorch's CPU allocator (process-wide, once). Returns false when
// FOURIERLAB_MALLOC_TUNING=0 or FOURIERLAB_BLOCK_CACHE=0 asks for the plain allocator (for
// comparisons: bench_transformer runs either way).
bool installCachingCpuAllocator();

CachingAllocatorStats cachingAllocatorStats();

// Frees every cached block (the memory returns to glibc).
void releaseCachedCpuBlocks();

// At most `bytes` held free from now on (default: a quarter of the physical memory); the
// largest free blocks are freed first to get under it.
void setCachedBlockLimit(size_t bytes);

}  // namespace fl
