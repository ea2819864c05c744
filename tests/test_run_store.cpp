// Tests core/store/run_store.h: runs and their metadata, metric summaries against a direct
// computation, filters, schema creation and upgrade, refusal of foreign, newer, truncated and
// locked files (left byte-for-byte unchanged), dead-run detection, delete, truncation; and the
// values the store's exports write (core/engine/export_values.h).
#include <QtTest>

#include <pwd.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <random>
#include <sstream>

#include <sqlite3.h>

#include "core/engine/config.h"
#include "core/engine/export_values.h"
#include "core/engine/registry.h"
#include "core/store/run_batching.h"
#include "core/store/run_export.h"
#include "core/store/run_store.h"
#include "core/store/run_trainer.h"
#include "core/store/schema.h"
#include "core/store/setting_use.h"
#include "experiments/builtin_experiments.h"
#include "tests/sqlite_probe.h"
#include "tests/store_damage.h"

using fl::store::RunStore;
using fl::store::StoreError;
using fl::testing::deadProcess;
using fl::testing::queryText;
namespace fs = std::filesystem;

namespace {

std::string readBytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

fl::MetricEvent metric(const std::string& key, int64_t step, double value) {
  return fl::MetricEvent{key, step, static_cast<double>(step) * 0.01, value};
}

void execRaw(const std::string& path, const std::string& sql) {
  sqlite3* db = nullptr;
  sqlite3_open(path.c_str(), &db);
  char* error = nullptr;
  if (sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &error) != SQLITE_OK) {
    const std::string message = error ? error : "?";
    sqlite3_free(error);
    sqlite3_close(db);
    qFatal("%s", message.c_str());
  }
  sqlite3_close(db);
}

void expectStoreError(const std::function<void()>& f, const QString& fragment) {
  try {
    f();
    QFAIL("expected a StoreError");
  } catch (const StoreError& e) {
    QVERIFY2(QString(e.what()).contains(fragment), e.what());
  }
}

// Copies `source` with its -wal and -shm to `copy` while `writer` still has it open: the copy's
// latest transactions then live only in its -wal, as after a crash (the writer never checkpoints).
void copyWhileOpen(const std::string& source, const std::string& copy) {
  for (const char* suffix : {"", "-wal", "-shm"})
    if (fs::exists(source + suffix))
      fs::copy_file(source + suffix, copy + suffix, fs::copy_options::overwrite_existing);
}

// A store whose newer schema version is only in its -wal: opening it must not checkpoint.
void writeNewerSchemaIntoTheWalOnly(const std::string& source, const std::string& copy) {
  {
    RunStore store(source);
    store.createRun({"x", "", nlohmann::json::object(), {}, {}});
  }
  sqlite3* writer = nullptr;
  sqlite3_open(source.c_str(), &writer);
  sqlite3_exec(writer,
               "PRAGMA wal_autocheckpoint = 0; "
               "UPDATE meta SET value = '99' WHERE key = 'schema_version'",
               nullptr, nullptr, nullptr);
  copyWhileOpen(source, copy);
  sqlite3_close(writer);
}

}  // namespace

class TestRunStore : public QObject {
  Q_OBJECT

  QTemporaryDir m_dir;
  std::string path(const char* name) const {
    return (fs::path(m_dir.path().toStdString()) / name).string();
  }

 private slots:
  void freshStoreHasCurrentSchemaAndWal() {
    RunStore store(path("fresh.db"));
    QCOMPARE(store.schemaVersion(), fl::store::kSchemaVersion);
    QCOMPARE(store.integrityCheck(), std::string("ok"));
    QVERIFY(fs::exists(path("fresh.db") + "-wal"));
  }

  void runMetadataRoundTrips() {
    RunStore store(path("meta.db"));
    const nlohmann::json config = {{"lr", 0.01}, {"seed", 7}};
    const int64_t id =
        store.createRun({"fourier-head", "baseline", config, {"a", "b"}, {{"host", "h"}}});
    store.rename(id, "renamed");
    store.setNotes(id, "a note, with \"quotes\"");
    store.addTags(id, {"c", "a"});
    store.removeTag(id, "b");
    auto r = store.run(id).value();
    QCOMPARE(r.experiment, std::string("fourier-head"));
    QCOMPARE(r.name, std::string("renamed"));
    QCOMPARE(r.notes, std::string("a note, with \"quotes\""));
    QCOMPARE(r.config, config);
    QCOMPARE(r.seed, int64_t(7));
    QCOMPARE(r.tags, (std::vector<std::string>{"a", "c"}));
    QCOMPARE(fl::toString(r.status), std::string("queued"));
    // One tag in any case, the first as it was written: "keep me" beside "Keep Me" was a
    // second tag a filter (any case) could not tell apart.
    store.addTags(id, {"Keep Me", "C", "keep me", "KEEP ME"});
    QCOMPARE(store.run(id)->tags, (std::vector<std::string>{"Keep Me", "a", "c"}));
    const int64_t fresh = store.createRun({"fourier-head", "", config, {"x", "X"}, {}});
    QCOMPARE(store.run(fresh)->tags, (std::vector<std::string>{"x"}));
    // Found and removed in any case too: the filter and the removal had asked for the case.
    fl::store::RunFilter byTag;
    byTag.tag = "KEEP me";
    QCOMPARE(store.listRuns(byTag).size(), size_t(1));
    store.removeTag(id, "keep ME");
    QCOMPARE(store.run(id)->tags, (std::vector<std::string>{"a", "c"}));
    QVERIFY(fl::store::sameTag("Ab c", "aB C") && !fl::store::sameTag("ab", "ab "));
    QVERIFY(!store.run(id + 100));
  }

  // The process that trains a run is found from the store with every run it trains, and asked
  // to stop with SIGTERM; a process that has ended or trains on another host is not signalled.
  void aRunsTrainerIsFoundAndAskedToStop() {
    RunStore store(path("trainer.db"));
    QProcess child;
    child.start("sleep", {"300"});
    QVERIFY(child.waitForStarted());
    // Its start time read here from /proc, field 22 after the command's closing parenthesis.
    std::ifstream stat("/proc/" + std::to_string(child.processId()) + "/stat");
    std::string line;
    std::getline(stat, line);
    std::istringstream fields(line.substr(line.rfind(')') + 2));
    std::string field;
    for (int i = 3; i <= 22; ++i) fields >> field;
    const fl::store::ProcessIdentity sleeper{fl::store::currentProcess().host, child.processId(),
                                             std::stoll(field)};
    const int64_t first = store.createRun({"fourier-head", "a", {{"seed", 1}}, {}, {}});
    const int64_t mine = store.createRun({"fourier-head", "b", {{"seed", 2}}, {}, {}});
    const int64_t second = store.createRun({"fourier-head", "c", {{"seed", 3}}, {}, {}});
    const int64_t ended = store.createRun({"fourier-head", "d", {{"seed", 4}}, {}, {}});
    store.markRunning(second, "cpu", 100, sleeper);
    store.markRunning(first, "cpu", 100, sleeper);
    store.markRunning(mine, "cpu", 100, fl::store::currentProcess());
    store.markRunning(ended, "cpu", 100, sleeper);
    store.finishRun(ended, fl::RunStatus::Finished, "");

    const auto trainer = fl::store::trainerOf(store, second);
    QVERIFY(trainer);
    QCOMPARE(trainer->process.pid, sleeper.pid);
    QCOMPARE(trainer->runs, (std::vector<int64_t>{first, second}));
    QVERIFY2(QString::fromStdString(trainer->command).endsWith("sleep 300"),  // its path, if given
             trainer->command.c_str());
    QVERIFY(!fl::store::trainerOf(store, ended));
    QCOMPARE(fl::store::trainerOf(store, mine)->runs, std::vector<int64_t>{mine});
    QCOMPARE(fl::store::cannotStop(fl::store::currentProcess()),
             std::string("this window trains it"));
    QCOMPARE(fl::store::cannotStop({"another-host", sleeper.pid, sleeper.startTicks}),
             std::string("it trains on host another-host: stop it there (Ctrl-C, kill, scancel)"));
    // The same pid started at another time is another process: never signalled.
    const fl::store::ProcessIdentity reused{sleeper.host, sleeper.pid, sleeper.startTicks + 1};
    QCOMPARE(fl::store::askToStop(reused),
             "its process (pid " + std::to_string(sleeper.pid) + ") has ended");
    QCOMPARE(child.state(), QProcess::Running);

    QCOMPARE(fl::store::cannotStop(sleeper), std::string());
    QCOMPARE(fl::store::askToStop(sleeper), std::string());
    QVERIFY(child.waitForFinished(10000));
    QCOMPARE(child.exitStatus(), QProcess::CrashExit);  // ended by the signal, not by itself
    QCOMPARE(fl::store::cannotStop(sleeper),
             "its process (pid " + std::to_string(sleeper.pid) + ") has ended");
  }

