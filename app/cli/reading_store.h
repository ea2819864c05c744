// How a command that only reads (`runs list`, `sweep show`, ...) opens a store: read-write where
// this user may write it, so that runs whose process died are marked interrupted before they are
// counted; read-only where it may not (a colleague's store, a cluster's results copied without
// write permission) or where its disk is full, said once on stderr, rather than refused.
#pragma once

#include <memory>
#include <string>

#include "core/store/run_store.h"

namespace fl::cli {

// For a store RunStore::requireExisting has found; throws StoreError as RunStore does (a corrupt
// or foreign file, one of an earlier version that this user cannot bring up to date).
std::unique_ptr<store::RunStore> openStoreForReading(const std::string& path);

}  // namespace fl::cli
