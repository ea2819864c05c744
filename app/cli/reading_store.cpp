#include "app/cli/reading_store.h"

#include <cstdio>

namespace fl::cli {

std::unique_ptr<store::RunStore> openStoreForReading(const std::string& path) {
  const auto readAsItIs = [&](const char* why) {
    auto store = std::make_unique<store::RunStore>(path, /*readOnly=*/true);
    std::fprintf(stderr,
                 "note: %s %s: read as it is, so a run whose process died still reads as it was "
                 "last written (running, queued)\n",
                 store->path().c_str(), why);
    return store;
  };
  if (!store::RunStore::writableByThisUser(path)) return readAsItIs("is read-only for this user");
  try {
    return std::make_unique<store::RunStore>(path);
  } catch (const store::StoreError& e) {
    // A full disk (or a file size limit) refuses the writes an opening makes (the WAL's index,
    // marking dead runs), not the reading: the runs stay listable, showable and exportable, to make
    // room by.
    if (!e.isNoSpace()) throw;
    return readAsItIs("cannot be written (no space left for it)");
  }
}

}  // namespace fl::cli
