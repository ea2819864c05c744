// The caching CPU allocator (core/engine/caching_cpu_allocator.h): large blocks come back to
// the next request of their size, small ones and raw allocations still work, and tensors
// computed through it equal the same computation through LibTorch's default allocator.
#include <QtTest>

#include <ATen/Parallel.h>
#include <c10/core/CPUAllocator.h>
#include <torch/torch.h>

#include "core/engine/caching_cpu_allocator.h"

class TestCachingCpuAllocator : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() {
    // The same matmul through the default allocator, before the cache is installed. One thread:
    // OpenBLAS on two splits the sums differently from call to call.
    at::set_num_threads(1);
    torch::manual_seed(3);
    m_a = torch::randn({600, 700});
    m_b = torch::randn({700, 800});
    m_expected = torch::mm(m_a, m_b).relu_() * 2;
    QVERIFY(torch::equal(torch::mm(m_a, m_b).relu_() * 2, m_expected));
    QVERIFY(fl::installCachingCpuAllocator());
    QVERIFY(fl::installCachingCpuAllocator());  // idempotent
    QVERIFY(fl::cachingAllocatorStats().installed);
  }

  void aFreedLargeBlockServesTheNextRequestOfItsSize() {
    fl::releaseCachedCpuBlocks();
    const void* first = nullptr;
    {
      auto t = torch::empty({1 << 20});  // 4 MiB
      first = t.data_ptr();
      QCOMPARE(reinterpret_cast<uintptr_t>(first) % 64, uintptr_t(0));
    }
    const auto before = fl::cachingAllocatorStats();
    QCOMPARE(before.cachedBytes, size_t(4) << 20);
    auto again = torch::empty({1 << 20});
    QCOMPARE(static_cast<const void*>(again.data_ptr()), first);
    QCOMPARE(fl::cachingAllocatorStats().hits, before.hits + 1);
    QCOMPARE(fl::cachingAllocatorStats().cachedBytes, size_t(0));
    // A slightly smaller request rounds up to the same 64 KiB granule.
    again = torch::Tensor();
    auto near = torch::empty({(1 << 20) - 100});
    QCOMPARE(static_cast<const void*>(near.data_ptr()), first);
  }

  void aBlockInUseIsNeverHandedOutTwice() {
    fl::releaseCachedCpuBlocks();
    std::vector<std::pair<torch::Tensor, float>> live;  // each with the value written to it
    for (int round = 0; round < 3; ++round) {
      for (int i = 0; i < 8; ++i) {
        const float value = static_cast<float>(round * 8 + i);
        live.emplace_back(torch::full({(1 << 18) * (1 + i % 3)}, value), value);
      }
      std::set<const void*> pointers;
      for (const auto& [t, value] : live) pointers.insert(t.data_ptr());
      QCOMPARE(pointers.size(), live.size());
      for (const auto& [t, value] : live) {
        QCOMPARE(t.min().item<float>(), value);
        QCOMPARE(t.max().item<float>(), value);
      }
      live.erase(live.begin(), live.begin() + 4);  // free some, keep others
    }
    QVERIFY(fl::cachingAllocatorStats().hits > 0);
  }

  void pastItsLimitTheCacheFreesItsLargestBlocks() {
    fl::releaseCachedCpuBlocks();
    const size_t limit = fl::cachingAllocatorStats().limitBytes;
    fl::setCachedBlockLimit(size_t(10) << 20);
    {
      auto a = torch::empty({1 << 20}), b = torch::empty({1 << 20});  // 4 MiB each
      auto c = torch::empty({2 << 20});                               // 8 MiB
    }
    // 16 MiB freed, at most 10 held: the 8 MiB block went, the two 4 MiB ones stay.
    QCOMPARE(fl::cachingAllocatorStats().cachedBytes, size_t(8) << 20);
    fl::setCachedBlockLimit(size_t(5) << 20);
    QCOMPARE(fl::cachingAllocatorStats().cachedBytes, size_t(4) << 20);
    fl::setCachedBlockLimit(limit);
    QCOMPARE(fl::cachingAllocatorStats().limitBytes, limit);
  }

  void smallTensorsAndRawAllocationsStillWork() {
    auto small = torch::arange(10).to(torch::kFloat);
    QCOMPARE(small.sum().item<float>(), 45.0f);
    auto* allocator = c10::GetCPUAllocator();
    for (size_t bytes : {size_t(256), size_t(3) << 20}) {
      void* p = allocator->raw_allocate(bytes);
      QVERIFY(p != nullptr);
      std::memset(p, 7, bytes);
      allocator->raw_deallocate(p);  // small: the default allocator's; large: cached
    }
  }

  void computationsEqualTheDefaultAllocators() {
    for (int i = 0; i < 3; ++i) {  // again and again from reused blocks
      auto got = torch::mm(m_a, m_b).relu_() * 2;
      QVERIFY2(torch::equal(got, m_expected),
               std::to_string((got - m_expected).abs().max().item<float>()).c_str());
    }
  }

 private:
  torch::Tensor m_a, m_b, m_expected;
};

QTEST_GUILESS_MAIN(TestCachingCpuAllocator)
#include "test_caching_cpu_allocator.moc"
