#include "core/engine/symlink_target.h"

#include <filesystem>

namespace fl {

namespace fs = std::filesystem;

std::string symlinkTarget(const std::string& given) {
  // A link to what is no file (/dev/stdout to a pipe, a terminal) is written through as given:
  // followed, /dev/stdout named "/proc/self/fd/pipe:[1167089]", a path no one can open.
  std::error_code status;
  const fs::file_status target = fs::status(given, status);
  if (!status && fs::exists(target) && !fs::is_regular_file(target)) return given;
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
