// Tests studies sent to a cluster, without a cluster: the job folder a submission writes
// (tasks dealt round robin, the batch script, bad options refused), tasks trained in this
// process into their shards exactly as `sweep work` does, and merging the shards into the
// user's store: every run once however often it is collected, the same final metrics as the
// same configs trained locally, a shard merged whole or not at all, corrupt / truncated /
// newer / foreign shards refused naming the file with the rest merged, checkpoints copied so
// a collected run resumes here, and a resubmitted run replacing its stopped attempt.
#include <QtTest>

#include <atomic>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <thread>

#include <sqlite3.h>

#include "core/cluster/shard_merge.h"
#include "core/cluster/shard_task.h"
#include "core/cluster/slurm_job.h"
#include "core/cluster/study_jobs.h"
#include "core/engine/registry.h"
#include "core/engine/system_metrics.h"
#include "core/store/run_store.h"
#include "core/store/schema.h"
#include "core/study/study_expansion.h"
#include "core/study/study_scheduler.h"
#include "core/study/study_store.h"
#include "experiments/builtin_experiments.h"
#include "tests/sqlite_probe.h"
#include "tests/store_damage.h"

namespace fs = std::filesystem;
using fl::cluster::JobFolder;
using fl::cluster::ShardMergeResult;
using fl::cluster::StudyJob;
using fl::store::RunStore;
using fl::study::StudySpec;
using fl::study::StudyStore;
using fl::testing::queryInt;

namespace {

const fl::ExperimentRegistry& registry() {
  static fl::ExperimentRegistry r = [] {
    fl::ExperimentRegistry reg;
    fl::registerBuiltinExperiments(reg);
    return reg;
  }();
  return r;
}

// 2 heads x `seeds`: tiny fourier-head runs, bit-reproducible per seed on the CPU.
StudySpec tinyStudy(const std::string& name, std::vector<int64_t> seeds, int epochs = 2,
                    int evalEvery = 1) {
  auto spec = StudySpec::fromText(R"({"grid": {"head": ["linear", "fourier"]}})");
  spec.name = name;
  spec.experiment = "fourier-head";
  spec.seeds = std::move(seeds);
  spec.overrides = {{"samples", 200},
                    {"epochs", epochs},
                    {"eval_every", evalEvery},
                    {"device", "cpu"},
                    {"checkpoint_every", 1}};
  return spec;
}

int64_t createStudy(RunStore& runs, const StudySpec& spec) {
  const auto expansion = fl::study::expandStudy(*registry().find(spec.experiment), spec);
  if (!expansion.ok()) qFatal("%s", expansion.errors.front().c_str());
  return StudyStore(runs).create(spec, expansion);
}

fl::cluster::SlurmOptions options(int tasks, const std::string& workDir) {
  fl::cluster::SlurmOptions o;
  o.tasks = tasks;
  o.workDir = workDir;
  o.cliPath = "/usr/local/bin/fourierlab-cli";
  return o;
}

// The job folder a submission writes, recorded as if sbatch had answered `jobId`.
StudyJob writeJob(RunStore& runs, int64_t studyId, int tasks, const std::string& workDir,
                  const std::string& jobId = "4242") {
  const auto plan = fl::cluster::planSlurmJob(runs, studyId, options(tasks, workDir));
  StudyJob job = fl::cluster::writeJobFolder(runs, plan);
  job.jobId = jobId;
  job.id = fl::cluster::StudyJobs(runs).record(job);
  return job;
}

// One array task, trained here as `sweep work` trains it on a node.
fl::cluster::ShardTaskOutcome runTask(const JobFolder& folder, int task, const std::string& scratch,
                                      const std::atomic<int>* stop = nullptr,
                                      std::vector<std::string>* how = nullptr) {
  fl::cluster::ShardTaskOptions o;
  o.folder = folder;
  o.task = task;
  o.scratchRoot = scratch;
  o.scheduler.cores = 1;
  o.scheduler.stopFlag = stop;
  return fl::cluster::runShardTask(registry(), o,
                                   [&](const fl::study::StudyRunReport& r, const auto&) {
                                     if (!r.ended && how) how->push_back(r.how);
                                   });
}

void execRaw(const std::string& db, const std::string& sql) {
  sqlite3* h = nullptr;
  sqlite3_open(db.c_str(), &h);
  if (sqlite3_exec(h, sql.c_str(), nullptr, nullptr, nullptr) != SQLITE_OK)
    qFatal("%s: %s", db.c_str(), sqlite3_errmsg(h));
  sqlite3_close(h);
}

std::string fileBytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// config hash -> final value of every metric, for the finished runs of a store (the process's
// "system/" figures left out: they follow the machine, not the config).
std::map<std::string, std::map<std::string, double>> finalMetrics(const std::string& db) {
  RunStore runs(db, /*readOnly=*/true);
  std::map<std::string, std::map<std::string, double>> out;
  for (const auto& r : runs.listRuns())
    if (r.status == fl::RunStatus::Finished)
      for (const auto& m : r.metrics)
        if (!fl::isSystemMetric(m.key)) out[r.configHash][m.key] = m.last;
  return out;
}

fl::study::StudyStatus studyStatus(const std::string& db, int64_t id) {
  RunStore runs(db);
  return StudyStore(runs).study(id)->status();
}

}  // namespace

