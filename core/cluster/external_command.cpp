#include "core/cluster/external_command.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>

namespace fl::cluster {

namespace {

void closeFd(int& fd) {
  if (fd >= 0) close(fd);
  fd = -1;
}

}  // namespace

std::string CommandResult::describe(const std::string& program) const {
  if (!started) return program + ": " + error;
  std::string text = err.empty() ? out : err;
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  if (timedOut) return program + ": no answer (" + error + ")" + (text.empty() ? "" : ": " + text);
  if (text.empty()) text = program + " printed nothing";
  // A program killed by a signal has no exit code: "(exit -1)" named none it had returned.
  if (signal != 0)
    return text + " (killed by signal " + std::to_string(signal) + ": " + strsignal(signal) + ")";
  return text + " (exit " + std::to_string(exitCode) + ")";
}

bool onPath(const std::string& program) {
  if (program.find('/') != std::string::npos) return access(program.c_str(), X_OK) == 0;
  const char* path = std::getenv("PATH");
  std::string dirs = path ? path : "/usr/bin:/bin";
  size_t start = 0;
  while (start <= dirs.size()) {
    const size_t end = dirs.find(':', start);
    const std::string dir = dirs.substr(start, end == std::string::npos ? end : end - start);
    const std::string candidate = (dir.empty() ? "." : dir) + "/" + program;
    struct stat st {};
    if (stat(candidate.c_str(), &st) == 0 && S_ISREG(st.st_mode) &&
        access(candidate.c_str(), X_OK) == 0)
      return true;
    if (end == std::string::npos) break;
    start = end + 1;
  }
  return false;
}

CommandResult runCommand(const std::vector<std::string>& argv, int timeoutMs) {
  CommandResult result;
  if (argv.empty()) {
    result.error = "no program given";
    return result;
  }
  if (!onPath(argv[0])) {
    result.error = "not found on the PATH";
    return result;
  }
  // Everything the child needs is built before fork: after it, only async-signal-safe calls.
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  int out[2] = {-1, -1}, err[2] = {-1, -1}, status[2] = {-1, -1};
  if (pipe2(out, O_CLOEXEC) != 0 || pipe2(err, O_CLOEXEC) != 0 || pipe2(status, O_CLOEXEC) != 0) {
    result.error = std::string("cannot create pipes: ") + std::strerror(errno);
    for (int* p : {out, err, status}) closeFd(p[0]), closeFd(p[1]);
    return result;
  }
  const pid_t child = fork();
  if (child < 0) {
    result.error = std::string("cannot fork: ") + std::strerror(errno);
    for (int* p : {out, err, status}) closeFd(p[0]), closeFd(p[1]);
    return result;
  }
  if (child == 0) {
    const int devNull = open("/dev/null", O_RDONLY);
    if (devNull >= 0) dup2(devNull, 0);
    dup2(out[1], 1);
    dup2(err[1], 2);
    execvp(args[0], args.data());
    const int code = errno;
    (void)!write(status[1], &code, sizeof code);
    _exit(127);
  }
  closeFd(out[1]);
  closeFd(err[1]);
  closeFd(status[1]);
  int execErrno = 0;
  if (read(status[0], &execErrno, sizeof execErrno) == sizeof execErrno) {
    result.error = std::string("cannot run: ") + std::strerror(execErrno);
  } else {
    result.started = true;
  }
  closeFd(status[0]);

  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeoutMs);
  pollfd fds[2] = {{out[0], POLLIN, 0}, {err[0], POLLIN, 0}};
  std::string* sinks[2] = {&result.out, &result.err};
  int openPipes = 2;
  while (openPipes > 0) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                          deadline - std::chrono::steady_clock::now())
                          .count();
    if (left <= 0) {
      result.timedOut = true;
      result.error = "killed after " + std::to_string(timeoutMs / 1000) + " s";
      kill(child, SIGKILL);
      break;
    }
    const int n = poll(fds, 2, static_cast<int>(left));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) break;
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      char buf[4096];
      const ssize_t got = read(fds[i].fd, buf, sizeof buf);
      if (got > 0) {
        sinks[i]->append(buf, static_cast<size_t>(got));
      } else if (got == 0 || errno != EINTR) {
        closeFd(fds[i].fd);
        --openPipes;
      }
    }
  }
  for (auto& f : fds) closeFd(f.fd);
  int wstatus = 0;
  while (waitpid(child, &wstatus, 0) < 0 && errno == EINTR) {
  }
  if (result.started && WIFEXITED(wstatus)) result.exitCode = WEXITSTATUS(wstatus);
  if (result.started && !result.timedOut && WIFSIGNALED(wstatus)) result.signal = WTERMSIG(wstatus);
  return result;
}

}  // namespace fl::cluster
