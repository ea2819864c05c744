// Runs fourierlab-cli (its path in $FOURIERLAB_CLI, set by tests/CMakeLists.txt) as a user
// would, for the CLI suites.
#pragma once

#include <QProcess>
#include <QString>
#include <QStringList>

#include <nlohmann/json.hpp>

namespace fl::testing {

struct CliResult {
  int exitCode = -1;  // -1 when it crashed or timed out
  QString out;
  QString err;
};

inline QString cliPath() { return QString::fromLocal8Bit(qgetenv("FOURIERLAB_CLI")); }

// stdoutFile: where stdout goes instead of the pipe (e.g. /dev/full); `out` is empty then.
inline CliResult runCli(const QStringList& args, int timeoutMs = 120000,
                        const QString& stdoutFile = QString()) {
  QProcess p;
  if (!stdoutFile.isEmpty()) p.setStandardOutputFile(stdoutFile);
  p.start(cliPath(), args);
  if (!p.waitForFinished(timeoutMs)) {
    p.kill();
    p.waitForFinished();
  }
  return {p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1,
          QString::fromUtf8(p.readAllStandardOutput()),
          QString::fromUtf8(p.readAllStandardError())};
}

// The JSON object on the last line of stdout (`run --json`).
inline nlohmann::json lastJsonLine(const QString& out) {
  return nlohmann::json::parse(out.trimmed().split('\n').last().toStdString());
}

}  // namespace fl::testing
