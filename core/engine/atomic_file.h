// AtomicFile: writes a file that appears under its name only once it is complete. The bytes go
// to a temporary file in the same folder (so the final rename is atomic), every write is checked,
// and commit() flushes, syncs and renames; a failure (a full disk, a missing folder, no
// permission) throws FileWriteError naming the file and the reason, and the temporary file is
// removed. A crash or kill -9 at any point leaves at most a `.partial` file, never a truncated
// one under the final name.
//
//   AtomicFile out("runs/export.csv");
//   writeCsv(out.stream());
//   out.commit();  // throws FileWriteError, e.g. "cannot write runs/export.csv: disk full (...)"
//
// A target that is not a regular file (/dev/stdout, a pipe, /dev/full) cannot be replaced by a
// rename: it is written in place, with the same checks. A symbolic link is written through: the
// file it names is replaced and the link stays (the rename had replaced the link itself).
#pragma once

#include <cstddef>
#include <memory>
#include <ostream>
#include <stdexcept>
#include <string>

namespace fl {

class FileWriteError : public std::runtime_error {
 public:
  FileWriteError(std::string path, const std::string& reason, int errorNumber);
  const std::string& path() const { return m_path; }
  int errorNumber() const { return m_errno; }  // errno of the failed call
  bool diskFull() const;                       // ENOSPC or EDQUOT

 private:
  std::string m_path;
  int m_errno;
};

// "disk full (No space left on device)", "its folder /x does not exist", ...: why writing
// `path` failed with `errorNumber`, in words a user can act on.
std::string describeWriteFailure(const std::string& path, int errorNumber);

class AtomicFile {
 public:
  enum class TemporaryName {
    // <path>.partial: one writer per path (a run's checkpoints); a stale one is overwritten.
    Fixed,
    // <path>.XXXXXX.partial: several processes may write the same path at once (exports).
    Unique,
  };

  explicit AtomicFile(std::string path, TemporaryName name = TemporaryName::Unique);
  ~AtomicFile();  // removes the temporary file unless committed
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;

  // Appends; after a failure further bytes are dropped and commit() throws.
  void write(const void* data, size_t size);
  std::ostream& stream();
  // Makes the file appear under its name; throws FileWriteError. Idempotent.
  void commit();

  const std::string& path() const { return m_path; }
  const std::string& temporaryPath() const { return m_temporary; }

 private:
  class Buffer;
  void discard();
  void writeRaw(const void* data, size_t size);  // past the stream's buffer

  std::string m_path;
  std::string m_temporary;  // == m_path when written in place
  int m_fd = -1;
  int m_errno = 0;  // the first failure
  bool m_inPlace = false;
  bool m_committed = false;
  std::unique_ptr<Buffer> m_buffer;
  std::unique_ptr<std::ostream> m_stream;
};

}  // namespace fl
