// How a store is opened by whoever only needs to read it (the CLI's `runs list`, `sweep show`,
// the window): read-write where this user may write it, so that runs whose process died are
// marked interrupted before they are counted; read-only where it may not (a colleague's store, a
// cluster's results copied without write permission) or where its disk is full (the writes an
// opening makes, the WAL's index and marking dead runs, are refused; the reading is not), rather
// than refused: the runs stay listable, showable and exportable, to make room by.
//
//   auto store = openForBrowsing(path);  // store->readOnlyBecause(): "" when it can be written
#pragma once

#include <memory>
#include <string>

#include "core/store/run_store.h"

namespace fl::store {

// Why openForBrowsing opened a store read-only where its disk is full (RunStore::readOnlyBecause).
inline constexpr const char* kNoSpaceLeft = "cannot be written (no space left for it)";

// For a store there is (RunStore::requireExisting); throws StoreError as RunStore does (a
// corrupt or foreign file, one of an earlier version that this user cannot bring up to date).
// A store opened read-only says why (RunStore::readOnlyBecause).
std::unique_ptr<RunStore> openForBrowsing(const std::string& path);

}  // namespace fl::store