class TestShardMerge : public QObject {
  Q_OBJECT

  QTemporaryDir m_dir;
  std::string path(const std::string& name) const {
    return (m_dir.path() + "/" + QString::fromStdString(name)).toStdString();
  }

  // A store whose one-task study (2 runs) was stopped (as by scancel) while its first run
  // trained: the shard holds that run cancelled at a checkpoint and the other never started.
  struct Stopped {
    std::string db;
    int64_t studyId = 0;
    StudyJob job;
  };
  Stopped stoppedStudy(const std::string& name) {
    Stopped s;
    s.db = path(name + ".db");
    RunStore runs(s.db);
    s.studyId = createStudy(runs, tinyStudy(name, {7}, /*epochs=*/1500, /*evalEvery=*/50));
    s.job = writeJob(runs, s.studyId, 1, path(name + "-job"));
    std::atomic<int> stop{0};
    const std::string scratch = path(name + "-scratch");
    // SIGTERM once the first run has evaluated three times.
    std::thread watcher([&] {
      for (int i = 0; i < 60000 && !stop; ++i) {
        std::error_code ec;
        for (const auto& e : fs::recursive_directory_iterator(scratch, ec))
          if (e.path().filename() == "task-0.db" &&
              queryInt(e.path().string(),
                       "SELECT count(*) FROM series WHERE key = 'test/kl' AND count >= 3") >= 1)
            stop = SIGTERM;
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
      }
    });
    const auto outcome = runTask(s.job.folder(), 0, scratch, &stop);
    watcher.join();
    if (outcome.state != fl::cluster::TaskStage::Cancelled)
      qFatal("the task was not stopped: %s", fl::cluster::toString(outcome.state).c_str());
    return s;
  }

 private slots:
  // A task's stage travels as a word only in its report and in `sweep status`: each word reads
  // back as the stage that wrote it, and a word this build does not know reads as none.
  void taskStagesReadBackFromTheirWords() {
    using fl::cluster::TaskStage;
    for (TaskStage stage : {TaskStage::Queued, TaskStage::Running, TaskStage::Done,
                            TaskStage::Failed, TaskStage::Cancelled})
      QVERIFY(fl::cluster::taskStageFromString(fl::cluster::toString(stage)) == stage);
    QCOMPARE(fl::cluster::toString(TaskStage::Cancelled), std::string("cancelled"));
    QVERIFY(!fl::cluster::taskStageFromString("Done").has_value());
    QVERIFY(!fl::cluster::taskStageFromString("").has_value());
  }

  void initTestCase() {
    // No cluster here: Slurm's commands must fail at once (an empty config), not wait for a
    // controller (a real one on this machine) or retry a missing file for a minute.
    const std::string conf = path("empty-slurm.conf");
    std::ofstream(conf) << "";
    qputenv("SLURM_CONF", QByteArray::fromStdString(conf));
  }

