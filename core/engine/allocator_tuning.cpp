#include "core/engine/allocator_tuning.h"

#include <cstdlib>
#include <cstring>
#include <mutex>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include "core/engine/caching_cpu_allocator.h"

namespace fl {

AllocatorTuning keepLargeAllocationsInHeap() {
  static std::once_flag once;
  static AllocatorTuning result;
  std::call_once(once, [] {
    const char* env = std::getenv("FOURIERLAB_MALLOC_TUNING");
    if (env && std::strcmp(env, "0") == 0) return;
#if defined(__GLIBC__)
    // 32 MiB is glibc's ceiling for the mmap threshold on 64-bit (HEAP_MAX_SIZE / 2).
    const long mmapThreshold = 32L * 1024 * 1024;
    const long trimThreshold = 512L * 1024 * 1024;
    result.applied = mallopt(M_MMAP_THRESHOLD, static_cast<int>(mmapThreshold)) == 1 &&
                     mallopt(M_TRIM_THRESHOLD, static_cast<int>(trimThreshold)) == 1;
    if (result.applied) {
      result.mmapThreshold = mmapThreshold;
      result.trimThreshold = trimThreshold;
    }
#endif
    result.cachingAllocator = installCachingCpuAllocator();
  });
  return result;
}

}  // namespace fl
