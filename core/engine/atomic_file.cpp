#include "core/engine/atomic_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <random>
#include <vector>

#include "core/engine/symlink_target.h"

namespace fl {

namespace fs = std::filesystem;

namespace {

std::string folderOf(const std::string& path) {
  const auto parent = fs::path(path).parent_path();
  return parent.empty() ? std::string(".") : parent.string();
}

int openTemporary(const std::string& path, AtomicFile::TemporaryName name, std::string& temporary) {
  constexpr int kFlags = O_WRONLY | O_CREAT | O_CLOEXEC;
  if (name == AtomicFile::TemporaryName::Fixed) {
    temporary = path + ".partial";
    return ::open(temporary.c_str(), kFlags | O_TRUNC, 0666);
  }
  // O_EXCL on a random name rather than mkstemp: the file gets the umask's permissions (0600
  // from mkstemp would survive the rename).
  std::random_device entropy;
  std::mt19937_64 rng((static_cast<uint64_t>(entropy()) << 32) ^ static_cast<uint64_t>(::getpid()));
  const char* letters = "abcdefghijklmnopqrstuvwxyz0123456789";
  for (int attempt = 0; attempt < 100; ++attempt) {
    std::string tag(6, 'x');
    for (auto& c : tag) c = letters[rng() % 36];
    temporary = path + "." + tag + ".partial";
    const int fd = ::open(temporary.c_str(), kFlags | O_EXCL, 0666);
    if (fd >= 0 || errno != EEXIST) return fd;
  }
  return -1;
}

}  // namespace

FileWriteError::FileWriteError(std::string path, const std::string& reason, int errorNumber)
    : std::runtime_error("cannot write " + path + ": " + reason),
      m_path(std::move(path)),
      m_errno(errorNumber) {}

bool FileWriteError::diskFull() const { return m_errno == ENOSPC || m_errno == EDQUOT; }

std::string describeWriteFailure(const std::string& path, int errorNumber) {
  const std::string system = std::strerror(errorNumber);
  const std::string folder = folderOf(path);
  switch (errorNumber) {
    case ENOSPC:
      return "disk full (" + system + ")";
    case EDQUOT:
      return "disk quota exceeded (" + system + ")";
    case ENOENT: {
      // A folder that exists but takes no new files (/proc, a pseudo file system) says ENOENT
      // too: "does not exist" sent the reader looking for a folder that is there.
      std::error_code ignored;
      if (std::filesystem::is_directory(folder, ignored))
        return "its folder " + folder + " takes no new files (" + system + ")";
      return "its folder " + folder + " does not exist";
    }
    case ENOTDIR:
      return "its folder " + folder + " is not a folder";
    case EACCES:
    case EPERM:
      return "no permission to write in " + folder + " (" + system + ")";
    case EROFS:
      return "the file system is read-only (" + system + ")";
    case EISDIR:
      return "it is a folder";
    case EFBIG:
      return "the file is too large for this file system or process (" + system + ")";
    default:
      return system;
  }
}

// Buffers the stream's bytes and hands them to AtomicFile::write.
class AtomicFile::Buffer : public std::streambuf {
 public:
  explicit Buffer(AtomicFile& owner) : m_owner(owner), m_bytes(1 << 16) {
    setp(m_bytes.data(), m_bytes.data() + m_bytes.size());
  }
  int sync() override {
    m_owner.writeRaw(pbase(), static_cast<size_t>(pptr() - pbase()));
    setp(m_bytes.data(), m_bytes.data() + m_bytes.size());
    return m_owner.m_errno == 0 ? 0 : -1;
  }

 protected:
  int_type overflow(int_type c) override {
    if (sync() != 0) return traits_type::eof();
    if (!traits_type::eq_int_type(c, traits_type::eof())) {
      *pptr() = traits_type::to_char_type(c);
      pbump(1);
    }
    return traits_type::not_eof(c);
  }
  std::streamsize xsputn(const char* s, std::streamsize n) override {
    if (n > static_cast<std::streamsize>(m_bytes.size())) {
      if (sync() != 0) return 0;
      m_owner.writeRaw(s, static_cast<size_t>(n));
      return m_owner.m_errno == 0 ? n : 0;
    }
    return std::streambuf::xsputn(s, n);
  }

 private:
  AtomicFile& m_owner;
  std::vector<char> m_bytes;
};

AtomicFile::AtomicFile(std::string path, TemporaryName name) : m_path(symlinkTarget(path)) {
  struct stat target {};
  if (::stat(m_path.c_str(), &target) == 0) {
    if (S_ISDIR(target.st_mode))
      throw FileWriteError(m_path, describeWriteFailure(m_path, EISDIR), EISDIR);
    m_inPlace = !S_ISREG(target.st_mode);
  }
  if (m_inPlace) {
    m_temporary = m_path;
    m_fd = ::open(m_path.c_str(), O_WRONLY | O_CLOEXEC);
  } else {
    m_fd = openTemporary(m_path, name, m_temporary);
  }
  if (m_fd < 0) {
    const int error = errno;
    throw FileWriteError(m_path, describeWriteFailure(m_path, error), error);
  }
  // A file replaced keeps its permissions: an export over a 600 file came back 644, readable
  // by anyone (best effort: the owner may not be ours to keep).
  if (!m_inPlace && target.st_mode != 0) ::fchmod(m_fd, target.st_mode & 07777);
  m_buffer = std::make_unique<Buffer>(*this);
  m_stream = std::make_unique<std::ostream>(m_buffer.get());
}

AtomicFile::~AtomicFile() {
  if (!m_committed) discard();
}

void AtomicFile::discard() {
  if (m_fd >= 0) ::close(m_fd);
  m_fd = -1;
  if (!m_inPlace && !m_temporary.empty()) ::unlink(m_temporary.c_str());
}

void AtomicFile::write(const void* data, size_t size) {
  // What the stream still buffers goes first: the bytes land in the order they were given.
  m_stream->flush();
  writeRaw(data, size);
}

void AtomicFile::writeRaw(const void* data, size_t size) {
  const char* bytes = static_cast<const char*>(data);
  while (size > 0 && m_errno == 0) {
    const ssize_t written = ::write(m_fd, bytes, size);
    if (written < 0) {
      if (errno != EINTR) m_errno = errno;
      continue;
    }
    if (written == 0) m_errno = ENOSPC;  // a device that takes nothing more
    bytes += written;
    size -= static_cast<size_t>(written);
  }
}

std::ostream& AtomicFile::stream() { return *m_stream; }

void AtomicFile::commit() {
  if (m_committed) return;
  m_stream->flush();
  if (m_errno == 0 && ::fsync(m_fd) != 0 && !(m_inPlace && (errno == EINVAL || errno == EROFS)))
    m_errno = errno;
  // close() can be where a network file system reports a full disk.
  if (::close(m_fd) != 0 && m_errno == 0) m_errno = errno;
  m_fd = -1;
  if (m_errno == 0 && !m_inPlace && ::rename(m_temporary.c_str(), m_path.c_str()) != 0)
    m_errno = errno;
  if (m_errno != 0) {
    const int error = m_errno;
    discard();
    throw FileWriteError(m_path, describeWriteFailure(m_path, error), error);
  }
  m_committed = true;
  if (m_inPlace) return;
  // The rename itself survives a power loss only once the folder is synced (best effort).
  const int folder = ::open(folderOf(m_path).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (folder >= 0) {
    ::fsync(folder);
    ::close(folder);
  }
}

}  // namespace fl
