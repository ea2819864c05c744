// Tests batched studies end to end through `fourierlab-cli sweep`: a study trained in
// groups stores every run as an unbatched study does (the same runs, metric names, steps,
// snapshots and verdicts, values within float tolerance); `--batch off` trains one run per
// worker as before; a SIGTERMed group leaves a checkpoint per run and `sweep resume` ends with
// the metrics of an uninterrupted group; bad --batch values exit 2 with the reason.
#include <QtTest>

#include <cmath>
#include <csignal>
#include <filesystem>
#include <map>

#include <sqlite3.h>
#include <nlohmann/json.hpp>

#include "tests/cli_process.h"
#include "tests/sqlite_probe.h"

using fl::testing::cliPath;
using fl::testing::runCli;

namespace {

int64_t queryInt(const QString& db, const std::string& sql) {
  return fl::testing::queryInt(db.toStdString(), sql);
}

// Rows of a query as text, one string per row (columns joined by '|').
std::vector<std::string> queryRows(const QString& db, const std::string& sql) {
  std::vector<std::string> rows;
  sqlite3* handle = nullptr;
  sqlite3_open_v2(db.toStdString().c_str(), &handle, SQLITE_OPEN_READONLY, nullptr);
  sqlite3_stmt* s = nullptr;
  sqlite3_prepare_v2(handle, sql.c_str(), -1, &s, nullptr);
  while (s && sqlite3_step(s) == SQLITE_ROW) {
    std::string row;
    for (int c = 0; c < sqlite3_column_count(s); ++c) {
      const auto* text = sqlite3_column_text(s, c);
      row += (c ? "|" : "") + std::string(text ? reinterpret_cast<const char*>(text) : "NULL");
    }
    rows.push_back(row);
  }
  sqlite3_finalize(s);
  sqlite3_close(handle);
  return rows;
}

// Each run's final value of `key`, by the run's cell label (its axes and seed).
std::map<std::string, double> finalValues(const QString& db, const std::string& key) {
  std::map<std::string, double> out;
  for (const auto& row : queryRows(db,
                                   "SELECT r.config, s.last FROM runs r JOIN series s ON "
                                   "s.run_id = r.id WHERE s.key = '" +
                                       key + "'")) {
    const auto bar = row.rfind('|');
    out[row.substr(0, bar)] = std::stod(row.substr(bar + 1));
  }
  return out;
}

// Runs SQL on the store as a user with the sqlite3 shell would (to fail runs for a resume).
void execute(const QString& db, const std::string& sql) {
  sqlite3* handle = nullptr;
  QCOMPARE(sqlite3_open(db.toStdString().c_str(), &handle), SQLITE_OK);
  char* error = nullptr;
  const int rc = sqlite3_exec(handle, sql.c_str(), nullptr, nullptr, &error);
  const std::string message = error ? error : "";
  sqlite3_free(error);
  sqlite3_close(handle);
  QVERIFY2(rc == SQLITE_OK, message.c_str());
}

QStringList study(const QString& db, int epochs, const QString& batch, int samples = 200,
                  int evalEvery = 2) {
  return {"sweep",
          "run",
          "fourier-head",
          "--db",
          db,
          "--grid",
          "gamma=0,1e-6",
          "--grid",
          "dataset=gmm2,beta",
          "--seeds",
          "1,2",
          "--set",
          "samples=" + QString::number(samples),
          "--set",
          "epochs=" + QString::number(epochs),
          "--set",
          "eval_every=" + QString::number(evalEvery),
          "--device",
          "cpu",
          "--batch",
          batch};
}

void compareFinals(const QString& a, const QString& b, double tolerance) {
  for (const std::string key : {"test/kl", "test/mse_expected", "test/smoothness"}) {
    const auto x = finalValues(a, key);
    const auto y = finalValues(b, key);
    QCOMPARE(x.size(), size_t(8));
    QCOMPARE(y.size(), x.size());
    for (const auto& [run, value] : x) {
      QVERIFY2(y.count(run), run.c_str());
      const double other = y.at(run);
      QVERIFY2(std::abs(value - other) <= tolerance * std::max(std::abs(value), 1e-6),
               (key + ": " + std::to_string(value) + " vs " + std::to_string(other)).c_str());
    }
  }
}

}  // namespace

class TestBatchedStudy : public QObject {
  Q_OBJECT

  QTemporaryDir m_dir;
  QString path(const QString& name) const { return m_dir.path() + "/" + name; }

