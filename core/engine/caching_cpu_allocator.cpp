#include "core/engine/caching_cpu_allocator.h"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <new>
#include <unordered_map>

#include <c10/core/CPUAllocator.h>
#include <c10/util/Exception.h>

namespace fl {

namespace {

constexpr size_t kLargeBytes = size_t(1) << 20;  // below: the default allocator
constexpr size_t kGranule = size_t(1) << 16;     // sizes rounded up, so near sizes share blocks
constexpr size_t kAlignment = 64;                // as c10's alloc_cpu (AVX-512 loads)

size_t physicalMemory() {
  const long pages = sysconf(_SC_PHYS_PAGES), pageSize = sysconf(_SC_PAGESIZE);
  return pages > 0 && pageSize > 0 ? static_cast<size_t>(pages) * static_cast<size_t>(pageSize)
                                   : size_t(8) << 30;
}

class CachingCpuAllocator final : public c10::Allocator {
 public:
  CachingCpuAllocator(c10::Allocator* fallback, size_t limit)
      : m_fallback(fallback), m_limit(limit) {}

  // LibTorch declares allocate const before 2.3 and not after, and copy_data only from 2.3 on:
  // both spellings are defined without `override`, so whichever the base declares is overridden
  // and the other is an ordinary member (this code compiles against the GPU machine's older 2.x
  // as well as the pinned wheel).
  c10::DataPtr allocate(size_t bytes) { return allocateBlock(bytes); }
  c10::DataPtr allocate(size_t bytes) const { return allocateBlock(bytes); }
  void copy_data(void* dest, const void* src, std::size_t count) const {
    std::memcpy(dest, src, count);
  }

  c10::DataPtr allocateBlock(size_t bytes) const {
    if (bytes < kLargeBytes) return m_fallback->allocate(bytes);
    const size_t size = (bytes + kGranule - 1) / kGranule * kGranule;
    void* block = take(size);
    if (!block) {
      block = std::aligned_alloc(kAlignment, size);
      if (!block) {
        // The free blocks kept here hold memory (and address space under `ulimit -v`) the
        // allocation may need: give them back and try once more before failing.
        releaseAll();
        block = std::aligned_alloc(kAlignment, size);
      }
      // Said as LibTorch's own allocators say it, so the Runner reports it as out of memory
      // with the size asked for, not as a bare std::bad_alloc.
      TORCH_CHECK_WITH(OutOfMemoryError, block != nullptr, "CPU: could not allocate ", bytes,
                       " bytes (", (bytes + (size_t(1) << 20) - 1) >> 20,
                       " MiB) for a tensor: not enough memory or address space");
      std::lock_guard<std::mutex> lock(m_mutex);
      m_live.emplace(block, size);
    }
    // The context is the pointer itself, as raw_allocate (used inside LibTorch) requires.
    return {block, block, &CachingCpuAllocator::release, c10::Device(c10::kCPU)};
  }

  c10::DeleterFnPtr raw_deleter() const override { return &CachingCpuAllocator::release; }

  CachingAllocatorStats stats() const {
    std::lock_guard<std::mutex> lock(m_mutex);
    return {true, m_hits, m_misses, m_cached, m_limit};
  }

  void releaseAll() const {
    std::lock_guard<std::mutex> lock(m_mutex);
    for (auto& [size, block] : m_free) std::free(block);
    m_free.clear();
    m_cached = 0;
  }

  void setLimit(size_t bytes) const {
    std::lock_guard<std::mutex> lock(m_mutex);
    m_limit = bytes;
    evictPastLimit();
  }

 private:
  void* take(size_t size) const {
    std::lock_guard<std::mutex> lock(m_mutex);
    auto it = m_free.find(size);
    if (it == m_free.end()) {
      ++m_misses;
      return nullptr;
    }
    ++m_hits;
    void* block = it->second;
    m_free.erase(it);
    m_cached -= size;
    m_live.emplace(block, size);
    return block;
  }

  // A freed block is kept; past the limit the largest free blocks are freed first (the fewest
  // frees to get under it). A pointer the cache never handed out came from the fallback (a
  // small raw allocation).
  void keep(void* data) const {
    std::unique_lock<std::mutex> lock(m_mutex);
    auto live = m_live.find(data);
    if (live == m_live.end()) {
      lock.unlock();
      m_fallback->raw_deleter()(data);
      return;
    }
    const size_t size = live->second;
    m_live.erase(live);
    if (size > m_limit) {
      std::free(data);
      return;
    }
    m_free.emplace(size, data);
    m_cached += size;
    evictPastLimit();
  }

  void evictPastLimit() const {  // with m_mutex held
    while (m_cached > m_limit) {
      const auto largest = std::prev(m_free.end());
      m_cached -= largest->first;
      std::free(largest->second);
      m_free.erase(largest);
    }
  }

  static void release(void* data);

  c10::Allocator* m_fallback;
  mutable size_t m_limit;
  mutable std::mutex m_mutex;
  mutable std::unordered_map<void*, size_t> m_live;  // handed out: their sizes
  mutable std::multimap<size_t, void*> m_free;
  mutable size_t m_cached = 0;
  mutable int64_t m_hits = 0, m_misses = 0;
};

// Never destroyed: tensors freed during static destruction still return their blocks here.
CachingCpuAllocator* g_allocator = nullptr;

void CachingCpuAllocator::release(void* data) { g_allocator->keep(data); }

}  // namespace

bool installCachingCpuAllocator() {
  static std::once_flag once;
  std::call_once(once, [] {
    for (const char* name : {"FOURIERLAB_MALLOC_TUNING", "FOURIERLAB_BLOCK_CACHE"}) {
      const char* env = std::getenv(name);
      if (env && std::strcmp(env, "0") == 0) return;
    }
    // A quarter of the memory held free at most: a batch-64 paper step reuses about 2.6 GB.
    g_allocator = new CachingCpuAllocator(c10::GetDefaultCPUAllocator(), physicalMemory() / 4);
    c10::SetCPUAllocator(g_allocator, /*priority=*/1);
  });
  return g_allocator != nullptr;
}

CachingAllocatorStats cachingAllocatorStats() {
  return g_allocator ? g_allocator->stats() : CachingAllocatorStats{};
}

void releaseCachedCpuBlocks() {
  if (g_allocator) g_allocator->releaseAll();
}

void setCachedBlockLimit(size_t bytes) {
  if (g_allocator) g_allocator->setLimit(bytes);
}

}  // namespace fl
