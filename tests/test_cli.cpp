// Tests app/cli (fourierlab-cli) as a user runs it: a subprocess, its exit codes, its stderr
// messages and the JSON summary on the last line of stdout.
#include <QtTest>

#include <sys/resource.h>

#include <cmath>

#include <csignal>

#include <sys/wait.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "core/store/run_store.h"
#include "tests/cli_process.h"
#include "tests/sqlite_probe.h"
#include "tests/text_corpus.h"

namespace {

// Starts the CLI with `args`, waits until training is under way (its first evaluation line) and
// sends it `signal`. Returns what it wrote to stderr until then: without "eval step" it never
// got there (and was not signalled).
QByteArray signalOnceTraining(QProcess& p, const QStringList& args, int signal) {
  p.start(fl::testing::cliPath(), args);
  if (!p.waitForStarted()) return {};
  QElapsedTimer timer;
  timer.start();
  QByteArray err;
  while (!err.contains("eval step") && timer.elapsed() < 60000) {
    p.waitForReadyRead(100);
    err += p.readAllStandardError();
  }
  if (err.contains("eval step")) ::kill(static_cast<pid_t>(p.processId()), signal);
  return err;
}

}  // namespace

using fl::testing::cliPath;
using fl::testing::lastJsonLine;
using fl::testing::runCli;

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

  // JSON holds UTF-8 only: a store in a folder whose name is not (a Latin-1 folder) aborted
  // the process after the run had finished, with no summary. Such bytes read as U+FFFD.
  void aJsonSummaryOfAPathThatIsNotUtf8IsWritten() {
    QProcess p;
    p.setProcessChannelMode(QProcess::SeparateChannels);
    p.start("bash",
            {"-c",
             "d=\"$1/latin-$(printf '\\xe9')\"; mkdir -p \"$d\" && exec \"$2\" run fourier-head "
             "--set samples=200 --set epochs=1 --device cpu --json --db \"$d/runs.db\"",
             "bash", m_home.path(), cliPath()});
    QVERIFY(p.waitForFinished(120000));
    QCOMPARE(p.exitCode(), 0);
    const auto j = lastJsonLine(QString::fromUtf8(p.readAllStandardOutput()));
    QCOMPARE(j["status"].get<std::string>(), std::string("finished"));
    QVERIFY2(j["db"].get<std::string>().find("/latin-\xEF\xBF\xBD/runs.db") != std::string::npos,
             j["db"].get<std::string>().c_str());
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
    for (const char* key :
         {"train/loss", "test/kl", "test/mse_expected", "test/mse_argmax", "test/smoothness"})
      QVERIFY2(j["metrics"].contains(key), key);
    QVERIFY(j["seconds"].get<double>() > 0);
    // Progress went to stderr, plain lines since stderr is not a terminal here; a run of
    // several epochs counts them too.
    QVERIFY2(r.err.contains(" epoch 2/2 loss "), qPrintable(r.err));
    // The end's summary lists the results, and the process's figures apart on one line: among
    // the results, "system/cpu_percent 65.7" read as one of them.
    QVERIFY2(r.err.contains("\n  train/loss ") && r.err.contains("\n  test/kl "),
             qPrintable(r.err));
    QVERIFY2(!r.err.contains("\n  system/"), qPrintable(r.err));
    QVERIFY2(r.err.contains("\n  the process, at the end (not results): cpu_percent "),
             qPrintable(r.err));
    QVERIFY(j["metrics"].contains("system/cpu_percent"));  // the JSON keeps every series
    // 2 epochs is not the paper's configuration: no comparison with it.
    QVERIFY(!j.contains("paper"));
    // Without --name the run is named by its preset and what was changed from it (the device
    // aside), as the window names a run launched from an edited form.
    fl::store::RunStore store(j["db"].get<std::string>(), /*readOnly=*/true);
    QCOMPARE(store.run(j["run_id"].get<int64_t>())->name,
             std::string("paper-linear, edited: samples 300, epochs 2"));
    auto plain = runCli({"run", "fourier-head", "--set", "samples=300", "--set", "epochs=2",
                         "--name", "mine", "--json"});
    QCOMPARE(plain.exitCode, 0);
    QCOMPARE(store.run(lastJsonLine(plain.out)["run_id"].get<int64_t>())->name,
             std::string("mine"));
  }

  // A closed reader (`fourierlab-cli run ... 2>&1 | head -2`) killed the run at its first line
  // of progress (SIGPIPE, exit 141), leaving it `interrupted` at step 0. The run trains to the
  // end and is stored; its summary (stdout, --json) that could not be written ends the command
  // as a closed reader ends any tool, with exit 141, after the run is stored. Progress on stderr
  // that could not be written is let go.
  void aClosedReaderLosesTheOutputNotTheRun() {
    const QString db = m_home.path() + "/closed-reader.db";
    int fds[2];
    QVERIFY(::pipe(fds) == 0);
    ::close(fds[0]);  // nobody reads: every write meets a closed pipe
    const QStringList args{"run",      "fourier-head", "--set", "samples=300", "--set",
                           "epochs=2", "--device",     "cpu",   "--db",        db,
                           "--json"};
    std::vector<std::string> words{cliPath().toStdString()};
    for (const auto& a : args) words.push_back(a.toStdString());
    std::vector<char*> argv;
    for (auto& w : words) argv.push_back(w.data());
    argv.push_back(nullptr);
    const pid_t child = ::fork();
    if (child == 0) {
      ::dup2(fds[1], STDOUT_FILENO);
      ::dup2(fds[1], STDERR_FILENO);
      ::execv(argv[0], argv.data());
      ::_exit(127);
    }
    ::close(fds[1]);
    QVERIFY(child > 0);
    int status = 0;
    QCOMPARE(::waitpid(child, &status, 0), child);
    QVERIFY2(WIFEXITED(status), qPrintable(QString("killed by signal %1").arg(WTERMSIG(status))));
    QCOMPARE(WEXITSTATUS(status), 141);
    const auto shown = runCli({"runs", "show", "1", "--db", db, "--json"});
    QCOMPARE(shown.exitCode, 0);
    const auto run = nlohmann::json::parse(shown.out.toStdString());
    QCOMPARE(run["status"].get<std::string>(), std::string("finished"));
  }

  // `sweep run --threads` past the cores warned and `run --threads` did not.
  void moreThreadsThanCoresAreSaid() {
    auto r = runCli({"run", "fourier-head", "--set", "samples=200", "--set", "epochs=1", "--device",
                     "cpu", "--threads", "1024", "--db", m_home.path() + "/t.db"});
    QCOMPARE(r.exitCode, 0);
    QVERIFY2(r.err.contains("threads: 1024 on ") &&
                 r.err.contains("cores; WARNING: more threads than cores, as requested"),
             qPrintable(r.err));
    auto fits = runCli({"run", "fourier-head", "--set", "samples=200", "--set", "epochs=1",
                        "--device", "cpu", "--threads", "1", "--db", m_home.path() + "/t.db"});
    QCOMPARE(fits.exitCode, 0);
    QVERIFY(!fits.err.contains("WARNING"));
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
    // One run against the paper's mean of 4 seeds: within 2 SE, SE = std x sqrt(1 + 1/4).
    QCOMPARE(kl["within_spread"].get<bool>(),
             std::abs(kl["value"].get<double>() - 0.238) <= 2 * 0.032 * std::sqrt(1.25));
    QVERIFY(r.err.contains("paper (paper-linear): test/kl "));
    QVERIFY(!j.contains("not_compared"));
  }

  // A shortened paper run says it is not compared, and why, on stderr and in the JSON: it was
  // said only by `runs show`, and its silence read as "no paper for this".
  void aShortenedPaperRunSaysItIsNotCompared() {
    auto r =
        runCli({"run", "fourier-head", "--preset", "paper-fourier", "--set", "epochs=1", "--set",
                "samples=300", "--device", "cpu", "--json", "--db", m_home.path() + "/short.db"});
    QCOMPARE(r.exitCode, 0);
    const std::string why =
        "not compared with the paper (paper-fourier): samples 300 (the paper's 5000), epochs 1 "
        "(the paper's 500)";
    QVERIFY2(r.err.contains(QString::fromStdString("  " + why + "\n")), qPrintable(r.err));
    auto j = lastJsonLine(r.out);
    QCOMPARE(j.value("not_compared", std::string()), why);
    QVERIFY(!j.contains("paper"));
    // `runs list` says it beside the status, as History greys it (it read a plain "finished"),
    // and its JSON and `runs show --json` carry why.
    const QString db = m_home.path() + "/short.db";
    const auto list = runCli({"runs", "list", "--db", db});
    QVERIFY2(list.out.contains(" finished:not compared "), qPrintable(list.out));
    const auto listed =
        nlohmann::json::parse(runCli({"runs", "list", "--json", "--db", db}).out.toStdString());
    QCOMPARE(listed.at(0).value("not_compared", std::string()), why);
    const auto shown = nlohmann::json::parse(
        runCli({"runs", "show", "1", "--json", "--db", db}).out.toStdString());
    QCOMPARE(shown.value("not_compared", std::string()), why);
    // And its export, as the window's History writes it too.
    const QString out = m_home.path() + "/short-export.json";
    QCOMPARE(runCli({"runs", "export", "1", "--out", out, "--db", db}).exitCode, 0);
    QFile exported(out);
    QVERIFY(exported.open(QIODevice::ReadOnly));
    const auto all = nlohmann::json::parse(exported.readAll().toStdString());
    QCOMPARE(all.at("runs").at(0).value("not_compared", std::string()), why);
  }

  void transformerExperimentsAreListed() {
    auto j = nlohmann::json::parse(runCli({"list", "--json"}).out.toStdString());
    QStringList names;
    for (const auto& e : j) names << QString::fromStdString(e["name"].get<std::string>());
    QCOMPARE(names, (QStringList{"fourier-head", "fope", "fourier-qk", "addition"}));
  }

  // A bad corpus used to be found by the run (exit 1, a failed run stored); it is refused before
  // a run exists: exit 2 naming the path, no store created.
  void aBadCorpusIsRefusedBeforeARunExists_data() {
    QTest::addColumn<QString>("experiment");
    QTest::addColumn<QByteArray>("content");  // "-" for no file at all
    QTest::addColumn<QString>("message");
    QTest::newRow("missing") << "fope" << QByteArray("-") << "no such file";
    QTest::newRow("binary") << "fourier-qk" << QByteArray("text\0more", 9)
                            << "is binary, not text (a NUL byte at offset 4)";
    QTest::newRow("empty") << "fope" << QByteArray() << "is empty";
    QTest::newRow("not UTF-8") << "fope" << QByteArray("caf\xe9 au lait")
                               << "is not UTF-8 text (invalid byte at offset 3)";
    QTest::newRow("too short") << "fourier-qk" << QByteArray("only a few words")
                               << "only 16 characters";
    QTest::newRow("one character")
        << "fope" << QByteArray("x") << "only 1 character; a language model needs at least 100";
    QTest::newRow("UTF-16")
        << "fope" << QByteArray("\xff\xfet\0e\0x\0t\0", 10)
        << "is UTF-16 text (its byte-order mark says so); FourierLab reads UTF-8: "
           "convert it with iconv -f UTF-16 -t UTF-8 '";
    QTest::newRow("shorter than train_len")
        << "fope" << QByteArray(5000, 'a') << "'train_len'=64 needs 65 training characters";
  }
  void aBadCorpusIsRefusedBeforeARunExists() {
    QFETCH(QString, experiment);
    QFETCH(QByteArray, content);
    QFETCH(QString, message);
    QTemporaryDir dir;
    const QString corpus = dir.filePath("corpus.txt");
    if (content != "-") {
      QFile file(corpus);
      QVERIFY(file.open(QIODevice::WriteOnly));
      file.write(content);
    }
    QStringList args{"run",   experiment,         "--preset", "tiny",
                     "--set", "corpus=" + corpus, "--db",     dir.filePath("runs.db")};
    if (QTest::currentDataTag() == QString("shorter than train_len"))
      args << "--set"
           << "train_len=4800";  // 4500 training characters, fewer than 4801
    auto r = runCli(args);
    QCOMPARE(r.exitCode, 2);
    if (QTest::currentDataTag() == QString("shorter than train_len"))
      message = "'train_len'=4800 needs 4801 training characters; corpus '" + corpus + "' has 4500";
    else
      QVERIFY2(r.err.contains("corpus '" + corpus + "'"), qPrintable(r.err));
    QVERIFY2(r.err.contains(message), qPrintable(r.err));
    QVERIFY2(!QFileInfo::exists(dir.filePath("runs.db")), "a run was stored");
  }

  // Settings that pass each key's range but clash used to be found by the run (exit 1, a
  // failed run stored); each is refused before a run exists, naming the keys and the values.
  void clashingSettingsAreRefusedBeforeARunExists_data() {
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QString>("message");
    QTest::newRow("fope: train_len 4 clips every frequency")
        << QStringList{"fope", "--set", "train_len=4", "--set", "passkey_mix=0"}
        << "'train_len'=4 clips every frequency";
    QTest::newRow("fope: passkey longer than train_len")
        << QStringList{"fope", "--set", "train_len=4"} << "'train_len' is 4";
    QTest::newRow("fope: head size 1 cannot rotate")
        << QStringList{"fope", "--set", "heads=128"}
        << "'heads'=128 gives a head size of 1 ('d_model'=128): 'position'=fope rotates pairs";
    QTest::newRow("fope: 32-digit passkeys") << QStringList{"fope", "--set", "passkey_digits=32"}
                                             << "('passkey_digits'=32) need train_len >= ";
    QTest::newRow("fope: train_len 65536")
        << QStringList{"fope", "--set", "train_len=65536"}
        << "evaluating windows of 524288 tokens (train_len=65536 x eval_factors=1,2,4,8) needs "
           "524289 "
           "validation characters; the built-in text ('synthetic_chars'=400000) has 40000";
    QTest::newRow("fourier-qk: heads do not divide d_model")
        << QStringList{"fourier-qk", "--set", "heads=3"}
        << "'heads'=3 does not divide 'd_model'=128";
    QTest::newRow("addition: more periods than dimensions")
        << QStringList{"addition", "--set",  "embedding_init=fourier", "--set", "d_model=8",
                       "--set",    "heads=2"}
        << "'fourier_periods'=2,2.5,5,10,100 needs 10 embedding dimensions (a cos and a sin per "
           "period), 'd_model' is 8";
    QTest::newRow("addition: an infinite period")
        << QStringList{"addition", "--set", "fourier_periods=2,inf"} << "'inf' is not a number";
    QTest::newRow("addition: a period of 1e9")
        << QStringList{"addition", "--set", "fourier_periods=1e9"}
        << "'1e9' is not a period in [2, 1e6]";
  }
  void clashingSettingsAreRefusedBeforeARunExists() {
    QFETCH(QStringList, args);
    QFETCH(QString, message);
    QTemporaryDir dir;
    auto r = runCli(QStringList{"run"} + args + QStringList{"--db", dir.filePath("runs.db")});
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains(message), qPrintable(r.err));
    QVERIFY2(!QFileInfo::exists(dir.filePath("runs.db")), "a run was stored");
  }

  // Lenient values, a key set twice and an empty preset used to be accepted.
  void strictValuesExitTwoQuotingWhatWasTyped_data() {
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QString>("message");
    QTest::newRow("hex") << QStringList{"--set", "epochs=0x10"} << "got '0x10'";
    QTest::newRow("inf") << QStringList{"--set", "gamma=inf"}
                         << "'gamma' must be a number in [0, 1], got 'inf'";
    QTest::newRow("overflow") << QStringList{"--set", "epochs=99999999999999999999"}
                              << "got '99999999999999999999'";
    QTest::newRow("nan") << QStringList{"--set", "lr=nan"} << "got 'nan'";
    QTest::newRow("twice") << QStringList{"--set", "seed=1", "--set", "seed=2"}
                           << "'seed' is set twice ('seed=1', then 'seed=2')";
    QTest::newRow("device twice") << QStringList{"--set", "device=cpu", "--device", "cpu"}
                                  << "'device' is set twice";
    QTest::newRow("empty preset") << QStringList{"--preset", ""}
                                  << "--preset needs a name (known: ";
    QTest::newRow("exponent integer") << QStringList{"--set", "epochs=1e3"} << "got '1e3'";
    QTest::newRow("yes for a boolean")
        << QStringList{"fope", "--preset", "tiny", "--set", "tied_head=yes"}
        << "'tied_head' must be true or false, got 'yes'";
  }
  void strictValuesExitTwoQuotingWhatWasTyped() {
    QFETCH(QStringList, args);
    QFETCH(QString, message);
    QTemporaryDir dir;
    if (args.value(0) != "fope") args.prepend("fourier-head");
    auto r = runCli(QStringList{"run"} + args + QStringList{"--db", dir.filePath("runs.db")});
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains(message), qPrintable(r.err));
    QVERIFY2(!QFileInfo::exists(dir.filePath("runs.db")), "a run was stored");
  }

  // Empty, blank and comma-holding tags used to be accepted.
  void badTagsExitTwo_data() {
    QTest::addColumn<QString>("tag");
    QTest::addColumn<QString>("message");
    QTest::newRow("empty") << ""
                           << "a tag cannot be empty or blank";
    QTest::newRow("blank") << "   "
                           << "a tag cannot be empty or blank";
    QTest::newRow("comma") << "a,b"
                           << "tag 'a,b' holds a comma";
    QTest::newRow("padded") << " a"
                            << "starts or ends with a space";
  }
  void badTagsExitTwo() {
    QFETCH(QString, tag);
    QFETCH(QString, message);
    QTemporaryDir dir;
    auto r = runCli({"run", "fourier-head", "--db", dir.filePath("runs.db"), "--tag", tag});
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains(message), qPrintable(r.err));
    QVERIFY2(!QFileInfo::exists(dir.filePath("runs.db")), "a run was stored");
  }

  void aLeakingFilterIsLabelledInTheSummary() {
    const QStringList tiny{
        "--set",    "d_model=32",    "--set", "heads=2",         "--set", "layers=1",
        "--set",    "train_len=32",  "--set", "batch_size=4",    "--set", "steps=20",
        "--set",    "eval_every=20", "--set", "eval_tokens=256", "--set", "synthetic_chars=20000",
        "--device", "cpu",           "--json"};
    auto leaky = runCli(QStringList{"run", "fourier-qk", "--set", "variant=fourier"} + tiny);
    QCOMPARE(leaky.exitCode, 0);
    // A language model counts steps in one pass over its stream: its progress says "step
    // 20/20", not "epoch 0/1" as well.
    QVERIFY2(leaky.err.contains("eval step 20/20 loss "), qPrintable(leaky.err));
    QVERIFY2(!leaky.err.contains("epoch"), qPrintable(leaky.err));
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
    QTest::newRow("out of range") << QStringList{"--set", "lr=-1"}
                                  << "'lr' must be a number in (0, 1], got '-1'";
    QTest::newRow("unknown key") << QStringList{"--set", "learning_rate=1"}
                                 << "unknown parameter 'learning_rate'";
    QTest::newRow("bad choice") << QStringList{"--set", "head=cnn"}
                                << "'head' must be one of linear, fourier, gmm";
    QTest::newRow("bad preset") << QStringList{"--preset", "paper"} << "unknown preset 'paper'";
    QTest::newRow("bad device") << QStringList{"--device", "gpu0"}
                                << "device must be auto, cpu, cuda or cuda:N";
    QTest::newRow("run id past int64") << QStringList{"--resume", "99999999999999999999"}
                                       << "'99999999999999999999' is past the largest id";
    QTest::newRow("run id not a number") << QStringList{"--resume", "12x"} << "'12x' is not an id";
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
    // A mistyped command word is named, with the command's words ("A subcommand is required"
    // named neither), at any depth and past the options before it.
    auto typo = runCli({"runs", "--db", m_home.filePath("x.db"), "lst"});
    QCOMPARE(typo.exitCode, 2);
    QVERIFY2(typo.err.contains("error: 'lst' is not a command of `fourierlab-cli runs` (did you "
                               "mean list?); it has: list, show, "),
             qPrintable(typo.err));
    auto sweep = runCli({"sweep", "tabel", "1"});
    QCOMPARE(sweep.exitCode, 2);
    QVERIFY2(sweep.err.contains("'tabel' is not a command of `fourierlab-cli sweep` (did you mean "
                                "table?)"),
             qPrintable(sweep.err));
    auto far = runCli({"frobnicate"});
    QVERIFY2(far.err.contains("'frobnicate' is not a command of `fourierlab-cli`; it has: list, "),
             qPrintable(far.err));
    QVERIFY(!QFileInfo::exists(m_home.filePath("x.db")));
  }

  // A device the machine lacks is a usage error naming the devices it has, for the run and for
  // a study, before anything is stored.
  // The window's picker, on the command line: auto and cpu always; each CUDA device by name, or,
  // where there is none, one unavailable "cuda" that says why. Holds with and without a GPU.
  void devicesListsWhereThisMachineCanTrain() {
    auto r = runCli({"devices", "--json"});
    QCOMPARE(r.exitCode, 0);
    const auto all = nlohmann::json::parse(r.out.toStdString());
    QVERIFY(all.size() >= 3);
    QCOMPARE(all[0]["value"].get<std::string>(), std::string("auto"));
    QCOMPARE(all[1]["value"].get<std::string>(), std::string("cpu"));
    QVERIFY(all[1]["available"].get<bool>());
    const auto& last = all.back();
    if (last["value"] == "cuda") {
      QVERIFY(!last["available"].get<bool>());
      QVERIFY(!last["reason"].get<std::string>().empty());
      QCOMPARE(all[0]["label"].get<std::string>(), std::string("auto (cpu)"));
    } else {
      for (size_t i = 2; i < all.size(); ++i) {
        QCOMPARE(all[i]["value"].get<std::string>(), "cuda:" + std::to_string(i - 2));
        QVERIFY(all[i]["available"].get<bool>());
      }
    }
    auto text = runCli({"devices"});
    QCOMPARE(text.exitCode, 0);
    QVERIFY2(text.out.startsWith("auto "), qPrintable(text.out));
    QVERIFY2(text.out.contains("\ncpu "), qPrintable(text.out));
  }

  void aMissingCudaDeviceExitsTwoNamingTheDevicesThereAre_data() {
    QTest::addColumn<QStringList>("args");
    QTest::newRow("run cuda") << QStringList{"run", "fourier-head", "--device", "cuda"};
    QTest::newRow("run cuda:3") << QStringList{"run", "fourier-head", "--device", "cuda:3"};
    QTest::newRow("sweep cuda:3") << QStringList{"sweep", "run",      "fourier-head", "--seeds",
                                                 "1,2",   "--device", "cuda:3",       "--dry-run"};
  }
  void aMissingCudaDeviceExitsTwoNamingTheDevicesThereAre() {
    QFETCH(QStringList, args);
    QTemporaryDir dir;
    const QString db = dir.filePath("lab.db");
    auto r = runCli(args + QStringList{"--set", "epochs=1", "--db", db});
    if (r.exitCode == 0) QSKIP("this machine has such a CUDA device");
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains("this machine has: cpu"), qPrintable(r.err));
    QVERIFY2(!QFile::exists(db), "nothing is stored for a refused device");
  }

  // SIGTERM (kill, timeout, Slurm's preemption) and SIGHUP (a closed terminal) used to kill
  // the run like kill -9: left `running`, no checkpoint. They cancel as Ctrl-C does.
  void signalsCancelCleanlyWithTheirExitCodes_data() {
    QTest::addColumn<int>("signal");
    QTest::addColumn<int>("exitCode");
    QTest::addColumn<QString>("name");
    QTest::newRow("SIGINT") << int(SIGINT) << 130 << "SIGINT";
    QTest::newRow("SIGTERM") << int(SIGTERM) << 143 << "SIGTERM";
    QTest::newRow("SIGHUP") << int(SIGHUP) << 129 << "SIGHUP";
  }
  void signalsCancelCleanlyWithTheirExitCodes() {
    QFETCH(int, signal);
    QFETCH(int, exitCode);
    QFETCH(QString, name);
    QTemporaryDir dir;
    const QString db = dir.filePath("runs.db");
    QProcess p;
    QByteArray err = signalOnceTraining(
        p,
        {"run", "fourier-head", "--set", "epochs=100000", "--device", "cpu", "--json", "--db", db},
        signal);
    QVERIFY2(err.contains("eval step"), err.constData());
    QVERIFY(p.waitForFinished(30000));
    QCOMPARE(p.exitStatus(), QProcess::NormalExit);
    QCOMPARE(p.exitCode(), exitCode);
    err += p.readAllStandardError();
    QVERIFY2(QString::fromUtf8(err).contains(name + ": cancelling after the current step"),
             err.constData());
    QVERIFY(err.contains("run cancelled"));
    auto j = lastJsonLine(QString::fromUtf8(p.readAllStandardOutput()));
    QCOMPARE(j["status"].get<std::string>(), std::string("cancelled"));
    QVERIFY2(j["message"].get<std::string>().find("checkpoint saved") != std::string::npos,
             j["message"].get<std::string>().c_str());
    // Stored as cancelled with a checkpoint where it stopped: it resumes from there.
    fl::store::RunStore store(db.toStdString(), /*readOnly=*/true);
    QCOMPARE(fl::toString(store.run(1)->status), std::string("cancelled"));
    const auto checkpoints = store.checkpoints(1);
    QVERIFY(!checkpoints.empty());
    QVERIFY(QFileInfo::exists(QString::fromStdString(checkpoints.back().path)));
    QVERIFY(checkpoints.back().step >= store.run(1)->lastStep);  // where it stopped, not earlier
  }

  // A store that stops taking a run's writes (here another process holds its lock; a full disk
  // is the same to the writer) is said at once, not only at the run's end when the points
  // waiting in memory are lost; and once it takes them again, so is that: every point arrives.
  void aStoreRefusingWritesIsSaidWhileTheRunTrains() {
    QTemporaryDir dir;
    const QString db = dir.filePath("runs.db");
    QProcess p;
    p.start(cliPath(), {"run", "fourier-head", "--set", "epochs=100000", "--set", "samples=300",
                        "--device", "cpu", "--db", db});
    QVERIFY(p.waitForStarted());
    QByteArray err;
    auto readUntil = [&](const char* text) {
      QElapsedTimer timer;
      timer.start();
      while (!err.contains(text) && timer.elapsed() < 60000) {
        p.waitForReadyRead(100);
        err += p.readAllStandardError();
      }
      return err.contains(text);
    };
    QVERIFY2(readUntil("eval step"), err.constData());
    sqlite3* holder = nullptr;
    QCOMPARE(sqlite3_open(db.toUtf8().constData(), &holder), SQLITE_OK);
    sqlite3_busy_timeout(holder, 10000);
    QCOMPARE(sqlite3_exec(holder, "BEGIN IMMEDIATE", nullptr, nullptr, nullptr), SQLITE_OK);
    const bool said = readUntil("store: not taking the writes of run 1 (");
    sqlite3_exec(holder, "COMMIT", nullptr, nullptr, nullptr);
    sqlite3_close(holder);
    QVERIFY2(said, err.constData());
    QVERIFY2(err.contains("another process holds the write lock"), err.constData());
    QVERIFY2(readUntil("store: taking the writes of run 1 again: nothing of it was lost"),
             err.constData());
    ::kill(static_cast<pid_t>(p.processId()), SIGINT);
    QVERIFY(p.waitForFinished(30000));
    err += p.readAllStandardError();
    QVERIFY2(p.exitCode() == 130, err.constData());
    // Nothing lost: the training loss is at every multiple of its interval up to the cancel
    // (whose step may fall between two), the stretch the lock held included.
    std::vector<int64_t> steps;
    for (const auto& point : fl::store::RunStore(db.toStdString(), true).metric(1, "train/loss"))
      steps.push_back(point.step);
    QVERIFY(steps.size() > 3);
    const int64_t interval = steps[0];
    for (size_t i = 0; i + 1 < steps.size(); ++i)
      QVERIFY2(steps[i] == int64_t(i + 1) * interval,
               qPrintable(QString("point %1 is at step %2").arg(i).arg(steps[i])));
  }

  // A checkpoint changed on disk (a bad sector, a copy cut and patched) used to resume: LibTorch
  // reads the zip without its CRCs, so the run went on from flipped weights. It is refused,
  // naming the file.
  void aDamagedCheckpointIsNotResumedFrom() {
    QTemporaryDir dir;
    const QString db = dir.filePath("runs.db");
    QProcess p;
    const QByteArray err =
        signalOnceTraining(p,
                           {"run", "fourier-head", "--set", "epochs=100000", "--set", "samples=300",
                            "--device", "cpu", "--db", db},
                           SIGINT);
    QVERIFY2(err.contains("eval step"), err.constData());
    QVERIFY(p.waitForFinished(30000));
    QCOMPARE(p.exitCode(), 130);
    // Every checkpoint the run has (a busy machine writes more than one before the signal): an
    // older whole one is resumed from instead (tests/test_resume_plan.cpp).
    std::string checkpoint;
    std::vector<std::string> checkpoints;
    {
      fl::store::RunStore store(db.toStdString(), /*readOnly=*/true);
      QVERIFY(!store.checkpoints(1).empty());
      for (const auto& c : store.checkpoints(1)) checkpoints.push_back(c.path);
      checkpoint = checkpoints.back();
    }
    for (const auto& path : checkpoints) {
      QFile file(QString::fromStdString(path));
      QVERIFY(file.open(QIODevice::ReadWrite));
      QByteArray bytes = file.readAll();
      bytes[bytes.size() / 2] = static_cast<char>(bytes[bytes.size() / 2] ^ 0x10);  // one bit
      QVERIFY(file.seek(0));
      QCOMPARE(file.write(bytes), bytes.size());
    }

    // Found before anything changes: the file error (exit 3), and the run is left as it was,
    // cancelled and resumable once a whole file is back (it used to fail at the load, marked
    // failed, its later metrics dropped).
    auto r = runCli({"run", "--resume", "1", "--db", db, "--json"});
    QCOMPARE(r.exitCode, 3);
    QVERIFY2(r.err.contains(QString::fromStdString("checkpoint " + checkpoint + " is damaged")),
             qPrintable(r.err));
    fl::store::RunStore store(db.toStdString(), /*readOnly=*/true);
    QCOMPARE(fl::toString(store.run(1)->status), std::string("cancelled"));
    QVERIFY(!store.metric(1, "test/kl").empty());  // what it had measured stays
  }

  // A resume onto a corpus edited since used to fail the run (exit 1, status failed) though
  // nothing of it was wrong: it is refused with exit 2, the run left as it was, and once the
  // text is back it resumes.
  void aResumeOntoAnotherTextLeavesTheRunResumable() {
    QTemporaryDir dir;
    const QString db = dir.filePath("runs.db");
    const QString corpus = dir.filePath("text.txt");
    const QByteArray text = fl::testing::sentenceCorpus();
    QVERIFY(fl::testing::writeWholeFile(corpus, text));
    QProcess p;
    const QByteArray err = signalOnceTraining(p, {"run",      "fope",
                                                  "--set",    "d_model=16",
                                                  "--set",    "heads=1",
                                                  "--set",    "layers=1",
                                                  "--set",    "train_len=16",
                                                  "--set",    "steps=100000",
                                                  "--set",    "eval_every=2",
                                                  "--set",    "eval_tokens=64",
                                                  "--set",    "passkey_mix=0",
                                                  "--set",    "checkpoint_every=1",
                                                  "--set",    "corpus=" + corpus,
                                                  "--device", "cpu",
                                                  "--db",     db},
                                              SIGINT);
    QVERIFY2(err.contains("eval step"), err.constData());
    QVERIFY(p.waitForFinished(30000));
    QCOMPARE(p.exitCode(), 130);
    std::string messageBefore;
    double endedBefore = 0;
    {
      fl::store::RunStore store(db.toStdString(), /*readOnly=*/true);
      messageBefore = store.run(1)->message;
      endedBefore = store.run(1)->finished;
    }
    QVERIFY(fl::testing::writeWholeFile(corpus, text + "edited\n"));
    const auto refused = runCli({"run", "--resume", "1", "--db", db});
    QCOMPARE(refused.exitCode, 2);
    QVERIFY2(refused.err.contains("error: run 1 not resumed: corpus '" + corpus +
                                  "' is not the text this run trained on"),
             qPrintable(refused.err));
    QVERIFY2(refused.err.contains("it stays resumable"), qPrintable(refused.err));
    // Said once: it trained nothing ("run cancelled: not resumed: ..." followed it).
    QCOMPARE(refused.err.count("not resumed"), 1);
    {
      // Left as it was: it read "interrupted: not resumed: ..." after the refusal.
      fl::store::RunStore store(db.toStdString(), /*readOnly=*/true);
      QCOMPARE(fl::toString(store.run(1)->status), std::string("cancelled"));
      QCOMPARE(store.run(1)->message, messageBefore);
      QCOMPARE(store.run(1)->finished, endedBefore);
      QVERIFY(!store.checkpoints(1).empty());
    }
    QVERIFY(fl::testing::writeWholeFile(corpus, text));
    QProcess resumed;
    const QByteArray again =
        signalOnceTraining(resumed, {"run", "--resume", "1", "--db", db}, SIGINT);
    QVERIFY2(again.contains("resuming run 1 from its checkpoint"), again.constData());
    QVERIFY(resumed.waitForFinished(30000));
    QCOMPARE(resumed.exitCode(), 130);
  }

  // Under `ulimit -v` a batch too large for the address space used to fail as a bare
  // "std::bad_alloc" (or hang in the BLAS): it fails as out of memory, saying what it tried.
  void aBatchBeyondTheAddressSpaceFailsAsOutOfMemory() {
    QTemporaryDir dir;
    const QString db = dir.filePath("runs.db");
    QProcess p;
    // LibTorch's CUDA libraries alone map about 2.7 GB at start and a run about 3.7 GB: 6 GB
    // starts it, and one batch of 65536 x 1024 tokens needs far more.
    p.setChildProcessModifier([] {
      const rlimit limit{rlim_t(6) << 30, rlim_t(6) << 30};
      setrlimit(RLIMIT_AS, &limit);
    });
    p.start(cliPath(),
            {"run",    "fope",     "--set", "d_model=8",      "--set",    "heads=1",
             "--set",  "layers=1", "--set", "train_len=1024", "--set",    "batch_size=65536",
             "--set",  "steps=1",  "--set", "warmup=0",       "--device", "cpu",
             "--json", "--db",     db});
    QVERIFY(p.waitForStarted());
    QVERIFY(p.waitForFinished(120000));
    const QString err = QString::fromUtf8(p.readAllStandardError());
    QCOMPARE(p.exitStatus(), QProcess::NormalExit);
    QVERIFY2(p.exitCode() == 1, qPrintable(err));
    QVERIFY2(err.contains("out of memory on cpu at step 1"), qPrintable(err));
    QVERIFY2(err.contains("could not allocate"), qPrintable(err));
    const auto j = lastJsonLine(QString::fromUtf8(p.readAllStandardOutput()));
    QCOMPARE(j["status"].get<std::string>(), std::string("failed"));
    fl::store::RunStore store(db.toStdString(), /*readOnly=*/true);
    QCOMPARE(fl::toString(store.run(1)->status), std::string("failed"));
    QVERIFY(store.run(1)->message.find("out of memory") != std::string::npos);
  }

  // A step that never ends (a library stuck inside it) must not keep a signalled process
  // alive: after the grace (0 here, so the step is always still running) the run is recorded
  // cancelled and resumable, and the process exits 143 without waiting for the step.
  void aSignalStopsTheProcessEvenWhenTheStepDoesNotEnd() {
    QTemporaryDir dir;
    const QString db = dir.filePath("runs.db");
    QProcess p;
    auto env = QProcessEnvironment::systemEnvironment();
    env.insert("FOURIERLAB_STOP_GRACE_MS", "0");
    p.setProcessEnvironment(env);
    p.start(cliPath(),
            {"run", "fope", "--set", "d_model=16", "--set", "heads=1", "--set", "layers=1", "--set",
             "steps=1000000", "--set", "warmup=0", "--device", "cpu", "--json", "--db", db});
    QVERIFY(p.waitForStarted());
    QByteArray err;
    QElapsedTimer timer;
    timer.start();
    while (!err.contains("running on") && timer.elapsed() < 60000) {
      p.waitForReadyRead(100);
      err += p.readAllStandardError();
    }
    QVERIFY2(err.contains("running on"), err.constData());
    ::kill(static_cast<pid_t>(p.processId()), SIGTERM);
    QVERIFY(p.waitForFinished(30000));
    err += p.readAllStandardError();
    QCOMPARE(p.exitStatus(), QProcess::NormalExit);
    QVERIFY2(p.exitCode() == 143, err.constData());
    QVERIFY2(err.contains("had not ended"), err.constData());
    const auto j = lastJsonLine(QString::fromUtf8(p.readAllStandardOutput()));
    QCOMPARE(j["status"].get<std::string>(), std::string("cancelled"));
    {
      fl::store::RunStore store(db.toStdString(), /*readOnly=*/true);
      QCOMPARE(fl::toString(store.run(1)->status), std::string("cancelled"));
    }
    // Resumable: `--resume` takes it (from its last checkpoint, or from step 0).
    QProcess resume;
    auto env2 = QProcessEnvironment::systemEnvironment();
    env2.insert("FOURIERLAB_STOP_GRACE_MS", "0");
    resume.setProcessEnvironment(env2);
    resume.start(cliPath(), {"run", "--resume", "1", "--db", db});
    QVERIFY(resume.waitForStarted());
    QByteArray resumeErr;
    timer.restart();
    while (!resumeErr.contains("running on") && timer.elapsed() < 60000) {
      resume.waitForReadyRead(100);
      resumeErr += resume.readAllStandardError();
    }
    QVERIFY2(resumeErr.contains("resuming run 1"), resumeErr.constData());
    ::kill(static_cast<pid_t>(resume.processId()), SIGTERM);
    QVERIFY(resume.waitForFinished(30000));
    QCOMPARE(resume.exitCode(), 143);
  }
};

QTEST_GUILESS_MAIN(TestCli)
#include "test_cli.moc"
