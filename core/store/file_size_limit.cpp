#include "core/store/file_size_limit.h"

#include <sys/resource.h>

#include <filesystem>
#include <system_error>

namespace fl::store {

std::optional<uint64_t> fileSizeLimitReached(const std::string& path) {
  rlimit limit{};
  if (path.empty() || getrlimit(RLIMIT_FSIZE, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY)
    return std::nullopt;
  constexpr uint64_t kLargestWrite = 65536 + 24;  // a 64 KiB page and its WAL frame header
  const uint64_t bytes = limit.rlim_cur;
  for (const std::string& file : {path, path + "-wal"}) {
    std::error_code error;
    const auto size = std::filesystem::file_size(file, error);
    if (!error && size + kLargestWrite > bytes) return bytes;
  }
  return std::nullopt;
}

}  // namespace fl::store
