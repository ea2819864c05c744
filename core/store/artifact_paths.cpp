#include "core/store/artifact_paths.h"

#include <filesystem>

namespace fl::store {

namespace fs = std::filesystem;

std::string resolveStoredArtifact(const std::string& storePath, const std::string& stored) {
  const fs::path p = stored;
  if (!p.is_relative()) return p.lexically_normal().string();
  const fs::path folder = fs::path(storePath).parent_path();
  const fs::path literal = (folder / p).lexically_normal();
  const std::string own = fs::path(storePath).filename().string() + kFilesSuffix;
  const std::string first = p.begin() == p.end() ? std::string() : p.begin()->string();
  if (first == own || !first.ends_with(kFilesSuffix)) return literal.string();
  fs::path mine = folder / own;
  for (auto part = std::next(p.begin()); part != p.end(); ++part) mine /= *part;
  std::error_code ec;
  if (fs::exists(mine, ec) || !fs::exists(literal, ec)) return mine.lexically_normal().string();
  return literal.string();
}

bool isInsideFilesOf(const std::string& storePath, const std::string& file) {
  const fs::path files = fs::path(storePath + kFilesSuffix).lexically_normal();
  const fs::path inside = fs::path(file).lexically_normal().lexically_relative(files);
  return !inside.empty() && *inside.begin() != ".." && inside != ".";
}

}  // namespace fl::store