  // Progress is reported every few steps; a run stopped between two reports says where it
  // stopped in its terminal status, and that is the step the store keeps.
  void aStoppedRunKeepsTheStepItStoppedAt() {
    RunStore store(path("stopped.db"));
    const int64_t id = store.createRun({"fourier-head", "stopped", {{"seed", 1}}, {}, {}});
    fl::ProgressEvent progress;
    progress.step = 100;
    progress.totalSteps = 1000;
    fl::StatusEvent running;
    running.status = fl::RunStatus::Running;
    store.writeEvents(id, {running, progress});
    QCOMPARE(store.run(id)->lastStep, int64_t(100));
    fl::StatusEvent cancelled;
    cancelled.status = fl::RunStatus::Cancelled;
    cancelled.message = "cancelled after 137 steps";
    cancelled.step = 137;
    store.writeEvents(id, {cancelled});
    const auto run = store.run(id).value();
    QCOMPARE(run.lastStep, int64_t(137));
    QCOMPARE(run.totalSteps, int64_t(1000));
    QCOMPARE(fl::toString(run.status), std::string("cancelled"));
    // Resumed, then failed before its first progress (a corpus changed since): its length
    // stays (it read "steps 137 (length not stored)").
    fl::StatusEvent refused;
    refused.status = fl::RunStatus::Failed;
    refused.message = "the corpus changed";
    store.writeEvents(id, {running, refused});
    QCOMPARE(store.run(id)->totalSteps, int64_t(1000));
    QCOMPARE(fl::toString(store.run(id)->status), std::string("failed"));
    // A status never takes the step back (a resumed run's earlier attempt got further).
    const int64_t other = store.createRun({"fourier-head", "other", {{"seed", 1}}, {}, {}});
    fl::StatusEvent failed;
    failed.status = fl::RunStatus::Failed;
    failed.step = 3;
    progress.step = 40;
    store.writeEvents(other, {running, progress, failed});
    QCOMPARE(store.run(other)->lastStep, int64_t(40));
  }

  void summariesMatchADirectComputation() {
    RunStore store(path("summary.db"));
    const int64_t id = store.createRun({"x", "", nlohmann::json::object(), {}, {}});
    std::mt19937 rng(1);
    std::normal_distribution<double> noise;
    std::vector<double> values;
    // Several batches, with a NaN in the middle that must not become the minimum.
    for (int batch = 0; batch < 5; ++batch) {
      std::vector<fl::Event> events;
      for (int i = 0; i < 40; ++i) {
        const int64_t step = batch * 40 + i + 1;
        const double v = step == 77 ? std::nan("") : noise(rng);
        values.push_back(v);
        events.push_back(metric("train/loss", step, v));
      }
      store.writeEvents(id, events);
    }
    double mn = 1e300, mx = -1e300;
    int64_t mnStep = 0, mxStep = 0;
    for (size_t i = 0; i < values.size(); ++i) {
      if (std::isnan(values[i])) continue;
      if (values[i] < mn) {
        mn = values[i];
        mnStep = static_cast<int64_t>(i) + 1;
      }
      if (values[i] > mx) {
        mx = values[i];
        mxStep = static_cast<int64_t>(i) + 1;
      }
    }
    auto s = store.run(id)->metrics.at(0);
    QCOMPARE(s.count, int64_t(200));
    QCOMPARE(s.min, mn);
    QCOMPARE(s.minStep, mnStep);
    QCOMPARE(s.max, mx);
    QCOMPARE(s.maxStep, mxStep);
    QCOMPARE(s.last, values.back());
    QCOMPARE(s.lastStep, int64_t(200));
    auto points = store.metric(id, "train/loss");
    QCOMPARE(points.size(), size_t(200));
    QVERIFY(std::isnan(points[76].value));
    QCOMPARE(points[5].value, values[5]);
  }

  // Keys with numbers read in their numbers' order, in listings and in a run's keys: SQL's
  // order put val/ppl@48 after val/ppl@384 in `runs list`, `runs show` and the tables.
  void metricKeysComeInTheOrderAReaderCountsThem() {
    RunStore store(path("order.db"));
    const int64_t id = store.createRun({"x", "", nlohmann::json::object(), {}, {}});
    store.writeEvents(id, {metric("val/ppl@384", 1, 1.0), metric("val/ppl@48", 1, 2.0),
                           metric("val/loss", 1, 3.0), metric("val/ppl@192", 1, 4.0)});
    const std::string expected = "val/loss val/ppl@48 val/ppl@192 val/ppl@384";
    auto joined = [](const auto& items, auto keyOf) {
      std::string out;
      for (const auto& item : items) out += (out.empty() ? "" : " ") + keyOf(item);
      return out;
    };
    const auto name = [](const std::string& key) { return key; };
    const auto keyOf = [](const fl::store::MetricSummary& m) { return m.key; };
    QCOMPARE(joined(store.metricKeys(id), name), expected);
    QCOMPARE(joined(store.run(id)->metrics, keyOf), expected);
    QCOMPARE(joined(store.listRuns({}).front().metrics, keyOf), expected);
  }

  void snapshotsRoundTrip() {
    RunStore store(path("snap.db"));
    const int64_t id = store.createRun({"x", "", nlohmann::json::object(), {}, {}});
    fl::Snapshot s;
    s.name = "pdf/pred";
    s.shape = {2, 3};
    s.data = {0.1f, 0.2f, 0.7f, 0.3f, 0.3f, 0.4f};
    s.axes = {{"input", "", {}}, {"z", "", {-0.5f, 0.f, 0.5f}}};
    s.valueLabel = "probability";
    s.meta = {{"inputs", {1, 2}}};
    fl::SnapshotEvent probe{10, 1.0, s, /*requestId=*/3};  // probe answers are not stored
    store.writeEvents(id,
                      {fl::SnapshotEvent{10, 1.0, s, 0}, fl::SnapshotEvent{20, 2.0, s, 0}, probe});
    auto all = store.snapshots(id, "pdf/pred");
    QCOMPARE(all.size(), size_t(2));
    auto latest = store.snapshots(id, "pdf/pred", true);
    QCOMPARE(latest.front().step, int64_t(20));
    QCOMPARE(latest.front().snapshot.data, s.data);
    QCOMPARE(latest.front().snapshot.shape, s.shape);
    QCOMPARE(latest.front().snapshot.axes[1].ticks, s.axes[1].ticks);
    QCOMPARE(latest.front().snapshot.meta, s.meta);
    QCOMPARE(store.snapshotNames(id), std::vector<std::string>{"pdf/pred"});
  }