 private slots:
  void aBatchedStudyStoresItsRunsAsAnUnbatchedOne() {
    const QString batched = path("batched.db");
    const QString alone = path("alone.db");
    auto b = runCli(study(batched, 6, "auto"));
    QVERIFY2(b.exitCode == 0, qPrintable(b.err));
    QVERIFY2(b.err.contains("in 2 groups of at most 4"), qPrintable(b.err));
    QVERIFY2(b.err.contains("in a group of 4"), qPrintable(b.err));
    auto o = runCli(study(alone, 6, "off"));
    QVERIFY2(o.exitCode == 0, qPrintable(o.err));
    QVERIFY2(!o.err.contains("group"), qPrintable(o.err));  // the old path: one run per worker

    QCOMPARE(queryInt(batched, "SELECT count(*) FROM runs WHERE status = 'finished'"), int64_t(8));
    QCOMPARE(queryInt(alone, "SELECT count(*) FROM runs WHERE status = 'finished'"), int64_t(8));
    // Each run records how it trained, and says so: batched products add in another order, so
    // a run and its lone twin can end apart where training is on an edge.
    const std::string sizes =
        "SELECT count(*) FROM runs WHERE json_extract(build, "
        "'$.batch_sizes') = json_array(";
    QCOMPARE(queryInt(batched, sizes + "4)"), int64_t(8));
    QCOMPARE(queryInt(alone, sizes + "1)"), int64_t(8));
    auto shown = runCli({"runs", "show", "1", "--db", batched});
    QVERIFY2(shown.out.contains("  trained   in a batched group of 4 runs (batched products add "
                                "in another order than a lone run's"),
             qPrintable(shown.out));
    QVERIFY2(!shown.out.contains("batch_sizes"), qPrintable(shown.out));  // not a version
    QVERIFY2(runCli({"runs", "show", "1", "--db", alone}).out.contains("  trained   alone\n"),
             "the lone run");
    // The same series (names, counts, first and last steps), snapshots and verdicts per run;
    // the process's "system/" figures are sampled on the clock, so their counts differ.
    const std::string byRun = " ORDER BY 1";
    for (const std::string sql :
         {"SELECT r.config, s.key, s.count, s.min_step, s.last_step FROM runs r JOIN series s ON "
          "s.run_id = r.id AND s.key NOT LIKE 'system/%'",
          "SELECT r.config, n.step, n.name, n.shape FROM runs r JOIN snapshots n ON n.run_id = "
          "r.id",
          "SELECT r.config, v.position, v.source, v.subject FROM runs r JOIN run_verdicts v ON "
          "v.run_id = r.id",
          "SELECT r.config, r.last_step, r.total_steps FROM runs r"}) {
      const auto x = queryRows(batched, sql + byRun + ", 2, 3");
      const auto y = queryRows(alone, sql + byRun + ", 2, 3");
      QVERIFY(!x.empty() || sql.find("run_verdicts") != std::string::npos);
      QCOMPARE(x, y);
    }
    const std::string runMetrics =
        "SELECT count(*) FROM metrics m JOIN series s ON s.id = m.series_id WHERE s.key NOT LIKE "
        "'system/%'";
    QVERIFY(queryInt(batched, runMetrics) == queryInt(alone, runMetrics));
    // Both trained with their process's figures, which the comparison leaves out.
    QVERIFY(queryInt(batched, "SELECT count(*) FROM series WHERE key = 'system/rss_mib'") == 8);
    compareFinals(batched, alone, 1e-3);
    // The study's table reads the store as before: the same rows whichever way it trained.
    auto tb = runCli({"sweep", "table", "1", "--db", batched, "--format", "csv"});
    auto to = runCli({"sweep", "table", "1", "--db", alone, "--format", "csv"});
    QCOMPARE(tb.exitCode, 0);
    QCOMPARE(tb.out.count('\n'), to.out.count('\n'));
  }

