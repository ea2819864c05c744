// Seeding: every source of randomness in a run derives from the run's seed.
//
// LibTorch initialises module parameters from its global generator, which runs started in
// parallel would share. SeededScope holds a process-wide lock while it seeds that generator and
// a model is built, so parallel runs still get exactly their seed's initialisation. Everything
// else a trial draws (data, split, shuffling) comes from its own std::mt19937_64 streams.
#pragma once

#include <cstdint>
#include <mutex>
#include <random>

namespace fl {

class SeededScope {
 public:
  explicit SeededScope(uint64_t seed);
  SeededScope(const SeededScope&) = delete;
  SeededScope& operator=(const SeededScope&) = delete;

 private:
  std::lock_guard<std::mutex> m_lock;
};

// An independent, reproducible stream for one purpose ("data", "split", "shuffle"): the same
// seed and purpose always give the same sequence, and different purposes do not correlate.
std::mt19937_64 makeStream(uint64_t seed, const char* purpose);

}  // namespace fl
