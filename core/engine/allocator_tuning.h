// Allocator tuning for training loops: keep large per-step temporaries in the heap.
//
// glibc serves allocations above M_MMAP_THRESHOLD (128 KiB, adapting up to 32 MiB) with a
// fresh mmap and returns them with munmap. A transformer step allocates and frees the same
// T x T attention matrices every step, so each step maps, faults in and unmaps them again:
// up to 40% of a step in the kernel (bench/bench_transformer prints user and system time).
// Raising the threshold to its maximum and the trim threshold above it lets freed blocks be
// reused by the next step instead. Blocks above the threshold, and those of worker threads
// (glibc's thread arenas map them regardless), go through a caching allocator in front of
// malloc (caching_cpu_allocator.h).
#pragma once

namespace fl {

struct AllocatorTuning {
  bool applied = false;
  long mmapThreshold = 0;  // bytes
  long trimThreshold = 0;
  bool cachingAllocator = false;  // LibTorch's large CPU blocks are cached between steps
};

// Applies the tuning once per process (later calls return the first result). Does nothing
// (applied = false) without glibc, or when FOURIERLAB_MALLOC_TUNING=0 is set (for comparisons).
AllocatorTuning keepLargeAllocationsInHeap();

}  // namespace fl
