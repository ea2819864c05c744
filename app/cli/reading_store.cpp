#include "app/cli/reading_store.h"

#include <cstdio>

#include "core/store/store_browsing.h"

namespace fl::cli {

std::unique_ptr<store::RunStore> openStoreForReading(const std::string& path) {
  auto store = store::openForBrowsing(path);
  if (store->isReadOnly())
    std::fprintf(stderr,
                 "note: %s %s: read as it is, so a run whose process died still reads as it was "
                 "last written (running, queued)\n",
                 store->path().c_str(), store->readOnlyBecause().c_str());
  return store;
}

}  // namespace fl::cli