  void batchedTasksEachGetWholeGroups() {
    RunStore runs(path("batched-plan.db"));
    // 12 runs: the linear and the Fourier head (which never share a group) x 6 seeds, in study
    // order linear, fourier, linear, ... so round robin over 2 tasks would give each one head.
    const int64_t id = createStudy(runs, tinyStudy("batched-plan", {1, 2, 3, 4, 5, 6}));
    auto headsOf = [](const std::vector<fl::study::StudyCell>& task) {
      std::set<std::string> heads;
      for (const auto& c : task) heads.insert(c.config.at("head").get<std::string>());
      return heads;
    };
    auto o = options(3, path("batched-plan-job"));
    o.registry = &registry();
    // Off: round robin, every task a mix of heads (3 tasks over the alternating order).
    auto plan = fl::cluster::planSlurmJob(runs, id, o);
    QCOMPARE(plan.job.tasks.size(), size_t(3));
    for (const auto& t : plan.job.tasks) QCOMPARE(headsOf(t).size(), size_t(2));
    QVERIFY(plan.script.find(" --batch off\n") != std::string::npos);

    // Batched: each task holds one head, so its cells can train as one group; 12 cells over 3
    // tasks (auto halves the largest group until there are 3), none empty.
    o.batch = *fl::study::parseBatchMode("auto");
    plan = fl::cluster::planSlurmJob(runs, id, o);
    QCOMPARE(plan.runs(), size_t(12));
    size_t cells = 0;
    for (const auto& t : plan.job.tasks) {
      QCOMPARE(headsOf(t).size(), size_t(1));
      QVERIFY(std::is_sorted(t.begin(), t.end(),
                             [](const auto& a, const auto& b) { return a.index < b.index; }));
      cells += t.size();
    }
    QCOMPARE(cells, size_t(12));
    QCOMPARE(plan.job.tasks.size(), size_t(3));  // one head's 6 halved: groups of 6, 3 and 3
    QVERIFY(plan.script.find(" --batch auto\n") != std::string::npos);

    // --tasks 0 batched: one task per group; at most 4 runs a group: 2 heads x 2 groups of 3.
    o.tasks = 0;
    o.batch = *fl::study::parseBatchMode("4");
    plan = fl::cluster::planSlurmJob(runs, id, o);
    QCOMPARE(plan.job.tasks.size(), size_t(4));
    for (const auto& t : plan.job.tasks) {
      QCOMPARE(t.size(), size_t(3));
      QCOMPARE(headsOf(t).size(), size_t(1));
    }
    QVERIFY(plan.script.find("#SBATCH --array=0-3\n") != std::string::npos);
    QVERIFY(plan.script.find(" --batch 4\n") != std::string::npos);
    // Unbatched, --tasks 0 is one task per run.
    o.batch = *fl::study::parseBatchMode("off");
    QCOMPARE(fl::cluster::planSlurmJob(runs, id, o).job.tasks.size(), size_t(12));
  }

  void aPlanDealsRunsRoundRobinAndItsScriptIsSlurms() {
    RunStore runs(path("plan.db"));
    const int64_t id = createStudy(runs, tinyStudy("plan", {1, 2, 3}));  // 6 runs
    auto o = options(4, path("plan job"));
    QVERIFY(fl::cluster::checkSlurmOptions(o)->find("--work-dir") != std::string::npos);
    o.workDir = path("plan-job");
    o.maxParallel = 2;
    o.cpusPerTask = 2;
    o.time = "00:10:00";
    o.mem = "2G";
    o.partition = "debug";
    const auto plan = fl::cluster::planSlurmJob(runs, id, o);
    QCOMPARE(plan.job.tasks.size(), size_t(4));
    std::vector<size_t> sizes;
    for (const auto& t : plan.job.tasks) sizes.push_back(t.size());
    QCOMPARE(sizes, (std::vector<size_t>{2, 2, 1, 1}));
    QCOMPARE(plan.job.tasks[1][1].index, int64_t(5));  // cells 1 and 5: round robin
    QCOMPARE(plan.runs(), size_t(6));
    QVERIFY(plan.continued.empty());
    for (const char* line :
         {"#SBATCH --array=0-3%2\n", "#SBATCH --cpus-per-task=2\n", "#SBATCH --time=00:10:00\n",
          "#SBATCH --mem=2G\n", "#SBATCH --partition=debug\n", "#SBATCH --signal=B:TERM@60\n",
          "exec '/usr/local/bin/fourierlab-cli' sweep work '"})
      QVERIFY2(plan.script.find(line) != std::string::npos, line);
    QVERIFY(plan.script.find("#SBATCH --output=" + plan.folder.root + "/logs/task-%a.out\n") !=
            std::string::npos);
    QVERIFY(!fs::exists(plan.folder.root));                      // planning writes nothing
    QVERIFY(plan.script.find("--device") == std::string::npos);  // each run's own device
    // A device asked for is the nodes': said to their `sweep work`, not checked here.
    auto onGpus = o;
    onGpus.device = "cuda:1";
    QVERIFY2(fl::cluster::planSlurmJob(runs, id, onGpus)
                     .script.find(" --batch off --device 'cuda:1'\n") != std::string::npos,
             fl::cluster::planSlurmJob(runs, id, onGpus).script.c_str());

    auto bad = o;
    bad.time = "1h";
    QVERIFY(fl::cluster::checkSlurmOptions(bad)->rfind("--time 1h:", 0) == 0);
    bad = o;
    bad.mem = "lots";
    QVERIFY(fl::cluster::checkSlurmOptions(bad)->rfind("--mem lots:", 0) == 0);
    bad = o;
    bad.partition = "gpu\n#SBATCH --exclusive";
    QVERIFY(fl::cluster::checkSlurmOptions(bad)->rfind("--partition", 0) == 0);
    bad = o;
    bad.tasks = 5000;
    QVERIFY(fl::cluster::checkSlurmOptions(bad)->rfind("--tasks 5000", 0) == 0);
    bool threw = false;
    try {
      fl::cluster::planSlurmJob(runs, id, bad);
    } catch (const fl::cluster::SlurmError& e) {
      threw = std::string(e.what()).rfind("--tasks 5000", 0) == 0;
    }
    QVERIFY(threw);
    // Fewer runs than tasks: one task per run.
    o.tasks = 100;
    QCOMPARE(fl::cluster::planSlurmJob(runs, id, o).job.tasks.size(), size_t(6));
  }

