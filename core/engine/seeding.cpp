#include "core/engine/seeding.h"

#include <torch/utils.h>

namespace fl {

namespace {
std::mutex& globalGeneratorMutex() {
  static std::mutex m;
  return m;
}
}  // namespace

SeededScope::SeededScope(uint64_t seed) : m_lock(globalGeneratorMutex()) {
  torch::manual_seed(seed);
}

std::mt19937_64 makeStream(uint64_t seed, const char* purpose) {
  // FNV-1a of the purpose, mixed with the seed through seed_seq so that nearby seeds diverge.
  uint64_t h = 1469598103934665603ull;
  for (const char* c = purpose; *c; ++c)
    h = (h ^ static_cast<unsigned char>(*c)) * 1099511628211ull;
  std::seed_seq seq{static_cast<uint32_t>(seed), static_cast<uint32_t>(seed >> 32),
                    static_cast<uint32_t>(h), static_cast<uint32_t>(h >> 32)};
  return std::mt19937_64(seq);
}

}  // namespace fl