  void theStoreKeepsWhatEachSnapshotDeclares() {
    RunStore store(path("keep.db"));
    const int64_t id = store.createRun({"x", "", nlohmann::json::object(), {}, {}});
    fl::Snapshot every, latest, rebuilt;
    every.name = "spectrum/abs_c";
    latest.name = "pdf/pred";
    latest.keep = fl::SnapshotKeep::LatestStep;
    rebuilt.name = "pdf/true";
    rebuilt.keep = fl::SnapshotKeep::NotStored;
    std::vector<fl::Event> events;
    for (int64_t step : {10, 20, 30})
      for (auto* s : {&every, &latest, &rebuilt}) {
        s->shape = {1};
        s->data = {static_cast<float>(step)};
        s->axes = {{"k", "", {}}};
        events.push_back(fl::SnapshotEvent{step, 0.0, *s, 0});
      }
    store.writeEvents(id, {events.begin(), events.begin() + 6});  // two batches
    store.writeEvents(id, {events.begin() + 6, events.end()});
    QCOMPARE(store.snapshots(id, "spectrum/abs_c").size(), size_t(3));
    const auto kept = store.snapshots(id, "pdf/pred");
    QCOMPARE(kept.size(), size_t(1));
    QCOMPARE(kept.front().step, int64_t(30));
    QCOMPARE(kept.front().snapshot.data, std::vector<float>{30.f});
    QVERIFY(store.snapshots(id, "pdf/true").empty());
    QCOMPARE(store.snapshotNames(id), (std::vector<std::string>{"pdf/pred", "spectrum/abs_c"}));
  }

  void listFiltersByExperimentStatusTagAndText() {
    RunStore store(path("list.db"));
    const int64_t a =
        store.createRun({"fourier-head", "alpha", nlohmann::json::object(), {"sweep"}, {}});
    const int64_t b = store.createRun({"fope", "beta", nlohmann::json::object(), {}, {}});
    const int64_t c =
        store.createRun({"fourier-head", "gamma", nlohmann::json::object(), {"sweep"}, {}});
    store.finishRun(c, fl::RunStatus::Finished, "");
    store.setNotes(b, "Uses ALiBi");
    auto ids = [](const std::vector<fl::store::RunRecord>& runs) {
      std::vector<int64_t> out;
      for (const auto& r : runs) out.push_back(r.id);
      return out;
    };
    QCOMPARE(ids(store.listRuns()), (std::vector<int64_t>{a, b, c}));
    fl::store::RunFilter f;
    f.experiment = "fourier-head";
    QCOMPARE(ids(store.listRuns(f)), (std::vector<int64_t>{a, c}));
    f = {};
    f.status = fl::RunStatus::Finished;
    QCOMPARE(ids(store.listRuns(f)), (std::vector<int64_t>{c}));
    f = {};
    f.tag = "sweep";
    QCOMPARE(ids(store.listRuns(f)), (std::vector<int64_t>{a, c}));
    f = {};
    f.tag = "swe";  // a tag is a whole word to `runs list --tag`
    QVERIFY(store.listRuns(f).empty());
    f = {};
    f.tagPart = "WEE";  // History's field: any part of a tag, any case
    QCOMPARE(ids(store.listRuns(f)), (std::vector<int64_t>{a, c}));
    f.tagPart = "sweeps";
    QVERIFY(store.listRuns(f).empty());
    f = {};
    f.text = "alibi";  // case-insensitive, in the notes
    QCOMPARE(ids(store.listRuns(f)), (std::vector<int64_t>{b}));
    store.setArchived(a, true);
    QCOMPARE(ids(store.listRuns()), (std::vector<int64_t>{b, c}));
    f = {};
    f.includeArchived = true;
    QCOMPARE(ids(store.listRuns(f)).size(), size_t(3));
    f = {};
    f.onlyArchived = true;
    QCOMPARE(ids(store.listRuns(f)), (std::vector<int64_t>{a}));
    // A setting's text value ("gmm": an unnamed run of head gmm was not found); not its key,
    // not a number ("1" would find nearly every run).
    const int64_t d =
        store.createRun({"fourier-head", "", {{"head", "GMM"}, {"bins", 12}, {"lr", 0.1}}, {}, {}});
    f = {};
    f.text = "gmm";
    QCOMPARE(ids(store.listRuns(f)), (std::vector<int64_t>{d}));
    for (const char* notMatched : {"bins", "12", "0.1"}) {
      f.text = notMatched;
      QVERIFY2(store.listRuns(f).empty(), notMatched);
    }
    // A run's id, and one setting's value: typed in History's filter, they found nothing.
    const std::vector<std::pair<std::string, std::vector<int64_t>>> lookups{
        {std::to_string(b), {b}},
        {" #" + std::to_string(b) + " ", {b}},
        {"bins=12", {d}},
        {"bins = 12.0", {d}},  // a number compares as a number
        {"lr=0.10", {d}},
        {"head=GMM", {d}},
        {"head=gmm", {d}},  // any case, as the plain text
        {"HEAD=Linear", {}},
        {"HEAD=gmm", {d}},  // a setting's name in any case too
        {"bins=13", {}},
        {"seed=42", {}},  // no run holds a seed
        {"bins=", {}},
        {"=12", {}},
        {"#", {}}};
    for (const auto& [text, expected] : lookups) {
      f.text = text;
      QVERIFY2(ids(store.listRuns(f)) == expected, text.c_str());
    }
    // The setting alone, not text in a name: "seed=4" found the runs named "... seed=42".
    const int64_t named =
        store.createRun({"fourier-head", "table1 · head=gmm seed=42", {{"seed", 42}}, {}, {}});
    f.text = "seed=4";
    QVERIFY(store.listRuns(f).empty());
    f.text = "seed=42";
    QCOMPARE(ids(store.listRuns(f)), (std::vector<int64_t>{named}));
    // Several words: each a term of its own, every one matched. "dataset=gmm2 head=gmm", copied
    // from a study run's name, found nothing; the words as one text still match as they did.
    const std::vector<std::pair<std::string, std::vector<int64_t>>> terms{
        {"seed=42 head=gmm", {named}},  // head=gmm read in the name of a run without a head
        {"gmm  seed=42", {named}},
        {"GMM bins=12", {d}},
        {"table1 seed=4", {}},
        {"table1 · head", {named}},
        {"gmm nothing-here", {}},
        // Spaces around '=' join a setting's words: "seed= 4" let every run named "seed=" pass.
        {"seed= 4", {}},
        {"seed =42", {named}},
        {"head = gmm seed= 42", {named}}};
    for (const auto& [text, expected] : terms) {
      f.text = text;
      QVERIFY2(ids(store.listRuns(f)) == expected, text.c_str());
    }
    // KEY=VALUE of a setting the run does not have reads as text: "N=12" of a run's name.
    const int64_t arm =
        store.createRun({"fourier-head", "paper · fourier N=12", {{"head", "fourier"}}, {}, {}});
    for (const char* text : {"N=12", "fourier N=12", "head=fourier N=12"}) {
      f.text = text;
      QVERIFY2(ids(store.listRuns(f)) == std::vector<int64_t>{arm}, text);
    }
    // A KEY=VALUE finds only the runs that use KEY, as their experiment says: frequencies=12
    // had found every linear run, whose N reads "(not used)".
    {
      fl::ExperimentRegistry registry;
      fl::registerBuiltinExperiments(registry);
      const auto e = registry.find("fourier-head");
      const auto configOf = [&](const char* head) {
        return fl::validateConfig(e->allParams(), {{"head", head}, {"frequencies", 12}}).values;
      };
      RunStore heads(path("used-settings.db"));
      const int64_t linear = heads.createRun({"fourier-head", "", configOf("linear"), {}, {}});
      const int64_t fourier = heads.createRun({"fourier-head", "", configOf("fourier"), {}, {}});
      fl::store::RunFilter used;
      used.text = "frequencies=12";
      QCOMPARE(ids(heads.listRuns(used)), (std::vector<int64_t>{linear, fourier}));  // unasked
      used.usesSetting = fl::store::settingUseOf(registry);
      QCOMPARE(ids(heads.listRuns(used)), (std::vector<int64_t>{fourier}));
      used.text = "head=linear frequencies=12";
      QVERIFY(heads.listRuns(used).empty());
      used.text = "head=linear";
      QCOMPARE(ids(heads.listRuns(used)), (std::vector<int64_t>{linear}));
    }
    QCOMPARE(fl::store::parseTextQuery("flag=true").number, std::optional<double>(1.0));
    QVERIFY(fl::store::parseTextQuery("a.b=1").key.empty());  // a key is a word
    // Numbers as settings are typed, in decimal: "0x8" is not 8 (--set refuses it).
    QVERIFY(!fl::store::parseTextQuery("frequencies=0x8").number);
    QCOMPARE(fl::store::parseTextQuery("lr=1e-3").number, std::optional<double>(1e-3));
  }

