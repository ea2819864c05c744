// The Slurm suite: studies submitted with `fourierlab-cli sweep run --slurm` to a real
// one-node cluster (scripts/slurm/local-cluster.sh, which this suite starts in its own folder
// and stops again), followed with `sweep status`, merged with `sweep collect`:
// - a 12-run study as a 4-task array: every run lands in the store with the final metrics
//   the same configs reach trained on this machine;
// - collecting twice stores nothing twice; collected runs read and compare like local ones;
// - a task killed with scancel mid-run: `sweep resume --slurm` sends only its runs, which
//   continue from their checkpoints;
// - a task killed with SIGKILL mid-run (no last word, no shard): it shows failed, and
//   `sweep resume --slurm` trains its runs again from the start, the others kept;
// - a corrupt shard is refused naming the file, the others merged.
// Where the cluster cannot start (no slurm-wlm or munge, daemons refused), every test is
// skipped with the reason (ctest lists the suite as skipped).
#include <QtTest>

#include <cmath>

#include <QProcess>
#include <QRegularExpression>

#include <csignal>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <set>
#include <sstream>
#include <thread>

#include "core/cluster/external_command.h"
#include "core/engine/system_metrics.h"
#include "core/store/run_store.h"
#include "tests/cli_process.h"
#include "tests/sqlite_probe.h"
#include "tests/store_damage.h"

namespace fs = std::filesystem;
using fl::testing::CliResult;
using fl::testing::queryInt;
using fl::testing::runCli;

namespace {

const int kTaskWaitSeconds = 480;  // generous: the machine may be busy; a hang fails, not waits

std::string fileText(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// config hash -> final value of every metric of the finished runs (the process's "system/"
// figures left out: they follow the machine, not the config); uid -> id of all runs.
std::map<std::string, std::map<std::string, double>> finalMetrics(const std::string& db) {
  fl::store::RunStore runs(db, /*readOnly=*/true);
  std::map<std::string, std::map<std::string, double>> out;
  for (const auto& r : runs.listRuns())
    if (r.status == fl::RunStatus::Finished)
      for (const auto& m : r.metrics)
        if (!fl::isSystemMetric(m.key)) out[r.configHash][m.key] = m.last;
  return out;
}

QStringList tinyStudy(const QString& name, const QString& seeds, int epochs, int evalEvery) {
  return {"sweep",
          "run",
          "fourier-head",
          "--grid",
          "head=linear,fourier",
          "--seeds",
          seeds,
          "--set",
          "samples=200",
          "--set",
          "epochs=" + QString::number(epochs),
          "--set",
          "eval_every=" + QString::number(evalEvery),
          "--set",
          "checkpoint_every=1",
          "--set",
          "device=cpu",
          "--name",
          name};
}

// The pid of the `fourierlab-cli sweep work ROOT --task N` process, or 0 when none runs.
pid_t sweepWorkPid(const std::string& root, int task) {
  std::error_code ec;
  for (const auto& e : fs::directory_iterator("/proc", ec)) {
    const std::string name = e.path().filename();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::string cmd = fileText(e.path().string() + "/cmdline");
    std::replace(cmd.begin(), cmd.end(), '\0', ' ');
    if (cmd.find(" sweep work " + root + " --task " + std::to_string(task) + " ") !=
        std::string::npos)
      return static_cast<pid_t>(std::stol(name));
  }
  return 0;
}

QString details(const CliResult& r) {
  return "exit " + QString::number(r.exitCode) + "\n" + r.err + r.out;
}

}  // namespace

class TestSlurmCluster : public QObject {
  Q_OBJECT

  QTemporaryDir m_dir;
  bool m_started = false;

  std::string path(const std::string& name) const {
    return (m_dir.path() + "/" + QString::fromStdString(name)).toStdString();
  }
  QString clusterDir() const { return m_dir.path() + "/cluster"; }

  CliResult cluster(const QString& action) {
    QProcess p;
    auto env = QProcessEnvironment::systemEnvironment();
    env.insert("FOURIERLAB_SLURM_DIR", clusterDir());
    p.setProcessEnvironment(env);
    p.start("bash",
            {QStringLiteral(FOURIERLAB_SOURCE_DIR "/scripts/slurm/local-cluster.sh"), action});
    if (!p.waitForFinished(120000)) p.kill();
    p.waitForFinished();
    return {p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1,
            QString::fromUtf8(p.readAllStandardOutput()),
            QString::fromUtf8(p.readAllStandardError())};
  }