  void aSigtermedGroupResumesToTheMetricsOfAnUninterruptedOne() {
    const QString whole = path("whole.db");
    auto w = runCli(study(whole, 200, "auto", 2000, 20));
    QVERIFY2(w.exitCode == 0, qPrintable(w.err));

    const QString db = path("stopped.db");
    QProcess p;
    p.start(cliPath(), study(db, 200, "auto", 2000, 20));
    QVERIFY(p.waitForStarted());
    bool training = false;
    for (int i = 0; i < 3000 && !training; ++i) {
      QTest::qWait(20);
      // Every run past its first evaluation (step 1000 of 10000): far from its end.
      training = queryInt(db, "SELECT count(*) FROM series WHERE key = 'test/kl'") >= 8;
    }
    QVERIFY(training);
    ::kill(static_cast<pid_t>(p.processId()), SIGTERM);
    QVERIFY(p.waitForFinished(60000));
    const QString err = QString::fromUtf8(p.readAllStandardError());
    QVERIFY2(p.exitCode() == 143, qPrintable(err));
    // Every member stopped with a checkpoint at the step it reached.
    QCOMPARE(queryInt(db, "SELECT count(*) FROM runs WHERE status = 'cancelled'"), int64_t(8));
    QCOMPARE(queryInt(db, "SELECT count(DISTINCT run_id) FROM artifacts WHERE step > 0"),
             int64_t(8));

    auto resume = runCli({"sweep", "resume", "1", "--db", db});
    QVERIFY2(resume.exitCode == 0, qPrintable(resume.err));
    QVERIFY2(resume.err.contains("resumed from step"), qPrintable(resume.err));
    QVERIFY2(resume.err.contains("--batch auto, as the study first trained"),
             qPrintable(resume.err));
    QCOMPARE(queryInt(db, "SELECT count(*) FROM runs WHERE status = 'finished'"), int64_t(8));
    // Each evaluation once, none lost or repeated across the stop.
    QCOMPARE(queryInt(db, "SELECT min(count) FROM series WHERE key = 'test/kl'"), int64_t(10));
    QCOMPARE(queryInt(db, "SELECT max(count) FROM series WHERE key = 'test/kl'"), int64_t(10));
    compareFinals(db, whole, 1e-4);
  }

  // A study trains one way throughout: resumed without --batch it keeps the mode it first
  // trained with (resume used auto whatever the study's first runs had used); --batch naming
  // another overrides it with a warning, and the recorded mode stays the first.
  void aResumedStudyKeepsTheBatchModeItFirstTrainedWith() {
    const QString db = path("kept-mode.db");
    auto first = runCli(study(db, 1, "off"));
    QVERIFY2(first.exitCode == 0, qPrintable(first.err));
    QCOMPARE(queryRows(db, "SELECT batch FROM studies"), std::vector<std::string>{"off"});
    // Said where the study is read.
    auto shown = runCli({"sweep", "show", "1", "--db", db});
    QVERIFY2(shown.out.contains("  batch: --batch off, as first trained\n"), qPrintable(shown.out));
    auto json = runCli({"sweep", "show", "1", "--db", db, "--json"});
    QCOMPARE(nlohmann::json::parse(json.out.toStdString())["batch"], nlohmann::json("off"));
    const std::string failTwo =
        "UPDATE runs SET status = 'failed' WHERE id IN (SELECT run_id FROM study_cells "
        "WHERE cell IN (0, 1))";
    execute(db, failTwo);
    auto resumed = runCli({"sweep", "resume", "1", "--db", db});
    QVERIFY2(resumed.exitCode == 0, qPrintable(resumed.err));
    QVERIFY2(resumed.err.contains("--batch off, as the study first trained"),
             qPrintable(resumed.err));
    QVERIFY2(!resumed.err.contains("batched (--batch"), qPrintable(resumed.err));
    QCOMPARE(queryInt(db, "SELECT count(*) FROM runs WHERE status = 'finished'"), int64_t(8));

    // Four to train on two cores: auto makes two groups of two.
    execute(db,
            "UPDATE runs SET status = 'failed' WHERE id IN (SELECT run_id FROM study_cells "
            "WHERE cell IN (0, 1, 2, 3))");
    auto overridden = runCli({"sweep", "resume", "1", "--db", db, "--batch", "auto"});
    QVERIFY2(overridden.exitCode == 0, qPrintable(overridden.err));
    QVERIFY2(overridden.err.contains("WARNING: study 1 first trained with --batch off; these "
                                     "runs train with --batch auto as asked"),
             qPrintable(overridden.err));
    QVERIFY2(overridden.err.contains("batched (--batch auto)"), qPrintable(overridden.err));
    QCOMPARE(queryRows(db, "SELECT batch FROM studies"), std::vector<std::string>{"off"});
  }

  void badBatchValuesExitTwo_data() {
    QTest::addColumn<QString>("value");
    QTest::newRow("zero") << "0";
    QTest::newRow("negative") << "-4";
    QTest::newRow("word") << "many";
    QTest::newRow("suffix") << "8x";
    QTest::newRow("empty") << "";
  }
  void badBatchValuesExitTwo() {
    QFETCH(QString, value);
    const QString db = path("bad.db");
    auto r = runCli(study(db, 1, value));
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains("--batch"), qPrintable(r.err));
    QVERIFY2(r.err.contains("auto, off or a number") || value.isEmpty(), qPrintable(r.err));
    QVERIFY(!std::filesystem::exists(db.toStdString()));
  }
};

QTEST_MAIN(TestBatchedStudy)
#include "test_batched_study.moc"
