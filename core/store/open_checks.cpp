#include "core/store/open_checks.h"

#include <chrono>
#include <filesystem>
#include <thread>

#include "core/store/schema.h"

namespace fl::store {

namespace fs = std::filesystem;

namespace {

bool hasWalContent(const std::string& path) {
  std::error_code ec;
  const auto bytes = fs::file_size(path + "-wal", ec);
  return !ec && bytes > 0;
}

// Rejects a database with fewer bytes than its header's page count says (a truncated copy).
// Uses stat and SQLite only: opening the file through another descriptor and closing it would
// drop this process's POSIX locks on it, which lets another process overwrite live data
// (sqlite.org/howtocorrupt.html, section 2.2).
void checkNotTruncated(const Database& db) {
  // Order matters while another process is creating or writing the same file: read the page
  // count first (it may come from pages still in the WAL), then look for the WAL, then at the
  // main file. Pages leave the WAL only by being checkpointed into the main file, so a page
  // counted in the first step is found by one of the two stats after it.
  int64_t pageCount = 0, pageSize = 0;
  try {
    auto count = db.prepare("PRAGMA page_count");
    if (count.step()) pageCount = count.int64(0);
    auto size = db.prepare("PRAGMA page_size");
    if (size.step()) pageSize = size.int64(0);
  } catch (const StoreError& e) {
    if (e.isBusy()) throw;
    throw StoreError(db.path(), std::string("is truncated or corrupt (") + e.what() + ")");
  }
  if (hasWalContent(db.path())) return;  // pages may live in the WAL: the main file can be shorter
  std::error_code ec;
  const auto bytes = fs::file_size(db.path(), ec);
  if (ec) return;
  if (static_cast<int64_t>(bytes) < pageCount * pageSize)
    throw StoreError(db.path(), "is truncated or corrupt (" + std::to_string(bytes) +
                                    " bytes, its header says " +
                                    std::to_string(pageCount * pageSize) + ")");
}

// quick_check verifies every page's b-tree structure but not that indexes match their tables,
// which makes it several times cheaper than integrity_check; (1) stops at the first finding.
void checkPagesIntact(const Database& db) {
  auto s = db.prepare("PRAGMA quick_check(1)");
  const std::string finding = s.step() ? s.text(0) : "no answer";
  if (finding != "ok")
    throw StoreError(db.path(), "is corrupt (PRAGMA quick_check: " + finding + ")");
}

}  // namespace

void checkExistingFile(const Database& db, bool checkPages) {
  readSchemaVersion(db);
  checkNotTruncated(db);
  if (checkPages) checkPagesIntact(db);
}

bool vetWalContent(const std::string& path, int busyTimeoutMs, bool checkPages) {
  if (!hasWalContent(path)) return false;  // nothing a close could copy into the main file
  const Database reader = Database::open(path, /*create=*/false, /*readOnly=*/true);
  reader.exec("PRAGMA busy_timeout = " + std::to_string(busyTimeoutMs));
  retryWhileBusy(busyTimeoutMs, [&] { checkExistingFile(reader, checkPages); });
  return true;
}

void retryWhileBusy(int busyTimeoutMs, const std::function<void()>& attempt) {
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::milliseconds(std::max(busyTimeoutMs, 100));
  while (true) {
    try {
      attempt();
      return;
    } catch (const StoreError& e) {
      if (!e.isBusy() || std::chrono::steady_clock::now() > deadline) throw;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
  }
}

}  // namespace fl::store