  void jobsAreStoredWithTheirStudy() {
    RunStore runs(path("jobs.db"));
    QCOMPARE(runs.schemaVersion(), fl::store::kSchemaVersion);
    const int64_t id = createStudy(runs, tinyStudy("jobs", {1}));
    const StudyJob job = writeJob(runs, id, 2, path("jobs-job"), "777");
    fl::cluster::StudyJobs jobs(runs);
    auto stored = jobs.ofStudy(id);
    QCOMPARE(stored.size(), size_t(1));
    QCOMPARE(stored[0].jobId, std::string("777"));
    QCOMPARE(stored[0].workDir, job.workDir);
    QCOMPARE(stored[0].tasks.size(), size_t(2));
    QCOMPARE(stored[0].tasks[1].cells, (std::vector<int64_t>{1}));
    QVERIFY(!stored[0].tasks[0].collected);
    jobs.markCollected(job.id, 0, "12:34");
    stored = jobs.ofStudy(id);
    QVERIFY(stored[0].tasks[0].collected.has_value());
    QCOMPARE(stored[0].tasks[0].shardSignature, std::string("12:34"));
    // The job file says what each task trains, without the store.
    const auto file = fl::cluster::JobFile::read(job.folder().jobFile());
    QCOMPARE(file.studyUid, StudyStore(runs).study(id)->uid);
    const auto expansion =
        fl::study::expandStudy(*registry().find("fourier-head"), tinyStudy("jobs", {1}));
    QCOMPARE(file.tasks[1][0].hash, expansion.cells[1].hash);
    QCOMPARE(file.tasks[1][0].config, expansion.cells[1].config);
    StudyStore(runs).remove(id, true);
    QCOMPARE(queryInt(runs.path(), "SELECT count(*) FROM study_jobs"), int64_t(0));
    QCOMPARE(queryInt(runs.path(), "SELECT count(*) FROM study_job_tasks"), int64_t(0));
  }

  void taskStatesComeFromTheTasksWithoutSlurm() {
    RunStore runs(path("states.db"));
    const int64_t id = createStudy(runs, tinyStudy("states", {1, 2}));
    const StudyJob job = writeJob(runs, id, 4, path("states-job"));
    const JobFolder f = job.folder();
    fl::cluster::writeFileAtomically(f.taskReport(0), R"({"state": "done"})");
    fl::cluster::writeFileAtomically(f.taskReport(1), R"({"state": "cancelled"})");
    fl::cluster::writeFileAtomically(f.taskReport(2), R"({"state": "running"})");
    const auto states = fl::cluster::taskStates(job);
    QCOMPARE(states.size(), size_t(4));
    QCOMPARE(fl::cluster::toString(states[0].state), std::string("done"));
    QCOMPARE(fl::cluster::toString(states[1].state), std::string("failed"));
    QCOMPARE(states[1].detail, std::string("cancelled"));
    QCOMPARE(fl::cluster::toString(states[2].state), std::string("running"));
    QCOMPARE(fl::cluster::toString(states[3].state), std::string("queued"));
    QCOMPARE(states[3].source, std::string("task report"));
    QVERIFY(!states[0].published);
  }

