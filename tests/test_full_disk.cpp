// Tests fourierlab-cli when the run store's disk fills up while runs train: every write that
// fails fails the command (exit 3) and names the run and what was not written, no run is left
// `running`, and once there is room `sweep resume` / `run --resume` finish every run. A full
// disk is a limit on the size of any file the CLI writes (RLIMIT_FSIZE; the CLI ignores SIGXFSZ):
// the store's write-ahead log reaches it within the first runs' batches, through the same write
// calls a full disk fails.
#include <QtTest>

#include <sys/resource.h>

#include <csignal>
#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "core/store/store_browsing.h"
#include "tests/cli_process.h"
#include "tests/sqlite_probe.h"

using fl::testing::cliPath;
using fl::testing::runCli;
using fl::testing::runCliWithFileSizeLimit;

namespace fs = std::filesystem;

namespace {

// Above an empty store with its study (about 120 kB), far below what four runs write (several
// times that), above a checkpoint file (about 60 kB): the store's writes are what fail.
constexpr rlim_t kFileSizeLimit = 200 * 1000;

int64_t queryInt(const QString& db, const std::string& sql) {
  return fl::testing::queryInt(db.toStdString(), sql);
}

std::string queryText(const QString& db, const std::string& sql) {
  return fl::testing::queryText(db.toStdString(), sql);
}

const QStringList kTiny{"--set", "samples=200",  "--set",    "epochs=8",
                        "--set", "eval_every=1", "--device", "cpu"};

}  // namespace

class TestFullDisk : public QObject {
  Q_OBJECT

  QTemporaryDir m_dir;
  QString db(const QString& name) const { return m_dir.path() + "/" + name; }

  // What the store says of every run, read as the sqlite3 shell would (no process of the CLI
  // opens it, so no run is marked interrupted on the way): none `running`, each one that did
  // not finish failed, interrupted or cancelled, and every checkpoint it names is on disk.
  void verifyResumable(const QString& d, int64_t runs) {
    QCOMPARE(queryInt(d, "SELECT count(*) FROM runs"), runs);
    QCOMPARE(queryInt(d, "SELECT count(*) FROM runs WHERE status IN ('running', 'queued')"),
             int64_t(0));
    QCOMPARE(queryInt(d,
                      "SELECT count(*) FROM runs WHERE status NOT IN ('finished', 'failed', "
                      "'interrupted', 'cancelled')"),
             int64_t(0));
    const int64_t checkpoints =
        queryInt(d, "SELECT count(*) FROM artifacts WHERE kind = 'checkpoint'");
    for (int64_t i = 0; i < checkpoints; ++i) {
      const std::string path = queryText(
          d, "SELECT path FROM artifacts WHERE kind = 'checkpoint' ORDER BY id LIMIT 1 OFFSET " +
                 std::to_string(i));
      const fs::path file = fs::path(path).is_absolute()
                                ? fs::path(path)
                                : fs::path(d.toStdString()).parent_path() / path;
      QVERIFY2(fs::exists(file), file.c_str());
    }
  }

 private slots:
  // A full disk refused even reading: `runs list`, `show` and `export` exited 3 ("disk I/O
  // error"), so the runs could not be looked at, or exported, to make room. Opening for writing
  // fails there (the WAL's index cannot grow); the store is then read as it is, said once.
  void aFullDiskStillLetsTheStoreBeRead() {
    const QString d = db("read-full.db");
    QCOMPARE(runCli(QStringList{"run", "fourier-head", "--db", d} + kTiny).exitCode, 0);
    for (const QStringList& reading :
         {QStringList{"runs", "list", "--json"}, QStringList{"runs", "show", "1"},
          QStringList{"runs", "export", "1", "--format", "json"}, QStringList{"sweep", "list"}}) {
      const auto r = runCliWithFileSizeLimit(reading + QStringList{"--db", d}, 4096);
      QVERIFY2(r.exitCode == 0, qPrintable(reading.join(' ') + ": " + r.err));
      QVERIFY2(r.err.contains(d + " cannot be written (no space left for it): read as it is"),
               qPrintable(r.err));
      QVERIFY(!r.out.isEmpty());
    }
    const auto list = runCliWithFileSizeLimit({"runs", "list", "--json", "--db", d}, 4096);
    QCOMPARE(nlohmann::json::parse(list.out.toStdString()).size(), size_t(1));
    // A write says why it failed: the limit, not a bare "disk I/O error".
    const auto tag = runCliWithFileSizeLimit({"runs", "tag", "1", "kept", "--db", d}, 4096);
    QCOMPARE(tag.exitCode, 3);
    QVERIFY2(tag.err.contains("file size limit, 4096 bytes: `ulimit -f`"), qPrintable(tag.err));
  }

