// Tests app/cli (fourierlab-cli) as a user runs it: a subprocess, its exit codes, its stderr
// messages and the JSON summary on the last line of stdout.
#include <QtTest>

#include <cmath>

#include <csignal>

#include <nlohmann/json.hpp>

#include "tests/cli_process.h"

using fl::testing::cliPath;
using fl::testing::runCli;
using fl::testing::lastJsonLine;

class TestCli : public QObject {
  Q_OBJECT

  QTemporaryDir m_home;

 private slots:
  void initTestCase() {
    QVERIFY2(QFileInfo(cliPath()).isExecutable(), qPrintable(cliPath()));
    // Runs go to the default store: keep it inside this test's temporary folder.
    qputenv("XDG_DATA_HOME", m_home.path().toUtf8());
  }

  void listShowsExperimentsParamsAndPresets() {
    auto r = runCli({"list", "--json"});
    QCOMPARE(r.exitCode, 0);
    auto j = nlohmann::json::parse(r.out.toStdString());
    QCOMPARE(j[0]["name"].get<std::string>(), std::string("fourier-head"));
    QVERIFY(j[0]["presets"].size() >= 4);
    QVERIFY(j[0]["params"].size() >= 10);
  }

  void runPrintsTheJsonSummaryLast() {
    auto r = runCli({"run", "fourier-head", "--preset", "paper-linear", "--set", "samples=300",
                     "--set", "epochs=2", "--device", "cpu", "--json"});
    QCOMPARE(r.exitCode, 0);
    auto j = lastJsonLine(r.out);
    QCOMPARE(j["experiment"].get<std::string>(), std::string("fourier-head"));
    QCOMPARE(j["status"].get<std::string>(), std::string("finished"));
    QCOMPARE(j["device"].get<std::string>(), std::string("cpu"));
    QCOMPARE(j["seed"].get<int>(), 42);
    QCOMPARE(j["config"]["head"].get<std::string>(), std::string("linear"));
    for (const char* key : {"train/loss", "test/kl", "test/mse_expected", "test/mse_argmax",
                            "test/smoothness"})
      QVERIFY2(j["metrics"].contains(key), key);
    QVERIFY(j["seconds"].get<double>() > 0);
    // Progress went to stderr, plain lines since stderr is not a terminal here.
    QVERIFY(r.err.contains("eval step"));
    // 2 epochs is not the paper's configuration: no comparison with it.
    QVERIFY(!j.contains("paper"));
  }

  // The paper's configuration (evaluation settings and seed free) is compared with Table 1, on
  // stderr and in the JSON, as the Runner judged it.
  void aPaperConfigurationRunSaysHowItCompares() {
    auto r = runCli({"run", "fourier-head", "--preset", "paper-linear", "--set", "dataset=gmm2",
                     "--set", "eval_every=100", "--device", "cpu", "--json"});
    QCOMPARE(r.exitCode, 0);
    auto j = lastJsonLine(r.out);
    QVERIFY2(j.contains("paper"), r.out.toUtf8().constData());
    const auto& kl = j["paper"][0];
    QCOMPARE(kl["preset"].get<std::string>(), std::string("paper-linear"));
    QCOMPARE(kl["metric"].get<std::string>(), std::string("test/kl"));
    QCOMPARE(kl["value"].get<double>(), j["metrics"]["test/kl"].get<double>());
    QCOMPARE(kl["paper_mean"].get<double>(), 0.238);
    QCOMPARE(kl["within_spread"].get<bool>(), std::abs(kl["value"].get<double>() - 0.238) <= 0.032);
    QVERIFY(r.err.contains("paper (paper-linear): test/kl "));
  }

  void transformerExperimentsAreListed() {
    auto j = nlohmann::json::parse(runCli({"list", "--json"}).out.toStdString());
    QStringList names;
    for (const auto& e : j) names << QString::fromStdString(e["name"].get<std::string>());
    QCOMPARE(names, (QStringList{"fourier-head", "fope", "fourier-qk", "addition"}));
  }

  void aBadCorpusFailsTheRunNamingThePath() {
    QTemporaryDir dir;
    const QString missing = dir.filePath("nope.txt");
    auto r = runCli({"run", "fope", "--preset", "tiny", "--set", "corpus=" + missing, "--json"});
    QCOMPARE(r.exitCode, 1);
    QVERIFY2(r.err.contains("corpus '" + missing + "': no such file"), qPrintable(r.err));
    QCOMPARE(lastJsonLine(r.out)["status"].get<std::string>(), std::string("failed"));
    QFile binary(dir.filePath("data.bin"));
    QVERIFY(binary.open(QIODevice::WriteOnly));
    binary.write(QByteArray("text\0more", 9));
    binary.close();
    r = runCli({"run", "fourier-qk", "--set", "corpus=" + binary.fileName()});
    QCOMPARE(r.exitCode, 1);
    QVERIFY2(r.err.contains("is binary, not text (a NUL byte at offset 4)"), qPrintable(r.err));
  }

