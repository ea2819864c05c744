// The process's limit on the size of a file it writes (RLIMIT_FSIZE, `ulimit -f`), as the run
// store reads it when SQLite reports a failed write. SQLite says a bare "disk I/O error" for a
// write refused past that limit (EFBIG), and the errno that would say so is often overwritten
// by the calls SQLite makes while it recovers; the files' sizes against the limit still say it.
//
//   if (auto limit = fileSizeLimitReached(dbPath)) hint = "limit of " + std::to_string(*limit);
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace fl::store {

// The limit in bytes, when one is set and the database at `path` or its write-ahead log has
// grown to within one write (64 KiB, SQLite's largest page, and a frame header) of it.
std::optional<uint64_t> fileSizeLimitReached(const std::string& path);

}  // namespace fl::store
