#include "app/cli/reading_store.h"

#include <cstdio>

namespace fl::cli {

std::unique_ptr<store::RunStore> openStoreForReading(const std::string& path) {
  if (store::RunStore::writableByThisUser(path)) return std::make_unique<store::RunStore>(path);
  auto store = std::make_unique<store::RunStore>(path, /*readOnly=*/true);
  std::fprintf(stderr,
               "note: %s is read-only for this user: read as it is, so a run whose process died "
               "still reads as it was last written (running, queued)\n",
               store->path().c_str());
  return store;
}

}  // namespace fl::cli