  void aLeakingFilterIsLabelledInTheSummary() {
    const QStringList tiny{"--set", "d_model=32", "--set", "heads=2", "--set", "layers=1",
                           "--set", "train_len=32", "--set", "batch_size=4", "--set", "steps=20",
                           "--set", "eval_every=20", "--set", "eval_tokens=256",
                           "--set", "synthetic_chars=20000", "--device", "cpu", "--json"};
    auto leaky = runCli(QStringList{"run", "fourier-qk", "--set", "variant=fourier"} + tiny);
    QCOMPARE(leaky.exitCode, 0);
    QVERIFY2(leaky.err.contains("leak/verdict: LEAKS"), qPrintable(leaky.err));
    QVERIFY(QRegularExpression("val/loss\\s+\\S+\\s+LEAKS").match(leaky.err).hasMatch());
    auto j = lastJsonLine(leaky.out);
    QCOMPARE(j["verdicts"]["leak/verdict"]["verdict"].get<std::string>(), std::string("LEAKS"));
    // The stored run keeps the verdict as its status message: lists show it.
    const QString id = QString::number(j["run_id"].get<int>());
    auto shown = nlohmann::json::parse(runCli({"runs", "show", id, "--json"}).out.toStdString());
    QVERIFY(QString::fromStdString(shown["message"].get<std::string>()).startsWith("LEAKS -- "));
    QVERIFY(runCli({"runs", "list"}).out.contains("finished:LEAKS"));
    auto causal = runCli(QStringList{"run", "fourier-qk", "--set", "variant=mexican_hat"} + tiny);
    QCOMPARE(causal.exitCode, 0);
    QVERIFY(causal.err.contains("leak/verdict: causal"));
    QVERIFY(!causal.err.contains("LEAKS"));
    QCOMPARE(lastJsonLine(causal.out)["verdicts"]["leak/verdict"]["ok"].get<bool>(), true);
  }

  void badConfigExitsTwoNamingTheKey_data() {
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QString>("message");
    QTest::newRow("out of range") << QStringList{"--set", "lr=-1"} << "'lr' must be a number in (0, 1], got -1";
    QTest::newRow("unknown key") << QStringList{"--set", "learning_rate=1"} << "unknown parameter 'learning_rate'";
    QTest::newRow("bad choice") << QStringList{"--set", "head=cnn"} << "'head' must be one of linear, fourier, gmm";
    QTest::newRow("bad preset") << QStringList{"--preset", "paper"} << "unknown preset 'paper'";
    QTest::newRow("bad device") << QStringList{"--device", "gpu0"} << "device must be auto, cpu, cuda or cuda:N";
  }
  void badConfigExitsTwoNamingTheKey() {
    QFETCH(QStringList, args);
    QFETCH(QString, message);
    auto r = runCli(QStringList{"run", "fourier-head"} + args);
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains(message), qPrintable(r.err));
  }

  void unknownExperimentAndUsageErrorsExitTwo() {
    auto r = runCli({"run", "fourier-tail"});
    QCOMPARE(r.exitCode, 2);
    QVERIFY(r.err.contains("unknown experiment 'fourier-tail' (known: fourier-head"));
    QCOMPARE(runCli({"run"}).exitCode, 2);
    QCOMPARE(runCli({"frobnicate"}).exitCode, 2);
  }

  void cudaWithoutCudaExitsTwo() {
    auto r = runCli({"run", "fourier-head", "--device", "cuda", "--set", "epochs=1"});
    if (r.exitCode == 0) QSKIP("this machine has CUDA");
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains("CUDA is not available"), qPrintable(r.err));
  }

  void ctrlCCancelsCleanlyWithExitCode130() {
    QProcess p;
    p.start(cliPath(), {"run", "fourier-head", "--set", "epochs=100000", "--device", "cpu", "--json"});
    QVERIFY(p.waitForStarted());
    // Wait until training is under way (the first evaluation line), then interrupt.
    QElapsedTimer timer;
    timer.start();
    QByteArray err;
    while (!err.contains("eval step") && timer.elapsed() < 60000) {
      p.waitForReadyRead(100);
      err += p.readAllStandardError();
    }
    QVERIFY2(err.contains("eval step"), err.constData());
    ::kill(static_cast<pid_t>(p.processId()), SIGINT);
    QVERIFY(p.waitForFinished(30000));
    QCOMPARE(p.exitCode(), 130);
    err += p.readAllStandardError();
    QVERIFY(err.contains("run cancelled"));
    auto j = lastJsonLine(QString::fromUtf8(p.readAllStandardOutput()));
    QCOMPARE(j["status"].get<std::string>(), std::string("cancelled"));
  }
};

QTEST_GUILESS_MAIN(TestCli)
#include "test_cli.moc"
