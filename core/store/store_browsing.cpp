#include "core/store/store_browsing.h"

namespace fl::store {

std::unique_ptr<RunStore> openForBrowsing(const std::string& path) {
  if (!RunStore::writableByThisUser(path)) return std::make_unique<RunStore>(path, true);
  try {
    return std::make_unique<RunStore>(path);
  } catch (const StoreError& e) {
    if (!e.isNoSpace()) throw;
    auto store = std::make_unique<RunStore>(path, /*readOnly=*/true);
    store->setReadOnlyBecause(kNoSpaceLeft);
    return store;
  }
}

}  // namespace fl::store
