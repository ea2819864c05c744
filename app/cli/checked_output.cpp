#include "app/cli/checked_output.h"

#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>

#include "app/cli/commands.h"

namespace fl::cli {

namespace {

// What standard output is, for the message: "/dev/full", "/data/out.csv", "pipe:[123]".
std::string whereStdoutGoes() {
  char target[4096] = {};
  const ssize_t n = readlink("/proc/self/fd/1", target, sizeof target - 1);
  return n > 0 ? std::string(target, static_cast<size_t>(n)) : std::string("standard output");
}

// Whether standard output is a pipe no one reads any more: a write that failed before the final
// flush left errno to later calls, so the pipe itself is asked (poll reports POLLERR then).
bool readerGone(int error) {
  if (error == EPIPE) return true;
  struct stat target {};
  if (error != 0 || fstat(STDOUT_FILENO, &target) != 0 || !S_ISFIFO(target.st_mode)) return false;
  pollfd out{STDOUT_FILENO, POLLOUT, 0};
  return poll(&out, 1, 0) == 1 && (out.revents & POLLERR);
}

}  // namespace

int withCheckedOutput(const std::function<int()>& command) {
  const int code = command();
  errno = 0;
  const bool flushed = std::fflush(stdout) == 0;
  if (flushed && !std::ferror(stdout)) return code;
  // stdio reports the failure, not always its cause: the final flush says it when it retried.
  const int error = errno;
  // The reader stopped reading (`| head`): said by nothing, as by a tool SIGPIPE ends, with the
  // exit code such a tool has, 128 + SIGPIPE.
  if (readerGone(error)) return code == 0 ? kExitReaderGone : code;
  std::fprintf(stderr, "error: the output could not be written to standard output (%s): %s\n",
               whereStdoutGoes().c_str(),
               error ? std::strerror(error) : "a write failed (a full disk or a closed reader)");
  return code == 0 ? kExitStoreError : code;
}

}  // namespace fl::cli
