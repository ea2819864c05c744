#include "core/store/store_folder.h"

#include <filesystem>

#include "core/store/run_store.h"

namespace fl::store {

namespace fs = std::filesystem;

std::string missingStoreFolder(const std::string& path) {
  const fs::path folder = fs::path(RunStore::resolvedPath(path)).parent_path();
  std::error_code ec;
  if (fs::is_directory(folder, ec)) return "";
  return "its folder " + folder.string() +
         " does not exist (a mistyped path? nothing was created; make it with mkdir -p first)";
}

}  // namespace fl::store
