#include "core/engine/file_digest.h"

#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>
#include <tuple>

#include "core/store/config_hash.h"

namespace fl {

std::optional<std::string> fileDigest(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const auto size = fs::file_size(path, ec);
  if (ec) return std::nullopt;
  const auto modified = fs::last_write_time(path, ec);
  if (ec) return std::nullopt;
  using Key = std::tuple<std::string, uintmax_t, fs::file_time_type>;
  static std::mutex mutex;
  static std::map<Key, std::string> known;
  const Key key{path, size, modified};
  {
    std::lock_guard<std::mutex> lock(mutex);
    if (auto it = known.find(key); it != known.end()) return it->second;
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream bytes;
  bytes << in.rdbuf();
  if (in.bad()) return std::nullopt;
  const std::string digest = store::stableHash(bytes.str());
  std::lock_guard<std::mutex> lock(mutex);
  known[key] = digest;
  return digest;
}

}  // namespace fl
