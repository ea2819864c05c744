#include "core/engine/symlink_target.h"

#include <filesystem>

namespace fl {

namespace fs = std::filesystem;

std::string symlinkTarget(const std::string& given) {
  fs::path path = given;
  for (int hop = 0; hop < 40; ++hop) {
    std::error_code ec;
    if (!fs::is_symlink(path, ec)) break;
    const fs::path target = fs::read_symlink(path, ec);
    if (ec) break;
    path = target.is_absolute() ? target : path.parent_path() / target;
  }
  return path.string();
}

}  // namespace fl