  void collectMergesEveryRunOnceWithTheLocalMetrics() {
    const std::string db = path("main.db");
    const auto spec = tinyStudy("merge", {1, 2, 3});  // 6 runs
    int64_t id = 0;
    StudyJob job;
    {
      RunStore runs(db);
      id = createStudy(runs, spec);
      job = writeJob(runs, id, 3, path("merge-job"));
    }
    for (int t = 0; t < 3; ++t) {
      const auto outcome = runTask(job.folder(), t, path("merge-scratch"));
      QCOMPARE(fl::cluster::toString(outcome.state), std::string("done"));
      QCOMPARE(outcome.exitCode, 0);
      QVERIFY(fs::exists(job.folder().shard(t)));
      QVERIFY(!fs::exists(job.folder().shard(t) + "-wal"));  // published as one file
    }
    QVERIFY(fs::is_empty(path("merge-scratch")));  // each task cleaned its scratch

    {
      RunStore runs(db);
      const auto results = fl::cluster::collectFinishedShards(runs, id);
      QCOMPARE(results.size(), size_t(3));
      int added = 0, linked = 0;
      for (const auto& r : results) {
        QVERIFY2(r.merged, r.refusal.c_str());
        added += r.added;
        linked += r.cellsLinked;
      }
      QCOMPARE(added, 6);
      QCOMPARE(linked, 6);
      QCOMPARE(toString(StudyStore(runs).study(id)->status()),
               toString(fl::study::StudyStatus::Finished));
      // Again: nothing new. And merging a shard by hand once more stores nothing twice.
      for (const auto& r : fl::cluster::collectFinishedShards(runs, id)) QVERIFY(r.unchanged);
      const auto again = fl::cluster::mergeShard(runs, id, job.folder().shard(1));
      QVERIFY(again.merged);
      QCOMPARE(again.added, 0);
      QCOMPARE(again.kept, 2);
    }
    QCOMPARE(queryInt(db, "SELECT count(*) FROM runs"), int64_t(6));
    QCOMPARE(queryInt(db, "SELECT count(DISTINCT uid) FROM runs"), int64_t(6));
    // Every step of every curve once.
    QCOMPARE(queryInt(db,
                      "SELECT count(*) FROM (SELECT series_id, step, count(*) c FROM metrics "
                      "GROUP BY 1, 2 HAVING c > 1)"),
             int64_t(0));
    QCOMPARE(queryInt(db, "SELECT min(count) FROM series WHERE key = 'test/kl'"), int64_t(2));

    // The same study trained here: the same final metrics, bit for bit.
    const std::string local = path("local.db");
    {
      RunStore runs(local);
      const int64_t localId = createStudy(runs, spec);
      fl::study::StudySchedulerOptions o;
      o.cores = 1;
      fl::study::StudyScheduler(registry(), local, localId, o).run([](const auto&, const auto&) {});
    }
    const auto merged = finalMetrics(db), trainedHere = finalMetrics(local);
    QCOMPARE(merged.size(), size_t(6));
    QCOMPARE(trainedHere.size(), size_t(6));
    for (const auto& [hash, metrics] : trainedHere) {
      QVERIFY2(merged.count(hash), hash.c_str());
      QVERIFY(metrics.count("test/kl"));
      for (const auto& [key, value] : metrics) QCOMPARE(merged.at(hash).at(key), value);
    }
  }

  void aShardIsMergedWholeOrNotAtAll() {
    const std::string db = path("atomic.db");
    int64_t id = 0;
    StudyJob job;
    {
      RunStore runs(db);
      id = createStudy(runs, tinyStudy("atomic", {1}));  // 2 runs, one task
      job = writeJob(runs, id, 1, path("atomic-job"));
    }
    runTask(job.folder(), 0, path("atomic-scratch"));
    RunStore runs(db);
    // The second run's checkpoint folder cannot be made (a file is in the way): the merge
    // fails after copying the first run and its files.
    const int64_t next = queryInt(db, "SELECT coalesce(max(id), 0) FROM runs") + 2;
    fs::create_directories(fs::path(runs.artifactFolder(next)).parent_path());
    std::ofstream(runs.artifactFolder(next)) << "in the way";
    bool threw = false;
    try {
      fl::cluster::mergeShard(runs, id, job.folder().shard(0));
    } catch (const fl::store::StoreError& e) {
      threw = true;
      QVERIFY2(std::string(e.what()).find(runs.artifactFolder(next)) != std::string::npos,
               e.what());
    }
    QVERIFY(threw);
    QCOMPARE(queryInt(db, "SELECT count(*) FROM runs"), int64_t(0));
    QCOMPARE(queryInt(db, "SELECT count(*) FROM study_cells WHERE run_id IS NOT NULL"), int64_t(0));
    QVERIFY(!fs::exists(runs.artifactFolder(next - 1)) ||
            fs::is_empty(runs.artifactFolder(next - 1)));  // the first run's copies removed
    // With the way clear it merges whole.
    fs::remove(runs.artifactFolder(next));
    const auto r = fl::cluster::mergeShard(runs, id, job.folder().shard(0));
    QVERIFY(r.merged);
    QCOMPARE(r.added, 2);
    QVERIFY(r.checkpoints >= 2);
    QCOMPARE(queryInt(db, "SELECT count(*) FROM runs WHERE status = 'finished'"), int64_t(2));
  }