  // The folder a run's checkpoints go to is the one the store cleans up: one layout, whether
  // asked of an open store or of its path.
  void artifactFoldersSitBesideTheDatabase() {
    const std::string p = path("folders.db");
    RunStore store(p);
    const int64_t id = store.createRun({"x", "", nlohmann::json::object(), {}, {}});
    QCOMPARE(store.artifactFolder(id), p + ".files/run-" + std::to_string(id));
    QCOMPARE(RunStore::artifactFolderOf(p, id), store.artifactFolder(id));
    QCOMPARE(RunStore::artifactFolderOf("/a/b.db", 12), std::string("/a/b.db.files/run-12"));
    // A folder of a run the store does not have is removed on open; its own is kept.
    fs::create_directories(RunStore::artifactFolderOf(p, id + 1));
    fs::create_directories(store.artifactFolder(id));
    RunStore reopened(p);
    QVERIFY(!fs::exists(RunStore::artifactFolderOf(p, id + 1)));
    QVERIFY(fs::exists(reopened.artifactFolder(id)));
  }

  void deleteRemovesOnlyThatRunsData() {
    const std::string p = path("delete.db");
    RunStore store(p);
    const int64_t keep = store.createRun({"x", "keep", nlohmann::json::object(), {"t"}, {}});
    const int64_t gone = store.createRun({"x", "gone", nlohmann::json::object(), {"t"}, {}});
    fl::Snapshot s;
    s.name = "a";
    s.shape = {1};
    s.data = {1.f};
    for (int64_t id : {keep, gone}) {
      store.writeEvents(id,
                        {metric("m", 1, 1.0), metric("m", 2, 2.0), fl::SnapshotEvent{2, 0, s, 0}});
      fs::create_directories(store.artifactFolder(id));
      const auto file = store.artifactFolder(id) + "/step-2.pt";
      std::ofstream(file) << "checkpoint";
      store.addCheckpoint(id, 2, file);
    }
    QCOMPARE(store.deleteRuns({gone}), 1);
    QVERIFY(!store.run(gone));
    QVERIFY(!fs::exists(store.artifactFolder(gone)));
    QCOMPARE(store.metric(keep, "m").size(), size_t(2));
    QCOMPARE(store.snapshots(keep, "a").size(), size_t(1));
    QCOMPARE(store.checkpoints(keep).size(), size_t(1));
    QVERIFY(fs::exists(store.artifactFolder(keep) + "/step-2.pt"));
    // Nothing of the deleted run is left in any table.
    sqlite3* db = nullptr;
    sqlite3_open(p.c_str(), &db);
    for (const char* sql :
         {"SELECT count(*) FROM series WHERE run_id = 2",
          "SELECT count(*) FROM metrics WHERE series_id NOT IN (SELECT id FROM series)",
          "SELECT count(*) FROM snapshots WHERE run_id = 2",
          "SELECT count(*) FROM artifacts WHERE run_id = 2",
          "SELECT count(*) FROM tags WHERE run_id = 2"}) {
      sqlite3_stmt* st = nullptr;
      sqlite3_prepare_v2(db, sql, -1, &st, nullptr);
      sqlite3_step(st);
      QVERIFY2(sqlite3_column_int(st, 0) == 0, sql);
      sqlite3_finalize(st);
    }
    sqlite3_close(db);
  }

  void truncateAfterDropsLaterPointsAndRecomputesSummaries() {
    RunStore store(path("truncate.db"));
    const int64_t id = store.createRun({"x", "", nlohmann::json::object(), {}, {}});
    std::vector<fl::Event> events;
    for (int64_t step = 1; step <= 10; ++step)
      events.push_back(metric("m", step, step == 9 ? -5.0 : double(step)));
    store.writeEvents(id, events);
    store.truncateAfter(id, 6);
    auto s = store.run(id)->metrics.at(0);
    QCOMPARE(s.count, int64_t(6));
    QCOMPARE(s.last, 6.0);
    QCOMPARE(s.lastStep, int64_t(6));
    QCOMPARE(s.min, 1.0);  // the -5 at step 9 is gone
    QCOMPARE(s.minStep, int64_t(1));
    QCOMPARE(s.max, 6.0);
    QCOMPARE(store.metric(id, "m").back().step, int64_t(6));
  }

  void runsOfDeadProcessesBecomeInterrupted() {
    const std::string p = path("dead.db");
    int64_t deadRun, liveRun;
    {
      RunStore store(p);
      deadRun = store.createRun({"x", "", nlohmann::json::object(), {}, {}});
      liveRun = store.createRun({"x", "", nlohmann::json::object(), {}, {}});
      store.markRunning(deadRun, "cpu", 100, deadProcess());
      store.markRunning(liveRun, "cpu", 100, fl::store::currentProcess());
      store.writeEvents(deadRun, {metric("m", 1, 1.0)});
    }
    RunStore reopened(p);
    auto dead = reopened.run(deadRun).value();
    QCOMPARE(fl::toString(dead.status), std::string("interrupted"));
    QVERIFY(dead.message.find("ended without finishing") != std::string::npos);
    QCOMPARE(reopened.metric(deadRun, "m").size(), size_t(1));  // its data is kept
    QCOMPARE(fl::toString(reopened.run(liveRun)->status), std::string("running"));
  }

  // Deleting the newest run used to give its id to the next one.
  void runIdsAreNeverReused() {
    const std::string p = path("ids.db");
    {
      RunStore store(p);
      for (int64_t expected = 1; expected <= 3; ++expected)
        QCOMPARE(store.createRun({"x", "", nlohmann::json::object(), {}, {}}), expected);
      QCOMPARE(store.deleteRuns({3}), 1);
      QCOMPARE(store.createRun({"x", "", nlohmann::json::object(), {}, {}}), int64_t(4));
      QCOMPARE(store.deleteRuns({1, 2, 4}), 3);
    }
    RunStore reopened(p);  // remembered in the file, not by the connection
    QCOMPARE(reopened.createRun({"x", "", nlohmann::json::object(), {}, {}}), int64_t(5));
  }