  // `sweep run ... --slurm`: the study id (from stderr) and the job id (stdout).
  std::pair<int64_t, QString> submit(const QStringList& study, const std::string& db,
                                     const QStringList& slurm) {
    const auto r =
        runCli(study + QStringList{"--db", QString::fromStdString(db), "--slurm"} + slurm);
    if (r.exitCode != 0) return {0, details(r)};
    const auto m =
        QRegularExpression(R"(^study (\d+) )", QRegularExpression::MultilineOption).match(r.err);
    return {m.hasMatch() ? m.captured(1).toLongLong() : 0, r.out.trimmed()};
  }

  nlohmann::json status(const std::string& db, int64_t id) {
    const auto r = runCli(
        {"sweep", "status", QString::number(id), "--db", QString::fromStdString(db), "--json"});
    if (r.exitCode != 0) return nullptr;
    return nlohmann::json::parse(r.out.toStdString(), nullptr, false);
  }

  // Polls `sweep status` until `done(job)` holds for job number `job` (bounded).
  bool waitFor(const std::string& db, int64_t id, size_t job,
               const std::function<bool(const nlohmann::json&)>& done, nlohmann::json& last) {
    for (int i = 0; i < kTaskWaitSeconds; ++i) {
      last = status(db, id);
      if (last.is_object() && last["jobs"].size() > job && done(last["jobs"][job])) return true;
      std::this_thread::sleep_for(std::chrono::seconds(1));
    }
    return false;
  }

  static bool allEnded(const nlohmann::json& job) {
    for (const auto& t : job["tasks"])
      if (t["state"] == "queued" || t["state"] == "running") return false;
    return true;
  }

  int64_t m_firstStudy = 0;

 private slots:
  void initTestCase() {
    for (const char* tool : {"sbatch", "squeue", "scancel", "munged"})
      if (!fl::cluster::onPath(tool))
        QSKIP(qPrintable(QString("Slurm suite skipped: '%1' is not installed (scripts/setup.sh "
                                 "installs slurm-wlm and munge)")
                             .arg(tool)));
    for (const char* daemon : {"/usr/sbin/slurmctld", "/usr/sbin/slurmd"})
      if (!fs::exists(daemon))
        QSKIP(qPrintable(QString("Slurm suite skipped: %1 is not installed").arg(daemon)));
    const auto r = cluster("start");
    if (r.exitCode != 0)
      QSKIP(qPrintable("Slurm suite skipped: the local cluster cannot start here:\n" +
                       r.err.trimmed()));
    m_started = true;
    qputenv("SLURM_CONF", (clusterDir() + "/etc/slurm.conf").toUtf8());
  }

  void cleanupTestCase() {
    if (!m_started) return;
    const auto r = cluster("stop");
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    QVERIFY2(cluster("status").exitCode != 0, "a daemon still runs after stop");
  }