  void badShardsAreRefusedNamingTheFileAndTheRestMerged() {
    const std::string db = path("refuse.db");
    int64_t id = 0, otherId = 0;
    StudyJob job, otherJob;
    {
      RunStore runs(db);
      id = createStudy(runs, tinyStudy("refuse", {1, 2, 3}));  // 6 runs
      job = writeJob(runs, id, 3, path("refuse-job"));
      otherId = createStudy(runs, tinyStudy("other", {9}));
      otherJob = writeJob(runs, otherId, 1, path("other-job"));
    }
    for (int t = 0; t < 3; ++t) runTask(job.folder(), t, path("refuse-scratch"));
    runTask(otherJob.folder(), 0, path("refuse-scratch"));
    const JobFolder f = job.folder();

    // Damaged copies of task 0's shard, each refused with the file named, the store unchanged.
    const std::string good = f.shard(0);
    auto copyOf = [&](const std::string& name) {
      const std::string p = path(name);
      fs::copy_file(good, p, fs::copy_options::overwrite_existing);
      return p;
    };
    const std::string corrupt = copyOf("corrupt.db");
    QVERIFY(fs::file_size(corrupt) >= 8 * 4096);
    fl::testing::corruptMiddlePages(corrupt);
    const std::string truncated = copyOf("truncated.db");
    fs::resize_file(truncated, fs::file_size(truncated) / 2);
    const std::string newer = copyOf("newer.db");
    execRaw(newer, "UPDATE meta SET value = '99' WHERE key = 'schema_version'");
    const std::string text = path("notes.db");
    std::ofstream(text) << "not a database at all, but long enough to look like one";
    struct Case {
      std::string file;
      std::string says;
    };
    const std::vector<Case> cases = {
        {corrupt, "corrupt"},
        {truncated, "truncated"},
        {newer, "newer FourierLab"},
        {text, "not"},
        {otherJob.folder().shard(0), "is a shard of study 'other'"},
        {path("missing.db"), "does not exist"},
    };
    RunStore runs(db);
    for (const auto& c : cases) {
      const std::string before = fileBytes(c.file);
      const auto r = fl::cluster::mergeShard(runs, id, c.file);
      QVERIFY2(!r.merged, c.file.c_str());
      QVERIFY2(r.refusal.rfind(fs::absolute(c.file).string() + ": ", 0) == 0, r.refusal.c_str());
      QVERIFY2(r.refusal.find(c.says) != std::string::npos, r.refusal.c_str());
      QCOMPARE(fileBytes(c.file), before);  // left as it was
      QCOMPARE(queryInt(db, "SELECT count(*) FROM runs"), int64_t(0));
    }

    // A collect with task 1's shard corrupt merges tasks 0 and 2 and says which file it refused.
    fl::testing::corruptMiddlePages(f.shard(1));
    const auto results = fl::cluster::collectFinishedShards(runs, id);
    QCOMPARE(results.size(), size_t(3));
    QVERIFY(results[0].merged);
    QVERIFY(!results[1].merged);
    QVERIFY(results[1].refusal.find(f.shard(1)) != std::string::npos);
    QVERIFY(results[2].merged);
    QCOMPARE(queryInt(db, "SELECT count(*) FROM runs"), int64_t(4));
    const auto record = StudyStore(runs).study(id);
    QCOMPARE(record->statusCounts.at(fl::RunStatus::Finished), int64_t(4));
    QCOMPARE(record->statusCounts.at(std::nullopt), int64_t(2));
    // The refused shard is tried again next time (it may have been republished whole).
    QVERIFY(!fl::cluster::collectFinishedShards(runs, id)[1].merged);
  }