  // Empty and comma-holding tags used to be stored.
  void badTagsAreRefused() {
    RunStore store(path("tags.db"));
    QVERIFY_EXCEPTION_THROWN(store.createRun({"x", "", nlohmann::json::object(), {"ok", ""}, {}}),
                             std::invalid_argument);
    QVERIFY(store.listRuns({}).empty());
    const int64_t id = store.createRun({"x", "", nlohmann::json::object(), {"ok"}, {}});
    for (const char* bad : {"", "  ", "a,b", " padded", "line\nbreak", "\u00a0\u3000"})
      QVERIFY_EXCEPTION_THROWN(store.addTags(id, {bad}), std::invalid_argument);
    QCOMPARE(store.run(id)->tags, std::vector<std::string>{"ok"});
    QVERIFY(!fl::store::tagProblem("two words"));
  }

  // `runs list --db nodir/x.db` used to create the folder and an empty store; a zero-byte file
  // was adopted and rewritten.
  void requireExistingCreatesNothing() {
    const std::string missing = path("nodir/x.db");
    expectStoreError([&] { RunStore::requireExisting(missing); }, "no run store at this path");
    QVERIFY(!fs::exists(path("nodir")));
    const std::string empty = path("empty.db");
    std::ofstream{empty};
    expectStoreError([&] { RunStore::requireExisting(empty); }, "is an empty file");
    QCOMPARE(fs::file_size(empty), uintmax_t(0));
    RunStore{path("real.db")};
    RunStore::requireExisting(path("real.db"));  // no throw
  }

  // Orphaned and superseded checkpoint files used to stay on disk forever.
  void strayFilesAreRemovedWhenARunEndsOrIsFoundDead() {
    const std::string p = path("strays.db");
    int64_t dead, finished;
    std::string kept;
    {
      RunStore store(p);
      dead = store.createRun({"x", "", nlohmann::json::object(), {}, {}});
      finished = store.createRun({"x", "", nlohmann::json::object(), {}, {}});
      const int64_t deleted = store.createRun({"x", "", nlohmann::json::object(), {}, {}});
      for (auto id : {dead, finished, deleted}) fs::create_directories(store.artifactFolder(id));
      kept = store.artifactFolder(dead) + "/step-5.pt";
      std::ofstream(kept) << "checkpoint";
      store.addCheckpoint(dead, 5, kept);
      std::ofstream(store.artifactFolder(dead) + "/step-7.pt") << "written, never recorded";
      std::ofstream(store.artifactFolder(dead) + "/step-9.pt.partial") << "half";
      store.markRunning(dead, "cpu", 100, deadProcess());
      // A finished run's last batch: a superseded file whose deletion a crash skipped goes.
      std::ofstream(store.artifactFolder(finished) + "/step-3.pt") << "superseded";
      store.markRunning(finished, "cpu", 100, fl::store::currentProcess());
      store.writeEvents(finished, {fl::StatusEvent{fl::RunStatus::Finished, "", "cpu", 10, 1.0}});
      QVERIFY(!fs::exists(store.artifactFolder(finished) + "/step-3.pt"));
      // A deleted run whose folder survived (a crash between the commit and the removal).
      execRaw(p, "DELETE FROM runs WHERE id = " + std::to_string(deleted));
      std::ofstream(store.artifactFolder(deleted) + "/step-1.pt") << "orphan";
    }
    RunStore reopened(p);
    QCOMPARE(fl::toString(reopened.run(dead)->status), std::string("interrupted"));
    QVERIFY(fs::exists(kept));
    QVERIFY(!fs::exists(reopened.artifactFolder(dead) + "/step-7.pt"));
    QVERIFY(!fs::exists(reopened.artifactFolder(dead) + "/step-9.pt.partial"));
    QVERIFY(!fs::exists(reopened.artifactFolder(dead + 2)));
  }

  // A store copied with its folder (backup.db beside backup.db.files) read the original's
  // checkpoints, and a run resumed in the copy deleted them as superseded: the original could
  // not resume. A store moved with its folder found none. A copy made alone still reads the
  // original's, and never deletes them.
  void aCopiedOrMovedStoreUsesItsOwnFilesAndNeverDeletesTheOriginals() {
    const std::string original = path("kill.db");
    int64_t id = 0;
    std::string file;
    {
      RunStore store(original);
      id = store.createRun({"x", "", nlohmann::json::object(), {}, {}});
      fs::create_directories(store.artifactFolder(id));
      file = store.artifactFolder(id) + "/step-5.pt";
      std::ofstream(file) << "checkpoint";
      store.addCheckpoint(id, 5, file);
    }
    const std::string backup = path("backup.db");
    fs::copy_file(original, backup);
    fs::copy(original + ".files", backup + ".files", fs::copy_options::recursive);
    const std::string alone = path("alone.db");
    fs::copy_file(original, alone);
    {
      RunStore copy(backup);
      QCOMPARE(copy.checkpoints(id).at(0).path, copy.artifactFolder(id) + "/step-5.pt");
      // The copy's resumed run supersedes the checkpoint: its own file goes, the original's stays.
      copy.writeEvents(id, {fl::CheckpointEvent{5, copy.checkpoints(id).at(0).path, true}});
      QVERIFY(copy.checkpoints(id).empty());
      QVERIFY(!fs::exists(copy.artifactFolder(id) + "/step-5.pt"));
      QVERIFY(fs::exists(file));
    }
    {
      RunStore copy(alone);  // no folder of its own: the original's is read, not deleted
      QCOMPARE(copy.checkpoints(id).at(0).path, file);
      copy.writeEvents(id, {fl::CheckpointEvent{5, file, true}});
      QVERIFY(copy.checkpoints(id).empty());
      QVERIFY(fs::exists(file));
      copy.addCheckpoint(id, 6, file);  // a row naming another store's file
      copy.removeCheckpoint(copy.checkpoints(id).at(0).id);
      QVERIFY(fs::exists(file));
    }
    const std::string moved = path("moved.db");
    fs::rename(original, moved);
    fs::rename(original + ".files", moved + ".files");
    RunStore store(moved);
    QCOMPARE(store.checkpoints(id).at(0).path, store.artifactFolder(id) + "/step-5.pt");
    QVERIFY(fs::exists(store.checkpoints(id).at(0).path));
    // Its run ending keeps the file its row names (it was a stray under the old name).
    store.markRunning(id, "cpu", 100, fl::store::currentProcess());
    store.writeEvents(id, {fl::StatusEvent{fl::RunStatus::Finished, "", "cpu", 10, 1.0}});
    QVERIFY(fs::exists(store.artifactFolder(id) + "/step-5.pt"));
  }

  void olderSchemaIsUpgradedKeepingData() {
    const std::string p = path("v1.db");
    execRaw(p, std::string(fl::store::kSchemaVersion1) +
                   "INSERT INTO meta VALUES ('application', 'fourierlab'), ('schema_version', '1');"
                   "INSERT INTO runs(experiment, name, status, config, created) "
                   "VALUES ('fourier-head', 'old', 'finished', '{}', 1.0);");
    RunStore store(p);
    QCOMPARE(store.schemaVersion(), fl::store::kSchemaVersion);
    auto runs = store.listRuns();
    QCOMPARE(runs.size(), size_t(1));
    QCOMPARE(runs[0].name, std::string("old"));
    QVERIFY(!runs[0].archived);
  }