  // The window opens a store as the CLI's reading commands do: on a full disk it refused the
  // store ("disk I/O error") that `runs list` read. It is opened read-only, saying why.
  void aStoreOnAFullDiskOpensForBrowsingSayingWhy() {
    const QString d = db("browse-full.db");
    QCOMPARE(runCli(QStringList{"run", "fourier-head", "--db", d} + kTiny).exitCode, 0);
    std::signal(SIGXFSZ, SIG_IGN);  // a write past the limit fails instead of ending the test
    rlimit before{};
    QCOMPARE(getrlimit(RLIMIT_FSIZE, &before), 0);
    rlimit tight = before;
    tight.rlim_cur = 4096;
    QCOMPARE(setrlimit(RLIMIT_FSIZE, &tight), 0);
    std::unique_ptr<fl::store::RunStore> store;
    std::string error;
    try {
      store = fl::store::openForBrowsing(d.toStdString());
    } catch (const std::exception& e) {
      error = e.what();
    }
    QCOMPARE(setrlimit(RLIMIT_FSIZE, &before), 0);
    QVERIFY2(store, error.c_str());
    QVERIFY(store->isReadOnly());
    QCOMPARE(store->readOnlyBecause(), std::string("cannot be written (no space left for it)"));
    QCOMPARE(store->listRuns({}).size(), size_t(1));
    // With room, the same store opens to be written.
    store.reset();
    store = fl::store::openForBrowsing(d.toStdString());
    QVERIFY(!store->isReadOnly());
    QCOMPARE(store->readOnlyBecause(), std::string());
  }

  void initTestCase() { QVERIFY(m_dir.isValid()); }

  // It exited 0 saying "finished" while the store had lost the runs' last writes: a run was
  // left `running` partway, and nothing said so.
  void sweepRunFailsNamingWhatWasNotWritten() {
    const QString d = db("sweep.db");
    auto r =
        runCliWithFileSizeLimit(QStringList{"sweep", "run", "fourier-head", "--db", d, "--grid",
                                            "head=linear,fourier", "--seeds", "1,2"} +
                                    kTiny,
                                kFileSizeLimit);
    QVERIFY2(r.exitCode == 3, qPrintable(QString::number(r.exitCode) + "\n" + r.err));
    verifyResumable(d, 4);
    const int64_t unfinished = queryInt(d, "SELECT count(*) FROM runs WHERE status != 'finished'");
    QVERIFY2(unfinished > 0, qPrintable(r.err));
    // Each run that did not finish is named with what the store lacks of it.
    for (int64_t id = 1; id <= 4; ++id) {
      const std::string where = " FROM runs WHERE id = " + std::to_string(id);
      const std::string status = queryText(d, "SELECT status" + where);
      if (status == "finished") continue;
      // A failed or cancelled run's status was written after the loss: its message must not
      // say otherwise (only a finished run, recorded interrupted, lost its final status).
      if (status != "interrupted")
        QVERIFY2(
            queryText(d, "SELECT message" + where).find("its final status") == std::string::npos,
            queryText(d, "SELECT message" + where).c_str());
      // A run of the other group, cancelled with all its writes stored when the first group's
      // failed (the groups race), lost nothing to name.
      if (status == "cancelled" &&
          queryText(d, "SELECT message" + where).find("could not take") == std::string::npos)
        continue;
      const QString named = QString("run %1 (head=").arg(id);
      QVERIFY2(r.err.contains(named), qPrintable(named + " not in:\n" + r.err));
    }
    QVERIFY2(r.err.contains("not written to the store: its final status"), qPrintable(r.err));
    // Each such line says how the store holds the run, as a single run's does: the study's lines
    // had said "interrupted" of runs whose row still read running.
    int saidRecorded = 0;
    for (const QString& line : r.err.split('\n')) {
      const QRegularExpressionMatch lost =
          QRegularExpression(
              "^(?:store error: )?run (\\d+) \\(.*: not written to the store: .*; "
              "it (is recorded \\w+|still reads running in the store)")
              .match(line);
      if (!lost.hasMatch()) continue;
      const std::string status =
          queryText(d, "SELECT status FROM runs WHERE id = " + lost.captured(1).toStdString());
      const QString said = status == "running" ? QString("still reads running in the store")
                                               : QString("is recorded %1").arg(status.c_str());
      QCOMPARE(lost.captured(2), said);
      ++saidRecorded;
    }
    QVERIFY2(saidRecorded > 0, qPrintable(r.err));
    // SQLite's bare "disk I/O error" (its errno overwritten by the time it is read) says why.
    QVERIFY2(!r.err.contains(QRegularExpression("disk I/O error(?! \\(a file of it reached)")),
             qPrintable(r.err));
    // The command to type next names the store it acted on: copied as printed, it resumes there.
    QVERIFY2(r.err.contains("`fourierlab-cli sweep resume 1 --db " + d + "`"), qPrintable(r.err));
    QVERIFY2(!r.err.contains("4 of 4 finished"), qPrintable(r.err));

    // Room again: the study finishes, every run with its whole curve.
    auto resumed = runCli({"sweep", "resume", "1", "--db", d}, 300000);
    QVERIFY2(resumed.exitCode == 0, qPrintable(resumed.err));
    QCOMPARE(queryInt(d,
                      "SELECT count(*) FROM runs WHERE status = 'finished' AND last_step = "
                      "total_steps AND total_steps > 0"),
             int64_t(4));
  }

