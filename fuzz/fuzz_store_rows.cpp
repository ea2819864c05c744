// Fuzzes what a run store file holds, read back: each input starts from a small good store
// (two runs with metrics, snapshots, tags, a verdict and a checkpoint row) and either edits
// its rows through SQL (schema version and other meta values, run, snapshot, series, metric,
// tag, artifact and verdict rows, with fuzzer-chosen text, blobs, numbers and NULLs; a stray
// folder beside it) or overwrites bytes of the file image, or replaces the whole file with the
// input. Then the store is opened read-only and read-write and everything is read back through
// RunStore's readers. Nothing may crash, hang, leak or hit undefined behaviour; a refusal is a
// StoreError with a message (any other exception escapes past the callers' handlers).
// Each seed in fuzz/corpus/store_rows/ makes the damage its name says, encoded for
// FuzzedDataProvider (integers are taken from the input's end, strings from its front).
#include <fuzzer/FuzzedDataProvider.h>
#include <stdlib.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "core/store/run_store.h"
#include "core/store/sqlite_handle.h"

namespace fs = std::filesystem;
using fl::store::RunStore;
using fl::store::StoreError;

namespace {

std::string readFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

void writeFile(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

fl::Snapshot snapshot(const std::string& name, fl::SnapshotRole role) {
  fl::Snapshot s;
  s.name = name;
  s.role = role;
  s.shape = {2, 3};
  s.data = {0.1f, 0.2f, 0.7f, 0.3f, 0.3f, 0.4f};
  s.axes = {{"input", "", {}}, {"z", "", {-0.5f, 0.f, 0.5f}}};
  s.valueLabel = "probability";
  s.meta = {
      {"inputs", {1, 2}}, {"verdict", "LEAKS"}, {"ok", false}, {"detail", "ordered < shuffled"}};
  return s;
}

// The good store every input starts from (its bytes, the WAL folded in).
struct Template {
  std::string folder;
  std::string bytes;
};

const Template& storeTemplate() {
  static const Template t = [] {
    const char* shm = "/dev/shm";
    std::string pattern =
        std::string(::access(shm, W_OK) == 0 ? shm : "/tmp") + "/fuzz_store_rows.XXXXXX";
    if (!::mkdtemp(pattern.data())) __builtin_trap();
    static const std::string folder = pattern;
    std::atexit([] {
      std::error_code ec;
      fs::remove_all(folder, ec);
    });
    const std::string path = pattern + "/template.db";
    {
      RunStore store(path);
      const nlohmann::json config = {{"lr", 0.01}, {"seed", 7}, {"head", "fourier"}};
      const int64_t a = store.createRun(
          {"fourier-head", "alpha", config, {"sweep", "x"}, {{"host", "h"}, {"libtorch", "2.5"}}});
      const int64_t b = store.createRun({"fope", "beta", nlohmann::json::object(), {}, {}});
      std::vector<fl::Event> events;
      events.push_back(fl::StatusEvent{fl::RunStatus::Running, "", "cpu"});
      for (int64_t step = 1; step <= 4; ++step) {
        events.push_back(fl::MetricEvent{"train/loss", step, 0.1 * step, 1.0 / step});
        events.push_back(fl::MetricEvent{"test/kl", step, 0.1 * step, step == 3 ? NAN : 0.5});
      }
      events.push_back(
          fl::SnapshotEvent{2, 0.2, snapshot("pdf/pred", fl::SnapshotRole::Prediction), 0});
      events.push_back(fl::SnapshotEvent{4, 0.4, snapshot("pdf/true", fl::SnapshotRole::Truth), 0});
      events.push_back(fl::ProgressEvent{4, 10, 1, 3, 0.4, 0.2, true});
      fl::Verdict verdict;
      verdict.source = fl::VerdictSource::Paper;
      verdict.subject = "test/kl";
      verdict.label = "within paper";
      verdict.passed = true;
      verdict.value = 0.5;
      verdict.paperMean = 0.4;
      verdict.paperStd = 0.1;
      events.push_back(fl::StatusEvent{fl::RunStatus::Finished, "done", "cpu", 4, 0.4, {verdict}});
      store.writeEvents(a, events);
      store.addCheckpoint(a, 4, store.artifactFolder(a) + "/step-4.pt");
      store.writeEvents(b, {fl::MetricEvent{"train/loss", 1, 0.0, 2.0}});
    }
    return Template{pattern, readFile(path)};
  }();
  return t;
}

// One SQLite value of a fuzzer-chosen type.
void bindValue(FuzzedDataProvider& in, fl::store::Statement& s, int index) {
  switch (in.ConsumeIntegralInRange(0, 6)) {
    case 0:
      s.bindNull(index);
      break;
    case 1:
      s.bind(index, in.ConsumeIntegral<int64_t>());
      break;
    case 2:
      s.bind(index, static_cast<int64_t>(in.ConsumeIntegralInRange(-2, 5)));
      break;
    case 3:
      s.bind(index, in.ConsumeFloatingPoint<double>());
      break;
    case 4: {
      const auto bytes = in.ConsumeBytes<uint8_t>(in.ConsumeIntegralInRange(0, 64));
      s.bindBlob(index, bytes.data(), bytes.size());
      break;
    }
    default:
      s.bind(index, in.ConsumeRandomLengthString(512));
      break;
  }
}

const std::vector<std::string> kRunColumns = {
    "id",        "experiment", "name",        "status",      "config",      "device",
    "seed",      "created",    "started",     "finished",    "app_version", "build",
    "notes",     "message",    "last_step",   "total_steps", "host",        "pid",
    "pid_start", "archived",   "config_hash", "uid"};
const std::vector<std::string> kSnapshotColumns = {"run_id", "step", "name",        "shape", "data",
                                                   "axes",   "meta", "value_label", "role"};
const std::vector<std::string> kSeriesColumns = {
    "run_id", "key", "count", "last", "last_step", "min", "min_step", "max", "max_step"};
const std::vector<std::string> kMetricColumns = {"series_id", "step", "wall", "value"};
const std::vector<std::string> kArtifactColumns = {"run_id", "kind", "step", "path", "bytes"};
const std::vector<std::string> kVerdictColumns = {"run_id",     "position",  "source", "subject",
                                                  "label",      "passed",    "detail", "value",
                                                  "paper_mean", "paper_std", "preset"};
const std::vector<std::string> kTables = {"meta",      "runs",      "series",
                                          "snapshots", "artifacts", "studies"};

std::string pick(FuzzedDataProvider& in, const std::vector<std::string>& names) {
  return names[in.ConsumeIntegralInRange<size_t>(0, names.size() - 1)];
}

// Edits rows with SQL; a statement the schema refuses (NOT NULL, a key) is skipped.
void editRows(FuzzedDataProvider& in, const std::string& path) {
  const auto db = fl::store::Database::open(path, /*create=*/false);
  db.exec("PRAGMA synchronous = OFF");
  for (int edit = 0; edit < 12 && in.remaining_bytes() > 0; ++edit) {
    std::string sql;
    int values = 1;
    switch (in.ConsumeIntegralInRange(0, 13)) {
      case 0:
        sql = "UPDATE meta SET value = ?1 WHERE key = 'schema_version'";
        break;
      case 1:
        sql = "INSERT OR REPLACE INTO meta(key, value) VALUES (?1, ?2)";
        values = 2;
        break;
      case 2:
        sql = "UPDATE runs SET " + pick(in, kRunColumns) + " = ?1 WHERE id = ?2";
        values = 2;
        break;
      case 3:
        sql =
            "INSERT INTO runs(experiment, name, status, config, build, created, seed, host, pid, "
            "pid_start, uid) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)";
        values = 11;
        break;
      case 4:
        sql = "UPDATE snapshots SET " + pick(in, kSnapshotColumns) + " = ?1 WHERE id = ?2";
        values = 2;
        break;
      case 5:
        sql =
            "INSERT INTO snapshots(run_id, step, name, shape, data, axes, meta, value_label, "
            "role) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)";
        values = 9;
        break;
      case 6:
        sql = "UPDATE series SET " + pick(in, kSeriesColumns) + " = ?1 WHERE id = ?2";
        values = 2;
        break;
      case 7:
        sql = "UPDATE metrics SET " + pick(in, kMetricColumns) + " = ?1 WHERE step = ?2";
        values = 2;
        break;
      case 8:
        sql =
            "INSERT OR REPLACE INTO metrics(series_id, step, wall, value) VALUES (?1, ?2, ?3, ?4)";
        values = 4;
        break;
      case 9:
        sql = "INSERT OR REPLACE INTO tags(run_id, tag) VALUES (?1, ?2)";
        values = 2;
        break;
      case 10:
        sql = "UPDATE artifacts SET " + pick(in, kArtifactColumns) + " = ?1 WHERE id = ?2";
        values = 2;
        break;
      case 11:
        sql = "UPDATE run_verdicts SET " + pick(in, kVerdictColumns) + " = ?1 WHERE position = ?2";
        values = 2;
        break;
      case 12:
        sql = "DELETE FROM " + pick(in, kTables) + " WHERE rowid = ?1 OR ?1 IS NULL";
        break;
      default: {
        // A stray folder among the runs' folders: the read-write open removes those of deleted
        // runs by the id in their name.
        std::string name = "run-" + in.ConsumeRandomLengthString(32);
        for (char& c : name)
          if (c == '/' || c == '\0') c = '_';
        std::error_code ec;
        fs::create_directories(path + ".files/" + name, ec);
        continue;
      }
    }
    try {
      auto s = db.prepare(sql);
      for (int i = 1; i <= values; ++i) bindValue(in, s, i);
      s.run();
    } catch (const StoreError&) {
    }
  }
}

// Every reader of RunStore, and what a consumer does with what they return.
void readEverything(const RunStore& store) {
  (void)store.schemaVersion();
  (void)store.experimentNames();
  fl::store::RunFilter all;
  all.includeArchived = true;
  for (const auto& listed : store.listRuns(all)) {
    const auto r = store.run(listed.id);
    if (!r) continue;
    (void)r->config.dump();
    (void)r->build.dump();
    for (const auto& key : store.metricKeys(r->id)) (void)store.metric(r->id, key);
    for (const auto& name : store.snapshotNames(r->id)) {
      for (bool latest : {false, true})
        for (const auto& stored : store.snapshots(r->id, name, latest)) {
          const auto& s = stored.snapshot;
          // What the widgets rely on: numel() is the number of values.
          if (!s.shape.empty() && static_cast<size_t>(s.numel()) != s.data.size()) __builtin_trap();
          (void)s.meta.dump();
        }
    }
    (void)store.checkpoints(r->id);
    (void)store.wallSecondsAt(r->id, r->lastStep);
  }
  (void)store.integrityCheck();
}

void removeStore(const std::string& path) {
  std::error_code ec;
  for (const char* suffix : {"", "-wal", "-shm", "-journal"}) fs::remove(path + suffix, ec);
  fs::remove_all(path + ".files", ec);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const bool verbose = std::getenv("FUZZ_VERBOSE") != nullptr;  // print each refusal
  const Template& t = storeTemplate();
  const std::string path = t.folder + "/store.db";
  removeStore(path);
  FuzzedDataProvider in(data, size);
  const uint8_t mode = in.ConsumeIntegral<uint8_t>();
  if (mode < 16) {
    writeFile(path, in.ConsumeRemainingBytesAsString());  // the whole file
  } else if (mode < 48) {
    std::string bytes = t.bytes;  // a few bytes overwritten, perhaps cut short
    while (in.remaining_bytes() > 4) {
      const auto at = in.ConsumeIntegralInRange<size_t>(0, bytes.size() - 1);
      bytes[at] = static_cast<char>(in.ConsumeIntegral<uint8_t>());
    }
    if (in.ConsumeBool()) bytes.resize(bytes.size() / 2);
    writeFile(path, bytes);
  } else {
    writeFile(path, t.bytes);
    try {
      editRows(in, path);
    } catch (const StoreError&) {
    }
  }
  for (bool readOnly : {true, false}) {
    try {
      const RunStore store(path, readOnly, /*busyTimeoutMs=*/0);
      readEverything(store);
    } catch (const StoreError& e) {
      if (std::string(e.what()).empty()) __builtin_trap();  // a refusal says why
      if (verbose) std::fprintf(stderr, "refused: %s\n", e.what());
    }
  }
  removeStore(path);
  return 0;
}