  // Run ids used to be reused after the newest run was deleted. Version 4 rebuilds `runs` with
  // AUTOINCREMENT; a version-3 store keeps its runs, ids, tags, metrics, artifacts and study
  // links, its foreign keys still cascade, and a deleted newest id is not given again.
  void version3StoresKeepEverythingAndRetireDeletedIds() {
    const std::string p = path("v3.db");
    execRaw(p, std::string(fl::store::kSchemaVersion1) +
                   "ALTER TABLE runs ADD COLUMN archived INTEGER NOT NULL DEFAULT 0;" +
                   fl::store::kSchemaVersion3 +
                   "CREATE UNIQUE INDEX runs_by_uid ON runs(uid);"
                   "INSERT INTO meta VALUES ('application', 'fourierlab'), ('schema_version', '3');"
                   "INSERT INTO runs(id, experiment, name, status, config, created, archived, uid, "
                   "config_hash) VALUES (1, 'x', 'one', 'finished', '{}', 1.0, 0, 'u1', 'h1'),"
                   "(2, 'x', 'two', 'finished', '{}', 2.0, 1, 'u2', 'h2'),"
                   "(3, 'x', 'three', 'cancelled', '{}', 3.0, 0, 'u3', 'h3');"
                   "INSERT INTO tags VALUES (2, 'kept'), (3, 'newest');"
                   "INSERT INTO series(id, run_id, key, count) VALUES (10, 3, 'train/loss', 1);"
                   "INSERT INTO metrics VALUES (10, 5, 0.1, 0.5);"
                   "INSERT INTO artifacts(run_id, kind, step, path, created) "
                   "VALUES (3, 'checkpoint', 5, 'x', 1.0);"
                   "INSERT INTO studies(id, uid, name, experiment, spec, spec_hash, created) "
                   "VALUES (1, 's', 'study', 'x', '{}', 'sh', 1.0);"
                   "INSERT INTO study_cells VALUES (1, 0, '', '{}', 1, '{}', 'h3', 3);");
    {
      RunStore store(p);
      QCOMPARE(store.schemaVersion(), fl::store::kSchemaVersion);
      fl::store::RunFilter all;
      all.includeArchived = true;
      const auto runs = store.listRuns(all);
      QCOMPARE(runs.size(), size_t(3));
      QCOMPARE(store.run(2)->name, std::string("two"));
      QVERIFY(store.run(2)->archived);
      QCOMPARE(store.run(2)->uid, std::string("u2"));
      QCOMPARE(store.run(3)->tags, std::vector<std::string>{"newest"});
      QCOMPARE(store.checkpoints(3).size(), size_t(1));
      QCOMPARE(queryText(p, "SELECT count(*) FROM metrics"), std::string("1"));
      QCOMPARE(queryText(p, "SELECT run_id FROM study_cells"), std::string("3"));
      {
        auto foreignKeys = store.database().prepare("PRAGMA foreign_keys");  // back on
        QVERIFY(foreignKeys.step());
        QCOMPARE(foreignKeys.int64(0), int64_t(1));
      }
      QCOMPARE(store.deleteRuns({3}), 1);  // the cascade still works
      QCOMPARE(queryText(p, "SELECT count(*) FROM metrics"), std::string("0"));
      QCOMPARE(queryText(p, "SELECT count(*) FROM tags WHERE run_id = 3"), std::string("0"));
      QCOMPARE(queryText(p, "SELECT count(*) FROM artifacts"), std::string("0"));
      QCOMPARE(queryText(p, "SELECT coalesce(run_id, 'null') FROM study_cells"),
               std::string("null"));
      QCOMPARE(store.createRun({"x", "", nlohmann::json::object(), {}, {}}), int64_t(4));
    }
    QCOMPARE(queryText(p, "PRAGMA integrity_check"), std::string("ok"));
    QCOMPARE(queryText(p, "SELECT count(*) FROM sqlite_master WHERE name LIKE 'runs_by_%'"),
             std::string("4"));
  }

  // A migration that fails part-way leaves the file at its old version, none of its steps kept.
  // The failure is injected by a trigger that refuses the final version update, after step 2
  // has added runs.archived.
  void aFailingMigrationRollsBack() {
    const std::string p = path("v1-failing.db");
    execRaw(p, std::string(fl::store::kSchemaVersion1) +
                   "INSERT INTO meta VALUES ('application', 'fourierlab'), ('schema_version', '1');"
                   "INSERT INTO runs(experiment, name, status, config, created) "
                   "VALUES ('fourier-head', 'old', 'finished', '{}', 1.0);"
                   "CREATE TRIGGER refuse_upgrade BEFORE UPDATE ON meta "
                   "BEGIN SELECT RAISE(ABORT, 'injected migration failure'); END;");
    expectStoreError([&] { RunStore store(p); }, "injected migration failure");
    QCOMPARE(queryText(p, "SELECT value FROM meta WHERE key = 'schema_version'"), std::string("1"));
    QCOMPARE(queryText(p, "SELECT count(*) FROM pragma_table_info('runs') WHERE name = 'archived'"),
             std::string("0"));
    QCOMPARE(queryText(p, "SELECT name FROM runs"), std::string("old"));
  }

  // A batch that failed after inserting a series row used to keep the row's id in the cache;
  // the rollback removed the row, and the retried batch wrote metrics against a missing series.
  void aBatchRetriedAfterARollbackIsWritten() {
    const std::string p = path("retry.db");
    RunStore store(p);
    const int64_t id = store.createRun({"x", "", nlohmann::json::object(), {}, {}});
    // Fails the batch after its metric created the series row for "new/key".
    execRaw(p,
            "CREATE TRIGGER refuse_boom BEFORE INSERT ON snapshots WHEN NEW.name = 'boom' "
            "BEGIN SELECT RAISE(ABORT, 'injected failure'); END;");
    fl::Snapshot boom;
    boom.name = "boom";
    boom.shape = {1};
    boom.data = {1.0f};
    expectStoreError(
        [&] {
          store.writeEvents(id, {metric("new/key", 1, 0.5), fl::SnapshotEvent{1, 0.01, boom, 0}});
        },
        "injected failure");
    QCOMPARE(store.metric(id, "new/key").size(), size_t(0));
    store.writeEvents(id, {metric("new/key", 1, 0.5), metric("new/key", 2, 0.25)});  // the retry
    QCOMPARE(store.metric(id, "new/key").size(), size_t(2));
    QCOMPARE(store.run(id)->metrics.at(0).count, int64_t(2));
  }