  void checkpointsAreCopiedAndACollectedRunResumesHere() {
    const Stopped s = stoppedStudy("stopped");
    {
      RunStore runs(s.db);
      const auto results = fl::cluster::collectFinishedShards(runs, s.studyId);
      QCOMPARE(results.size(), size_t(1));
      QVERIFY(results[0].merged);
      QCOMPARE(results[0].added, 1);
      QVERIFY(results[0].checkpoints >= 1);
      const auto list = runs.listRuns();
      QCOMPARE(list.size(), size_t(1));
      QCOMPARE(fl::toString(list[0].status), std::string("cancelled"));
      const auto checkpoints = runs.checkpoints(list[0].id);
      QVERIFY(!checkpoints.empty());
      for (const auto& c : checkpoints) {
        QVERIFY2(c.path.rfind(runs.artifactFolder(list[0].id) + "/", 0) == 0, c.path.c_str());
        QVERIFY(fs::is_regular_file(c.path));
        QCOMPARE(int64_t(fs::file_size(c.path)), c.bytes);
      }
    }
    // `sweep resume` here: the collected run resumes from its checkpoint, the other trains.
    std::vector<std::string> how;
    fl::study::StudySchedulerOptions o;
    o.cores = 1;
    const auto done = fl::study::StudyScheduler(registry(), s.db, s.studyId, o)
                          .run([&](const fl::study::StudyRunReport& r, const auto&) {
                            if (!r.ended) how.push_back(r.how);
                          });
    QCOMPARE(done.progress.finished, int64_t(2));
    QCOMPARE(how.size(), size_t(2));
    QVERIFY2(how[0].rfind("resumed from step", 0) == 0, how[0].c_str());
    QCOMPARE(how[1], std::string("new"));
    QCOMPARE(queryInt(s.db, "SELECT count(*) FROM runs"), int64_t(2));
    QCOMPARE(toString(studyStatus(s.db, s.studyId)), toString(fl::study::StudyStatus::Finished));
  }

  // A job sbatch refuses is not recorded, and its seeds (copies of the stopped runs with their
  // checkpoints) go: each refused try had left a full set of them in a job folder of its own.
  // The script and job file stay for a look, and the error says where.
  void aJobSbatchRefusesLeavesNoSeedsAndIsNotRecorded() {
    const Stopped s = stoppedStudy("refused");
    const std::string bin = path("refused-bin");
    fs::create_directories(bin);
    {
      std::ofstream script(bin + "/sbatch");
      script << "#!/bin/sh\necho 'sbatch: error: invalid partition specified: gpu' >&2\nexit 1\n";
    }
    fs::permissions(bin + "/sbatch", fs::perms::owner_all);
    const QByteArray oldPath = qgetenv("PATH");
    qputenv("PATH", QByteArray::fromStdString(bin) + ":" + oldPath);
    RunStore runs(s.db);
    fl::cluster::collectFinishedShards(runs, s.studyId);
    const auto plan = fl::cluster::planSlurmJob(runs, s.studyId, options(1, path("refused-job2")));
    QCOMPARE(plan.continued, (std::vector<int64_t>{0}));
    QString error;
    try {
      fl::cluster::submitSlurmJob(runs, plan);
    } catch (const fl::cluster::SlurmError& e) {
      error = e.what();
    }
    qputenv("PATH", oldPath);
    QVERIFY2(error.startsWith("sbatch refused the job: "), qPrintable(error));
    QVERIFY2(error.contains("invalid partition specified: gpu"), qPrintable(error));
    QVERIFY2(error.endsWith("; nothing was submitted (its script and job file stay in " +
                            QString::fromStdString(plan.folder.root) + " for a look)"),
             qPrintable(error));
    QVERIFY(!fs::exists(plan.folder.root + "/seeds"));
    QVERIFY(fs::exists(plan.folder.script()));
    QVERIFY(fs::exists(plan.folder.jobFile()));
    QCOMPARE(fl::cluster::StudyJobs(runs).ofStudy(s.studyId).size(), size_t(1));  // the first
  }