  void aStudyOnTheClusterEndsAsOnThisMachine() {
    const std::string db = path("main.db"), local = path("local.db");
    const QStringList study = tinyStudy("cluster12", "1,2,3", 2, 1) +
                              QStringList{"--grid", "dataset=gaussian,gmm2"};  // 12 runs
    const auto [id, job] =
        submit(study, db, {"--tasks", "4", "--cpus-per-task", "1", "--time", "00:15:00"});
    QVERIFY2(id > 0, qPrintable(job));
    QVERIFY2(QRegularExpression(R"(^\d+$)").match(job).hasMatch(), qPrintable(job));
    m_firstStudy = id;

    nlohmann::json last;
    QVERIFY2(waitFor(db, id, 0, allEnded, last), last.dump(1).c_str());
    const auto& tasks = last["jobs"][0]["tasks"];
    QCOMPARE(tasks.size(), size_t(4));
    for (const auto& t : tasks) {
      QVERIFY2(t["state"] == "done", t.dump().c_str());
      QCOMPARE(t["cells"].size(), size_t(3));
      QVERIFY(t["published"].get<bool>());
      QVERIFY(!t["collected"].get<bool>());
    }
    // Tasks train as `sweep run` does here: idle OpenMP threads sleep (the CPUs are shared).
    const std::string taskLog =
        fileText(last["jobs"][0]["work_dir"].get<std::string>() + "/logs/task-0.out");
    QVERIFY2(taskLog.find("OpenMP wait policy: PASSIVE") != std::string::npos, taskLog.c_str());
    const auto collect =
        runCli({"sweep", "collect", QString::number(id), "--db", QString::fromStdString(db)});
    QVERIFY2(collect.exitCode == 0, qPrintable(details(collect)));
    QVERIFY2(collect.err.contains("collected 4 shards: 12 runs added, 0 replaced"),
             qPrintable(collect.err));
    QCOMPARE(queryInt(db, "SELECT count(*) FROM runs WHERE status = 'finished'"), int64_t(12));

    // The tasks batch as `sweep run` does (--batch auto): each got cells of one head, which
    // trained as one group.
    QVERIFY2(taskLog.find("in a group of 3") != std::string::npos, taskLog.c_str());

    // The same study trained here cell by cell: the same numbers within float tolerance (a
    // batched group sums in another order; test_batched_study holds it to 1e-3 relative too),
    // with a small absolute floor for metrics near zero.
    const auto here = runCli(
        study + QStringList{"--batch", "off", "--db", QString::fromStdString(local)}, 300000);
    QVERIFY2(here.exitCode == 0, qPrintable(details(here)));
    const auto merged = finalMetrics(db), trainedHere = finalMetrics(local);
    QCOMPARE(merged.size(), size_t(12));
    QCOMPARE(trainedHere.size(), size_t(12));
    for (const auto& [hash, metrics] : trainedHere) {
      QVERIFY2(merged.count(hash), hash.c_str());
      QVERIFY(metrics.count("test/kl"));
      for (const auto& [key, value] : metrics) {
        const double other = merged.at(hash).at(key);
        QVERIFY2(std::abs(value - other) <= 1e-6 + 1e-3 * std::abs(value),
                 qPrintable(QString("%1 %2: %3 against %4")
                                .arg(QString::fromStdString(hash), QString::fromStdString(key))
                                .arg(other)
                                .arg(value)));
      }
    }
  }

  void collectingTwiceStoresNothingTwice() {
    if (!m_firstStudy) QSKIP("needs the first study");
    const std::string db = path("main.db");
    const auto again = runCli(
        {"sweep", "collect", QString::number(m_firstStudy), "--db", QString::fromStdString(db)});
    QVERIFY2(again.exitCode == 0, qPrintable(details(again)));
    QCOMPARE(again.err.count("unchanged since its last collect"), 4);
    QCOMPARE(queryInt(db, "SELECT count(*) FROM runs"), int64_t(12));
    QCOMPARE(queryInt(db, "SELECT count(DISTINCT uid) FROM runs"), int64_t(12));
    const auto st = status(db, m_firstStudy);
    for (const auto& t : st["jobs"][0]["tasks"]) QVERIFY(t["collected"].get<bool>());
    // Collected runs are ordinary runs: the table, a run, a comparison.
    const auto table = runCli(
        {"sweep", "table", QString::number(m_firstStudy), "--db", QString::fromStdString(db)});
    QVERIFY2(table.exitCode == 0, qPrintable(details(table)));
    QVERIFY(table.out.contains("fourier"));
    const auto compare = runCli({"runs", "compare", "1", "2", "--db", QString::fromStdString(db)});
    QVERIFY2(compare.exitCode == 0, qPrintable(details(compare)));
  }

