// Vetting an existing store file before anything is written to it: a foreign or newer file, a
// truncated copy or a corrupt page is refused with a StoreError naming the file, and the file,
// its -wal included, is left byte-for-byte as it was. RunStore's constructor is the user:
//
//   vetWalContent(path, busyTimeoutMs, /*checkPages=*/true);  // before opening read-write
//   Database db = Database::open(path, /*create=*/true);
//   retryWhileBusy(busyTimeoutMs, [&] { checkExistingFile(db, /*checkPages=*/true); ... });
#pragma once

#include <functional>
#include <string>

#include "core/store/sqlite_handle.h"

namespace fl::store {

// Schema version (refuses a foreign or newer file), truncation, and with `checkPages`
// `PRAGMA quick_check(1)` (reads every page: refuses a file with a corrupt one). Reads only.
void checkExistingFile(const Database& db, bool checkPages = false);

// When the file has a non-empty -wal, runs checkExistingFile on a read-only connection that never
// checkpoints: a read-write connection closing last would copy the WAL into the main file and
// delete it, changing a file it refused. Returns whether it ran (then the page check is done).
bool vetWalContent(const std::string& path, int busyTimeoutMs, bool checkPages);

// Calls `attempt` again while it throws a busy StoreError, until busyTimeoutMs have passed. Some
// lock conflicts (WAL recovery, a journal-mode change while another process creates the same
// fresh file) answer SQLITE_BUSY at once, without the busy handler.
void retryWhileBusy(int busyTimeoutMs, const std::function<void()>& attempt);

}  // namespace fl::store
