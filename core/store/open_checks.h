// Vetting an existing store file before anything is written to it: a foreign or newer file, a
// truncated copy is refused with a StoreError naming the file, and the file,
// its -wal included, is left byte-for-byte as it was. RunStore's constructor is the user:
//
//   vetWalContent(path, busyTimeoutMs);                 // before opening read-write
//   Database db = Database::open(path, /*create=*/true);
//   retryWhileBusy(busyTimeoutMs, [&] { checkExistingFile(db); ... });
#pragma once

#include <functional>
#include <string>

#include "core/store/sqlite_handle.h"

namespace fl::store {

// Schema version (refuses a foreign or newer file) and truncation. Reads only.
void checkExistingFile(const Database& db);

// When the file has a non-empty -wal, runs checkExistingFile on a read-only connection that never
// checkpoints: a read-write connection closing last would copy the WAL into the main file and
// delete it, changing a file it refused.
void vetWalContent(const std::string& path, int busyTimeoutMs);

// Calls `attempt` again while it throws a busy StoreError, until busyTimeoutMs have passed. Some
// lock conflicts (WAL recovery, a journal-mode change while another process creates the same
// fresh file) answer SQLITE_BUSY at once, without the busy handler.
void retryWhileBusy(int busyTimeoutMs, const std::function<void()>& attempt);

}  // namespace fl::store