  void aScancelledTaskIsResumedAloneFromItsCheckpoints() {
    const std::string db = path("cancel.db");
    // 8 runs long enough to be stopped mid-way (about 10 s each here; 1500 epochs took 2 s,
    // less than the status polls need to see a task start), 2 per task.
    const auto [id, job] = submit(tinyStudy("cancel8", "1,2,3,4", 12000, 400), db,
                                  {"--tasks", "4", "--max-parallel", "2"});
    QVERIFY2(id > 0, qPrintable(job));
    nlohmann::json last;
    // Task 1 has started its first run.
    auto taskOneTraining = [&](const nlohmann::json& j) {
      const auto& t = j["tasks"][1];
      return t["state"] == "running" && t["report"].is_object() &&
             fileText(j["work_dir"].get<std::string>() + "/logs/task-1.out")
                     .find("start shard run") != std::string::npos;
    };
    QVERIFY2(waitFor(db, id, 0, taskOneTraining, last), last.dump(1).c_str());
    const std::string work = last["jobs"][0]["work_dir"];
    const auto taskOneCells = last["jobs"][0]["tasks"][1]["cells"].get<std::vector<int64_t>>();
    const auto cancel = fl::cluster::runCommand({"scancel", job.toStdString() + "_1"});
    QVERIFY2(cancel.ok(), cancel.describe("scancel").c_str());
    QVERIFY2(waitFor(db, id, 0, allEnded, last), last.dump(1).c_str());
    for (int t = 0; t < 4; ++t) {
      const auto& task = last["jobs"][0]["tasks"][t];
      QVERIFY2(task["state"] == (t == 1 ? "failed" : "done"), task.dump().c_str());
    }
    QCOMPARE(last["jobs"][0]["tasks"][1]["detail"], "CANCELLED");
    // It heard SIGTERM: its runs checkpointed, its shard is published, its report says so.
    QCOMPARE(last["jobs"][0]["tasks"][1]["report"]["state"], "cancelled");
    const std::string log = fileText(work + "/logs/task-1.out");
    QVERIFY2(log.find("stopped by SIGTERM") != std::string::npos, log.c_str());

    const auto collect =
        runCli({"sweep", "collect", QString::number(id), "--db", QString::fromStdString(db)});
    QVERIFY2(collect.exitCode == 0, qPrintable(details(collect)));
    const int64_t unfinished =
        queryInt(db,
                 "SELECT count(*) FROM study_cells c LEFT JOIN runs r ON r.id = c.run_id "
                 "WHERE r.status IS NULL OR r.status != 'finished'");
    QVERIFY(unfinished >= 1);
    QVERIFY(unfinished <= 2);
    QVERIFY(queryInt(db, "SELECT count(*) FROM runs WHERE status = 'cancelled'") >= 1);
    const auto before = finalMetrics(db);

    const auto resume = runCli(
        {"sweep", "resume", QString::number(id), "--slurm", "--db", QString::fromStdString(db)});
    QVERIFY2(resume.exitCode == 0, qPrintable(details(resume)));
    QVERIFY2(resume.err.contains("submitted Slurm job " + resume.out.trimmed() + ": " +
                                 QString::number(unfinished) + " runs"),
             qPrintable(resume.err));
    QVERIFY2(resume.err.contains("continue from their checkpoints"), qPrintable(resume.err));
    QVERIFY2(waitFor(db, id, 1, allEnded, last), last.dump(1).c_str());
    // Only task 1's unfinished runs were sent again.
    std::set<int64_t> resent;
    for (const auto& t : last["jobs"][1]["tasks"]) {
      QVERIFY2(t["state"] == "done", t.dump().c_str());
      for (int64_t c : t["cells"].get<std::vector<int64_t>>()) resent.insert(c);
    }
    QCOMPARE(int64_t(resent.size()), unfinished);
    for (int64_t c : resent)
      QVERIFY(std::find(taskOneCells.begin(), taskOneCells.end(), c) != taskOneCells.end());
    const std::string resumedLog =
        fileText(last["jobs"][1]["work_dir"].get<std::string>() + "/logs/task-0.out");
    QVERIFY2(resumedLog.find("resumed from step") != std::string::npos, resumedLog.c_str());

    const auto again =
        runCli({"sweep", "collect", QString::number(id), "--db", QString::fromStdString(db)});
    QVERIFY2(again.exitCode == 0, qPrintable(details(again)));
    QCOMPARE(queryInt(db, "SELECT count(*) FROM runs"), int64_t(8));
    QCOMPARE(queryInt(db, "SELECT count(*) FROM runs WHERE status = 'finished'"), int64_t(8));
    // The runs that had finished are untouched.
    const auto after = finalMetrics(db);
    for (const auto& [hash, metrics] : before) QCOMPARE(after.at(hash), metrics);
  }