  // Snapshot rows as another program or a damaged disk can leave them: each is refused with a
  // StoreError naming the row. They used to throw nlohmann's exceptions past every StoreError
  // handler, convert an out-of-range tick (undefined), or hand the widgets a shape whose element
  // count overflowed or disagreed with the data (the store-rows fuzzer found them).
  void damagedSnapshotRowsAreRefused_data() {
    QTest::addColumn<QString>("assignment");
    QTest::addColumn<QString>("message");
    const QString notSizes = "its shape is not a JSON array of sizes";
    QTest::newRow("shape not JSON") << "shape = '[2,'" << notSizes;
    QTest::newRow("shape an object") << R"(shape = '{"a": 1}')" << notSizes;
    QTest::newRow("size beyond double") << "shape = '[1e400, 3]'" << notSizes;
    QTest::newRow("negative sizes") << "shape = '[-2, -3]'" << notSizes;
    QTest::newRow("count overflows") << "shape = '[4294967296, 4294967296, 4]'"
                                     << "its shape's element count overflows";
    QTest::newRow("shape misses the data") << "shape = '[2, 2]'"
                                           << "its shape holds 4 values, its data 6";
    QTest::newRow("part of a float") << "data = X'0102030405'"
                                     << "its data is 5 bytes, not whole float32 values";
    QTest::newRow("axes not JSON") << "axes = 'nope'"
                                   << "its axes are not a JSON array";
    QTest::newRow("axis a number") << "axes = '[1]'"
                                   << "an axis is not a JSON object";
    QTest::newRow("label a number") << R"(axes = '[{"label": 3}]')"
                                    << "an axis's label, unit or ticks has the wrong JSON type";
    QTest::newRow("tick beyond float") << R"(axes = '[{"ticks": [1e300]}]')"
                                       << "an axis tick is not a float32 number";
    // It was exported as `<discarded>`, which no JSON reader takes.
    QTest::newRow("meta not JSON") << R"(meta = '{"verdict": AAAA')"
                                   << "its meta is not JSON";
  }
  void damagedSnapshotRowsAreRefused() {
    QFETCH(QString, assignment);
    QFETCH(QString, message);
    const std::string p = path(("damaged-" + std::string(QTest::currentDataTag()) + ".db").c_str());
    RunStore store(p);
    const int64_t id = store.createRun({"x", "", nlohmann::json::object(), {}, {}});
    fl::Snapshot s;
    s.name = "pdf/pred";
    s.shape = {2, 3};
    s.data = {0.1f, 0.2f, 0.7f, 0.3f, 0.3f, 0.4f};
    s.axes = {{"input", "", {}}, {"z", "", {-0.5f, 0.f, 0.5f}}};
    store.writeEvents(id, {fl::SnapshotEvent{10, 1.0, s, 0}});
    QCOMPARE(store.snapshots(id, "pdf/pred").size(), size_t(1));
    execRaw(p, "UPDATE snapshots SET " + assignment.toStdString());
    expectStoreError([&] { store.snapshots(id, "pdf/pred"); },
                     QString("snapshot 'pdf/pred' of run %1 at step 10 cannot be read: %2")
                         .arg(id)
                         .arg(message));
  }

  // A run's config or build damaged into text that is not JSON read back as nlohmann's
  // "discarded" value, which the exports dumped as `<discarded>`: a file no JSON reader takes,
  // written and claimed. It reads as null (none recorded), and the export stays JSON.
  void aDamagedConfigReadsAsNoneAndExportsAsJson() {
    const std::string p = path("damaged-config.db");
    RunStore store(p);
    const int64_t id =
        store.createRun({"x", "", nlohmann::json{{"lr", 0.1}}, {}, {{"torch", "2.15"}}});
    execRaw(p, R"(UPDATE runs SET config = '{"lr": AAAA', build = 'AAAA')");
    const auto run = store.run(id).value();
    QVERIFY(run.config.is_null());
    QVERIFY(run.build.is_null());
    const std::string text = fl::store::runsToJson(store, nullptr, {run}).dump();
    QVERIFY2(text.find("discarded") == std::string::npos, text.c_str());
    const auto parsed = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
    QVERIFY(!parsed.is_discarded());
    QVERIFY(parsed["runs"][0]["config"].is_null());
  }

  // An empty data blob was copied with memcpy from a null pointer (undefined behaviour).
  void anEmptySnapshotReadsBack() {
    const std::string p = path("empty-snapshot.db");
    RunStore store(p);
    const int64_t id = store.createRun({"x", "", nlohmann::json::object(), {}, {}});
    fl::Snapshot s;
    s.name = "pdf/pred";
    s.shape = {1};
    s.data = {0.5f};
    s.axes = {{"z", "", {}}};
    store.writeEvents(id, {fl::SnapshotEvent{1, 0.1, s, 0}});
    execRaw(p, "UPDATE snapshots SET shape = '[0, 3]', data = X''");
    const auto read = store.snapshots(id, "pdf/pred").at(0).snapshot;
    QCOMPARE(read.shape, (std::vector<int64_t>{0, 3}));
    QVERIFY(read.data.empty());
  }

  // A NaN tick is stored as JSON null, which reading back used to refuse with nlohmann's
  // type_error: the run's snapshot could not be shown at all.
  void notFiniteTicksReadBackAsNaN() {
    RunStore store(path("nan-tick.db"));
    const int64_t id = store.createRun({"x", "", nlohmann::json::object(), {}, {}});
    fl::Snapshot s;
    s.name = "spectrum/abs_c";
    s.shape = {2};
    s.data = {1.f, 2.f};
    s.axes = {{"k", "", {0.f, std::numeric_limits<float>::quiet_NaN()}}};
    store.writeEvents(id, {fl::SnapshotEvent{1, 0.1, s, 0}});
    const auto ticks = store.snapshots(id, "spectrum/abs_c").at(0).snapshot.axes.at(0).ticks;
    QCOMPARE(ticks.size(), size_t(2));
    QCOMPARE(ticks[0], 0.f);
    QVERIFY(std::isnan(ticks[1]));
  }

  // A damaged series count sized the points' vector (std::length_error out of metric()), and a
  // run folder named past int64's range threw std::out_of_range out of the constructor.
  void damagedCountsAndFolderNamesAreHarmless() {
    const std::string p = path("damaged-count.db");
    int64_t id = 0;
    {
      RunStore store(p);
      id = store.createRun({"x", "", nlohmann::json::object(), {}, {}});
      store.writeEvents(id, {metric("train/loss", 1, 0.5)});
    }
    execRaw(p, "UPDATE series SET count = 1152921504606846976");
    const std::string stray = p + ".files/run-99999999999999999999999";
    fs::create_directories(stray);
    RunStore store(p);
    QCOMPARE(store.metric(id, "train/loss").size(), size_t(1));
    QVERIFY(fs::is_directory(stray));  // it names no run: left alone
  }

  void refusedFilesAreLeftByteForByteUnchanged_data() {
    QTest::addColumn<QString>("kind");
    QTest::addColumn<QString>("message");
    QTest::newRow("text file") << "text"
                               << "is not an SQLite database";
    QTest::newRow("truncated") << "truncated"
                               << "is truncated or corrupt";
    QTest::newRow("newer schema") << "newer"
                                  << "was written by a newer FourierLab (schema version 99";
    QTest::newRow("foreign database") << "foreign"
                                      << "not a FourierLab run store";
    // A corrupt page in the middle used to be accepted and written to.
    QTest::newRow("corrupt page") << "corrupt"
                                  << "is corrupt";
  }
  void refusedFilesAreLeftByteForByteUnchanged() {
    QFETCH(QString, kind);
    QFETCH(QString, message);
    const std::string p = path(("refuse-" + kind.toStdString() + ".db").c_str());
    if (kind == "text") {
      std::ofstream(p) << "hello, this is not a database\n";
    } else if (kind == "truncated") {
      {
        RunStore store(p);
        store.createRun({"x", "", nlohmann::json::object(), {}, {}});
      }
      execRaw(p, "PRAGMA wal_checkpoint(TRUNCATE); PRAGMA journal_mode=DELETE;");
      fs::resize_file(p, fs::file_size(p) / 2);
    } else if (kind == "corrupt") {
      {
        RunStore store(p);
        const int64_t id = store.createRun({"x", "", nlohmann::json::object(), {}, {}});
        std::vector<fl::Event> events;
        for (int64_t step = 1; step <= 5000; ++step)
          events.push_back(metric("m", step, 1.0 / step));
        store.writeEvents(id, events);
      }
      execRaw(p, "PRAGMA journal_mode=DELETE;");
      fl::testing::corruptMiddlePages(p);
    } else if (kind == "newer") {
      { RunStore store(p); }
      execRaw(
          p,
          "UPDATE meta SET value = '99' WHERE key = 'schema_version'; PRAGMA journal_mode=DELETE;");
    } else {
      execRaw(p, "CREATE TABLE accounts(id INTEGER); INSERT INTO accounts VALUES (1);");
    }
    const std::string before = readBytes(p);
    expectStoreError([&] { RunStore store(p); }, message);
    QVERIFY2(QString(readBytes(p) == before ? "same" : "changed") == "same", "file was modified");
    try {
      RunStore store(p);
    } catch (const StoreError& e) {
      QVERIFY(std::string(e.what()).find(p) != std::string::npos);  // the message names the file
    }
  }

