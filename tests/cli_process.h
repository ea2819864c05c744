// Runs fourierlab-cli (its path in $FOURIERLAB_CLI, set by tests/CMakeLists.txt) as a user
// would, for the CLI suites.
#pragma once

#include <QProcess>
#include <QString>
#include <QStringList>

#include <sys/resource.h>

#include <csignal>

#include <nlohmann/json.hpp>

namespace fl::testing {

struct CliResult {
  int exitCode = -1;  // -1 when it crashed or timed out
  QString out;
  QString err;
};

inline QString cliPath() { return QString::fromLocal8Bit(qgetenv("FOURIERLAB_CLI")); }

// Starts the CLI in `p` and waits for it (killed past `timeoutMs`).
inline CliResult finishCli(QProcess& p, const QStringList& args, int timeoutMs) {
  p.start(cliPath(), args);
  // A CLI that never started reads as a failure, not as exit code 0 (QProcess's default).
  if (!p.waitForStarted(timeoutMs))
    return {-1, QString(), "could not start '" + cliPath() + "': " + p.errorString()};
  if (!p.waitForFinished(timeoutMs)) {
    p.kill();
    p.waitForFinished();
  }
  return {p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1,
          QString::fromUtf8(p.readAllStandardOutput()),
          QString::fromUtf8(p.readAllStandardError())};
}

// stdoutFile: where stdout goes instead of the pipe (e.g. /dev/full); `out` is empty then.
inline CliResult runCli(const QStringList& args, int timeoutMs = 120000,
                        const QString& stdoutFile = QString()) {
  QProcess p;
  if (!stdoutFile.isEmpty()) p.setStandardOutputFile(stdoutFile);
  return finishCli(p, args, timeoutMs);
}

// The CLI with a limit on the size of any file it writes: a disk that fills up after `bytes`,
// as the same write calls see it (EFBIG rather than ENOSPC).
inline CliResult runCliWithFileSizeLimit(const QStringList& args, rlim_t bytes,
                                         int timeoutMs = 300000) {
  QProcess p;
  // SIGXFSZ keeps its default action (killing): the CLI itself must make it a failed write.
  p.setChildProcessModifier([bytes] {
    rlimit limit{bytes, bytes};
    ::setrlimit(RLIMIT_FSIZE, &limit);
  });
  return finishCli(p, args, timeoutMs);
}

// The JSON object on the last line of stdout (`run --json`).
inline nlohmann::json lastJsonLine(const QString& out) {
  return nlohmann::json::parse(out.trimmed().split('\n').last().toStdString());
}

}  // namespace fl::testing