  void aKilledTaskIsTrainedAgainFromTheStart() {
    const std::string db = path("kill.db");
    const QString scratch = QString::fromStdString(path("kill-scratch"));
    // 4 runs of about 10 s, 2 per task, both tasks at once.
    const auto [id, job] =
        submit(tinyStudy("kill4", "1,2", 12000, 400), db, {"--tasks", "2", "--scratch", scratch});
    QVERIFY2(id > 0, qPrintable(job));
    nlohmann::json last;
    pid_t victim = 0;
    auto taskOneTraining = [&](const nlohmann::json& j) {
      const std::string root = j["work_dir"];
      if (fileText(root + "/logs/task-1.out").find("start shard run") == std::string::npos)
        return false;
      victim = sweepWorkPid(root, 1);
      return victim > 0;
    };
    QVERIFY2(waitFor(db, id, 0, taskOneTraining, last), last.dump(1).c_str());
    const auto taskOneCells = last["jobs"][0]["tasks"][1]["cells"].get<std::vector<int64_t>>();
    QCOMPARE(::kill(victim, SIGKILL), 0);
    QVERIFY2(waitFor(db, id, 0, allEnded, last), last.dump(1).c_str());
    const auto& tasks = last["jobs"][0]["tasks"];
    QVERIFY2(tasks[0]["state"] == "done", tasks[0].dump().c_str());
    // No last word: its report still says running, it published no shard.
    QVERIFY2(tasks[1]["state"] == "failed", tasks[1].dump().c_str());
    QCOMPARE(tasks[1]["report"]["state"], "running");
    QVERIFY(!tasks[1]["published"].get<bool>());

    const auto collect =
        runCli({"sweep", "collect", QString::number(id), "--db", QString::fromStdString(db)});
    QVERIFY2(collect.exitCode == 0, qPrintable(details(collect)));
    QCOMPARE(queryInt(db, "SELECT count(*) FROM runs WHERE status = 'finished'"), int64_t(2));
    const auto before = finalMetrics(db);

    const auto resume = runCli({"sweep", "resume", QString::number(id), "--slurm", "--scratch",
                                scratch, "--db", QString::fromStdString(db)});
    QVERIFY2(resume.exitCode == 0, qPrintable(details(resume)));
    QVERIFY2(resume.err.contains("submitted Slurm job " + resume.out.trimmed() + ": 2 runs"),
             qPrintable(resume.err));
    QVERIFY2(!resume.err.contains("continue from their checkpoints"), qPrintable(resume.err));
    QVERIFY2(waitFor(db, id, 1, allEnded, last), last.dump(1).c_str());
    std::set<int64_t> resent;
    for (const auto& t : last["jobs"][1]["tasks"]) {
      QVERIFY2(t["state"] == "done", t.dump().c_str());
      for (int64_t c : t["cells"].get<std::vector<int64_t>>()) resent.insert(c);
    }
    QCOMPARE(resent, std::set<int64_t>(taskOneCells.begin(), taskOneCells.end()));
    const std::string log =
        fileText(last["jobs"][1]["work_dir"].get<std::string>() + "/logs/task-0.out");
    // "(new)", or batched "(new in a group of 2)": trained from the start, not resumed.
    QVERIFY2(log.find("(new") != std::string::npos, log.c_str());

    const auto again =
        runCli({"sweep", "collect", QString::number(id), "--db", QString::fromStdString(db)});
    QVERIFY2(again.exitCode == 0, qPrintable(details(again)));
    QCOMPARE(queryInt(db, "SELECT count(*) FROM runs"), int64_t(4));
    QCOMPARE(queryInt(db, "SELECT count(DISTINCT uid) FROM runs"), int64_t(4));
    QCOMPARE(queryInt(db, "SELECT count(*) FROM runs WHERE status = 'finished'"), int64_t(4));
    const auto after = finalMetrics(db);
    for (const auto& [hash, metrics] : before) QCOMPARE(after.at(hash), metrics);
  }

  void aCorruptShardIsRefusedAndTheRestMerged() {
    const std::string db = path("corrupt.db");
    const auto [id, job] = submit(tinyStudy("corrupt4", "1,2", 2, 1), db, {"--tasks", "2"});
    QVERIFY2(id > 0, qPrintable(job));
    nlohmann::json last;
    QVERIFY2(waitFor(db, id, 0, allEnded, last), last.dump(1).c_str());
    const std::string shard = last["jobs"][0]["work_dir"].get<std::string>() + "/shards/task-1.db";
    QVERIFY(fs::file_size(shard) >= 8 * 4096);
    fl::testing::corruptMiddlePages(shard);
    const std::string damaged = fileText(shard);
    const auto collect =
        runCli({"sweep", "collect", QString::number(id), "--db", QString::fromStdString(db)});
    QCOMPARE(collect.exitCode, 3);
    QVERIFY2(collect.err.contains("refused " + QString::fromStdString(shard) + ": "),
             qPrintable(collect.err));
    QVERIFY2(collect.err.contains("corrupt"), qPrintable(collect.err));
    QCOMPARE(queryInt(db, "SELECT count(*) FROM runs WHERE status = 'finished'"), int64_t(2));
    QCOMPARE(queryInt(db, "SELECT count(*) FROM study_cells WHERE run_id IS NULL"), int64_t(2));
    QVERIFY(fileText(shard) == damaged);  // the refused file is left as it was
  }
};

QTEST_GUILESS_MAIN(TestSlurmCluster)
#include "test_slurm_cluster.moc"