  // sbatch's answer is read as --parsable prints it ("ID", "ID;CLUSTER"), or as a wrapper that
  // says "Submitted batch job ID"; anything else is no id, said so, and nothing recorded: a
  // bare "Submitted batch job" had been recorded as the job's id.
  void sbatchsAnswerIsReadForItsJobId() {
    RunStore runs(path("answers.db"));
    const std::string bin = path("answers-bin");
    fs::create_directories(bin);
    const QByteArray oldPath = qgetenv("PATH");
    qputenv("PATH", QByteArray::fromStdString(bin) + ":" + oldPath);
    int n = 0;
    const auto submitWith = [&](const std::string& answer) {
      {
        std::ofstream script(bin + "/sbatch");
        script << "#!/bin/sh\necho '" << answer << "'\n";
      }
      fs::permissions(bin + "/sbatch", fs::perms::owner_all);
      // A study each: a job's task holds its runs from the next job.
      const int64_t id = createStudy(runs, tinyStudy("answers-" + std::to_string(++n), {1}));
      const auto plan =
          fl::cluster::planSlurmJob(runs, id, options(1, path("answers-job-" + std::to_string(n))));
      try {
        return fl::cluster::submitSlurmJob(runs, plan).jobId;
      } catch (const fl::cluster::SlurmError& e) {
        return "error: " + std::string(e.what());
      }
    };
    const std::string parsable = submitWith("4321");
    const std::string clustered = submitWith("77;north");
    const std::string wrapped = submitWith("Submitted batch job 9001");
    const std::string bare = submitWith("Submitted batch job");
    qputenv("PATH", oldPath);
    QCOMPARE(parsable, std::string("4321"));
    QCOMPARE(clustered, std::string("77"));
    QCOMPARE(wrapped, std::string("9001"));
    QVERIFY2(bare.rfind("error: sbatch answered 'Submitted batch job' where it prints the job's id",
                        0) == 0,
             bare.c_str());
    for (int64_t study = 1; study <= 4; ++study)
      QCOMPARE(fl::cluster::StudyJobs(runs).ofStudy(study).size(), size_t(study < 4 ? 1 : 0));
  }

  void aResubmittedRunContinuesAndReplacesItsStoppedAttempt() {
    const Stopped s = stoppedStudy("again");
    std::string stoppedUid;
    std::vector<std::string> oldFiles;
    StudyJob second;
    {
      RunStore runs(s.db);
      fl::cluster::collectFinishedShards(runs, s.studyId);
      const auto stopped = runs.listRuns().at(0);
      stoppedUid = stopped.uid;
      for (const auto& c : runs.checkpoints(stopped.id)) oldFiles.push_back(c.path);
      // What `sweep resume --slurm` sends: the missing run, and the stopped one with its
      // checkpoints in a seed. The first job's task is over (its report says cancelled).
      const auto plan = fl::cluster::planSlurmJob(runs, s.studyId, options(1, path("again-job2")));
      QCOMPARE(plan.runs(), size_t(2));
      QCOMPARE(plan.continued, (std::vector<int64_t>{0}));
      QVERIFY(plan.heldByActiveTasks.empty());
      second = fl::cluster::writeJobFolder(runs, plan);
      second.jobId = "4243";
      second.id = fl::cluster::StudyJobs(runs).record(second);
      QVERIFY(fs::exists(second.folder().seed(0)));
    }
    std::vector<std::string> how;
    const auto outcome = runTask(second.folder(), 0, path("again-scratch"), nullptr, &how);
    QCOMPARE(fl::cluster::toString(outcome.state), std::string("done"));
    QCOMPARE(how.size(), size_t(2));
    QVERIFY2(how[0].rfind("resumed from step", 0) == 0, how[0].c_str());

    RunStore runs(s.db);
    const auto results = fl::cluster::collectFinishedShards(runs, s.studyId);
    QCOMPARE(results.size(), size_t(2));  // the first job's shard (unchanged) and the second's
    QVERIFY(results[0].unchanged);
    QCOMPARE(results[1].replaced, 1);
    QCOMPARE(results[1].added, 1);
    const auto list = runs.listRuns();  // by id: the stopped run came first
    QCOMPARE(list.size(), size_t(2));
    QCOMPARE(list[0].uid, stoppedUid);  // the same run, now finished
    QCOMPARE(fl::toString(list[0].status), std::string("finished"));
    QCOMPARE(toString(StudyStore(runs).study(s.studyId)->status()),
             toString(fl::study::StudyStatus::Finished));
    for (const auto& f : oldFiles) QVERIFY2(!fs::exists(f), f.c_str());  // the old attempt's
    for (const auto& c : runs.checkpoints(list[0].id)) QVERIFY(fs::is_regular_file(c.path));
    // The first job's shard, merged again, does not bring the stopped attempt back.
    const auto old = fl::cluster::mergeShard(runs, s.studyId, s.job.folder().shard(0));
    QCOMPARE(old.replaced, 0);
    QCOMPARE(old.kept, 1);
    QCOMPARE(fl::toString(runs.run(list[0].id)->status), std::string("finished"));
  }
};

QTEST_GUILESS_MAIN(TestShardMerge)
#include "test_shard_merge.moc"