  // The same for one run: exit 3 naming the run and what was lost, then --resume finishes it.
  void singleRunFailsNamingWhatWasNotWritten() {
    const QString d = db("run.db");
    auto r = runCliWithFileSizeLimit(QStringList{"run", "fourier-head", "--db", d} + kTiny,
                                     kFileSizeLimit);
    QVERIFY2(r.exitCode == 3, qPrintable(QString::number(r.exitCode) + "\n" + r.err));
    QVERIFY2(r.err.contains("run 1: not written to the store: its final status (finished)"),
             qPrintable(r.err));
    QVERIFY2(r.err.contains("`fourierlab-cli run --resume 1 --db " + d + "`"), qPrintable(r.err));
    verifyResumable(d, 1);
    // The line says the status the store holds ("recorded interrupted" was printed while the
    // row still read running, when that write had failed too).
    const std::string status = queryText(d, "SELECT status FROM runs WHERE id = 1");
    QVERIFY(status != "finished");
    const QString said = status == "running" ? QString("run 1 still reads running in the store")
                                             : QString("run 1 is recorded %1").arg(status.c_str());
    QVERIFY2(r.err.contains(said), qPrintable(said + " not in:\n" + r.err));
    // Where the store took the status, it took the newest checkpoint of the lost batch too
    // (that file was deleted, and the resume went back to the last checkpoint the store held,
    // most of a long run earlier), with the progress up to it; but none past the first step
    // whose metrics were lost, which the resume must train again.
    int64_t keptStep = 0;
    if (status != "running") {
      keptStep = queryInt(d,
                          "SELECT coalesce(max(step), 0) FROM artifacts WHERE kind = "
                          "'checkpoint'");
      if (keptStep > 0) {
        QCOMPARE(queryInt(d, "SELECT last_step FROM runs WHERE id = 1"), keptStep);
        const std::string kept = "kept: the checkpoint at step " + std::to_string(keptStep);
        QVERIFY(queryText(d, "SELECT message FROM runs WHERE id = 1").find(kept) !=
                std::string::npos);
      }
    }
    verifyResumable(d, 1);
    // A length the lost writes held is not shown as 0 ("steps 500/0").
    const auto shown = runCli({"runs", "show", "1", "--db", d});
    QCOMPARE(shown.exitCode, 0);
    if (queryInt(d, "SELECT total_steps FROM runs WHERE id = 1") == 0 &&
        queryInt(d, "SELECT last_step FROM runs WHERE id = 1") > 0)
      QVERIFY2(shown.out.contains(" (length not stored)\n"), qPrintable(shown.out));
    QVERIFY2(!shown.out.contains(QRegularExpression("steps \\d+/0\\b")), qPrintable(shown.out));

    auto resumed = runCli({"run", "--resume", "1", "--db", d}, 300000);
    QVERIFY2(resumed.exitCode == 0, qPrintable(resumed.err));
    if (keptStep > 0)
      QVERIFY2(resumed.err.contains(
                   QString("resuming run 1 from its checkpoint at step %1").arg(keptStep)),
               qPrintable(resumed.err));
    QCOMPARE(queryText(d, "SELECT status FROM runs WHERE id = 1"), std::string("finished"));
    QVERIFY(queryInt(d, "SELECT last_step FROM runs WHERE id = 1") > 0);
    QCOMPARE(queryInt(d, "SELECT last_step FROM runs WHERE id = 1"),
             queryInt(d, "SELECT total_steps FROM runs WHERE id = 1"));
    // Its final evaluation is stored: resumed at its last step with that evaluation lost, the
    // run was finished with the metrics of an earlier one.
    QCOMPARE(queryInt(d,
                      "SELECT max(m.step) FROM metrics m JOIN series s ON s.id = m.series_id "
                      "WHERE s.run_id = 1 AND s.key = 'test/kl'"),
             queryInt(d, "SELECT total_steps FROM runs WHERE id = 1"));
    QCOMPARE(queryInt(d, "SELECT last_step FROM series WHERE run_id = 1 AND key = 'test/kl'"),
             queryInt(d, "SELECT total_steps FROM runs WHERE id = 1"));
    // Its curves are the uninterrupted run's, point for point: resumed from the final
    // checkpoint of a batch lost from step 1, it trained none of the lost steps again and ended
    // finished with one point of each curve, said nowhere.
    const QString whole = db("run-whole.db");
    QCOMPARE(runCli(QStringList{"run", "fourier-head", "--db", whole} + kTiny).exitCode, 0);
    for (const std::string key : {"train/loss", "test/kl"}) {
      const std::string curve =
          "SELECT group_concat(step || ':' || printf('%.17g', value), ' ') FROM (SELECT m.step, "
          "m.value FROM metrics m JOIN series s ON s.id = m.series_id WHERE s.run_id = 1 AND "
          "s.key = '" +
          key + "' ORDER BY m.step)";
      QCOMPARE(QString::fromStdString(queryText(d, curve)),
               QString::fromStdString(queryText(whole, curve)));
    }
  }
};

QTEST_GUILESS_MAIN(TestFullDisk)
#include "test_full_disk.moc"