  // SQLite checkpoints on close, so refusing through a read-write connection used to copy the
  // WAL into the main file and delete the -wal.
  void newerSchemaOnlyInTheWalIsLeftUntouched() {
    const std::string p = path("newer-in-wal.db");
    writeNewerSchemaIntoTheWalOnly(path("newer-in-wal-source.db"), p);
    QVERIFY(fs::file_size(p + "-wal") > 0);
    const std::string db = readBytes(p), wal = readBytes(p + "-wal");
    expectStoreError([&] { RunStore store(p); },
                     "was written by a newer FourierLab (schema version 99");
    expectStoreError([&] { RunStore store(p, /*readOnly=*/true); }, "schema version 99");
    QVERIFY2(readBytes(p) == db, "the main file was modified");
    QVERIFY2(fs::exists(p + "-wal") && readBytes(p + "-wal") == wal, "the -wal was modified");
    // The -shm is only SQLite's index of the WAL (readers update their marks in it): it stays,
    // but is not byte-identical.
    QVERIFY(fs::exists(p + "-shm"));
  }

  void lockedPastTheTimeoutIsAClearError() {
    const std::string p = path("locked.db");
    { RunStore store(p); }
    sqlite3* holder = nullptr;
    sqlite3_open(p.c_str(), &holder);
    sqlite3_exec(holder, "BEGIN IMMEDIATE", nullptr, nullptr, nullptr);
    RunStore store(p, false, /*busyTimeoutMs=*/200);
    expectStoreError(
        [&] {
          store.createRun({"x", "", nlohmann::json::object(), {}, {}});
        },
        "another process holds the write lock");
    sqlite3_exec(holder, "ROLLBACK", nullptr, nullptr, nullptr);
    sqlite3_close(holder);
    store.createRun({"x", "", nlohmann::json::object(), {}, {}});  // free again: it works
    QCOMPARE(store.listRuns().size(), size_t(1));
  }

  void defaultPathFollowsXdg() {
    qputenv("XDG_DATA_HOME", "/tmp/xdg-test");
    QCOMPARE(RunStore::defaultPath(), std::string("/tmp/xdg-test/fourierlab/runs.db"));
    qunsetenv("XDG_DATA_HOME");
    qputenv("HOME", "/home/someone");
    QCOMPARE(RunStore::defaultPath(), std::string("/home/someone/.local/share/fourierlab/runs.db"));
    // A relative XDG_DATA_HOME is ignored, as the XDG specification says; without HOME, the
    // account's home (the store had gone to ./.local/share of the current folder).
    qputenv("XDG_DATA_HOME", "relative/data");
    QCOMPARE(RunStore::defaultPath(), std::string("/home/someone/.local/share/fourierlab/runs.db"));
    qunsetenv("XDG_DATA_HOME");
    const QByteArray home = qgetenv("HOME");
    qunsetenv("HOME");
    const passwd* account = ::getpwuid(::getuid());
    QVERIFY(account && account->pw_dir);
    QCOMPARE(RunStore::defaultPath(),
             std::string(account->pw_dir) + "/.local/share/fourierlab/runs.db");
    qputenv("HOME", home);
  }

  // The exports' fields: what a spreadsheet reads back as one cell, whatever the text holds.
  void csvFieldsQuoteCommasQuotesAndLineBreaks() {
    QCOMPARE(fl::csvField("test/kl"), std::string("test/kl"));
    QCOMPARE(fl::csvField(""), std::string(""));
    QCOMPARE(fl::csvField("a,b"), std::string("\"a,b\""));
    QCOMPARE(fl::csvField("say \"hi\""), std::string("\"say \"\"hi\"\"\""));
    QCOMPARE(fl::csvField("two\nlines"), std::string("\"two\nlines\""));
    QCOMPARE(fl::csvField("cr\rlf"), std::string("\"cr\rlf\""));
    QCOMPARE(fl::csvField("'single' ; tab\t"), std::string("'single' ; tab\t"));
  }

  void notFiniteNumbersAreNullInJson() {
    QVERIFY(fl::finiteOrNull(0.25) == nlohmann::json(0.25));
    QVERIFY(fl::finiteOrNull(-0.0).is_number());
    QVERIFY(fl::finiteOrNull(std::nan("")).is_null());
    QVERIFY(fl::finiteOrNull(std::numeric_limits<double>::infinity()).is_null());
    QVERIFY(fl::finiteOrNull(-std::numeric_limits<double>::infinity()).is_null());
    QCOMPARE(nlohmann::json({{"v", fl::finiteOrNull(NAN)}}).dump(), std::string("{\"v\":null}"));
  }

  // How a run trained is kept among its build facts, each way once, whatever else they hold,
  // and each start of the run adds its way (a study resumed with another --batch).
  void aRunRecordsWhetherItTrainedAloneOrBatched() {
    using fl::store::batchingLabel;
    using fl::store::describeBatching;
    QCOMPARE(describeBatching(nlohmann::json::object()), std::string());  // from before: unsaid
    QCOMPARE(describeBatching("not an object"), std::string());
    const nlohmann::json facts = {{"torch_version", "2.15.0"}};
    auto build = fl::store::withBatchSize(facts, 4);
    QCOMPARE(build["torch_version"].get<std::string>(), std::string("2.15.0"));
    QCOMPARE(describeBatching(build), std::string("in a batched group of 4 runs"));
    QCOMPARE(batchingLabel(build), std::string("batched x4"));
    build = fl::store::withBatchSize(build, 4);  // announced twice in one start: once
    QCOMPARE(build[fl::store::kBatchSizesKey], nlohmann::json({4}));
    build = fl::store::withBatchSize(build, 1);
    QCOMPARE(describeBatching(build),
             std::string("partly alone, partly in a batched group of 4 runs"));
    QCOMPARE(batchingLabel(build), std::string("alone, batched x4"));
    QCOMPARE(describeBatching(fl::store::withBatchSize(nlohmann::json(), 1)), std::string("alone"));

    // Through the store: a Running status with its batch size, as a group's member sends it.
    const std::string db = path("batching.db");
    fl::store::RunStore store(db);
    const int64_t id = store.createRun({"fourier-head", "", {{"seed", 1}}, {}, facts});
    fl::StatusEvent running;
    running.status = fl::RunStatus::Running;
    running.device = "cpu";
    running.batchSize = 3;
    store.writeEvents(id, {running, running});
    QCOMPARE(describeBatching(store.run(id)->build), std::string("in a batched group of 3 runs"));
    QCOMPARE(store.run(id)->build["torch_version"].get<std::string>(), std::string("2.15.0"));
    running.batchSize = 0;  // a sender that does not say leaves it as it was
    store.writeEvents(id, {running});
    QCOMPARE(batchingLabel(store.run(id)->build), std::string("batched x3"));
  }
};

QTEST_APPLESS_MAIN(TestRunStore)
#include "test_run_store.moc"
