#include "core/store/schema.h"

#include <random>
#include <string>

#include <nlohmann/json.hpp>

#include "core/store/config_hash.h"
#include "core/store/run_verdicts.h"

namespace fl::store {

const char* const kSchemaVersion1 = R"sql(
CREATE TABLE meta (
  key   TEXT PRIMARY KEY,
  value TEXT NOT NULL
);
CREATE TABLE runs (
  id          INTEGER PRIMARY KEY,
  experiment  TEXT NOT NULL,
  name        TEXT NOT NULL DEFAULT '',
  status      TEXT NOT NULL,
  config      TEXT NOT NULL,            -- JSON, complete (defaults filled in)
  device      TEXT NOT NULL DEFAULT '',
  seed        INTEGER,
  created     REAL NOT NULL,            -- Unix seconds
  started     REAL,
  finished    REAL,
  app_version TEXT NOT NULL DEFAULT '',
  build       TEXT NOT NULL DEFAULT '{}', -- JSON: LibTorch, CUDA, BLAS, host
  notes       TEXT NOT NULL DEFAULT '',
  message     TEXT NOT NULL DEFAULT '', -- why it failed / was interrupted
  last_step   INTEGER NOT NULL DEFAULT 0,
  total_steps INTEGER NOT NULL DEFAULT 0,
  host        TEXT NOT NULL DEFAULT '', -- the writing process, to tell a dead run
  pid         INTEGER NOT NULL DEFAULT 0,
  pid_start   INTEGER NOT NULL DEFAULT 0 -- its start time (clock ticks), so a reused pid is not it
);
CREATE INDEX runs_by_experiment ON runs(experiment, created);
CREATE INDEX runs_by_status ON runs(status);
CREATE TABLE tags (
  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  tag    TEXT NOT NULL,
  PRIMARY KEY (run_id, tag)
) WITHOUT ROWID;
CREATE INDEX tags_by_tag ON tags(tag);
CREATE TABLE series (
  id        INTEGER PRIMARY KEY,
  run_id    INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  key       TEXT NOT NULL,
  count     INTEGER NOT NULL DEFAULT 0,
  last      REAL, last_step INTEGER,
  min       REAL, min_step  INTEGER,
  max       REAL, max_step  INTEGER,
  UNIQUE (run_id, key)
);
CREATE TABLE metrics (
  series_id INTEGER NOT NULL REFERENCES series(id) ON DELETE CASCADE,
  step      INTEGER NOT NULL,
  wall      REAL NOT NULL,
  value     REAL,                       -- NULL for NaN
  PRIMARY KEY (series_id, step)
) WITHOUT ROWID;
CREATE TABLE snapshots (
  id          INTEGER PRIMARY KEY,
  run_id      INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  step        INTEGER NOT NULL,
  name        TEXT NOT NULL,
  shape       TEXT NOT NULL,            -- JSON array
  data        BLOB NOT NULL,            -- float32, row-major, little-endian
  axes        TEXT NOT NULL,            -- JSON: [{label, unit, ticks}]
  value_label TEXT NOT NULL DEFAULT '',
  meta        TEXT NOT NULL DEFAULT '{}'
);
CREATE INDEX snapshots_by_run ON snapshots(run_id, name, step);
CREATE TABLE artifacts (
  id      INTEGER PRIMARY KEY,
  run_id  INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  kind    TEXT NOT NULL,                -- 'checkpoint'
  step    INTEGER NOT NULL,
  path    TEXT NOT NULL,                -- relative to the database's folder
  bytes   INTEGER NOT NULL DEFAULT 0,
  created REAL NOT NULL
);
CREATE INDEX artifacts_by_run ON artifacts(run_id, kind, step);
)sql";

const char* const kSchemaVersion3 = R"sql(
ALTER TABLE runs ADD COLUMN config_hash TEXT NOT NULL DEFAULT '';
ALTER TABLE runs ADD COLUMN uid TEXT;
CREATE INDEX runs_by_hash ON runs(config_hash);
CREATE TABLE studies (
  id          INTEGER PRIMARY KEY AUTOINCREMENT,
  uid         TEXT NOT NULL UNIQUE,
  name        TEXT NOT NULL,
  experiment  TEXT NOT NULL,
  spec        TEXT NOT NULL,            -- JSON StudySpec, axes in their declared order
  spec_hash   TEXT NOT NULL,            -- the same spec is the same study
  created     REAL NOT NULL,
  notes       TEXT NOT NULL DEFAULT ''
);
CREATE INDEX studies_by_spec ON studies(spec_hash);
CREATE TABLE study_cells (
  study_id    INTEGER NOT NULL REFERENCES studies(id) ON DELETE CASCADE,
  cell        INTEGER NOT NULL,         -- its place in the expansion
  arm         TEXT NOT NULL DEFAULT '',
  axes        TEXT NOT NULL,            -- JSON: the axis values, without the seed
  seed        INTEGER NOT NULL,
  config      TEXT NOT NULL,            -- JSON, validated and complete
  config_hash TEXT NOT NULL,
  run_id      INTEGER REFERENCES runs(id) ON DELETE SET NULL,
  PRIMARY KEY (study_id, cell)
) WITHOUT ROWID;
CREATE INDEX study_cells_by_run ON study_cells(run_id);
)sql";

const char* const kSchemaVersion4 = R"sql(
CREATE TABLE study_jobs (
  id          INTEGER PRIMARY KEY,
  study_id    INTEGER NOT NULL REFERENCES studies(id) ON DELETE CASCADE,
  scheduler   TEXT NOT NULL,            -- 'slurm'
  job_id      TEXT NOT NULL,            -- as the scheduler printed it (sbatch --parsable)
  work_dir    TEXT NOT NULL,            -- job.json, the script, the tasks' shards
  tasks       INTEGER NOT NULL,
  options     TEXT NOT NULL DEFAULT '{}', -- JSON: partition, time, cpus per task, ...
  submitted   REAL NOT NULL
);
CREATE INDEX study_jobs_by_study ON study_jobs(study_id);
CREATE TABLE study_job_tasks (
  job         INTEGER NOT NULL REFERENCES study_jobs(id) ON DELETE CASCADE,
  task        INTEGER NOT NULL,         -- the array index
  cells       TEXT NOT NULL,            -- JSON array: the study cells it trains
  collected   REAL,                     -- when its shard was last merged
  shard_signature TEXT NOT NULL DEFAULT '', -- that shard's size and modification time
  PRIMARY KEY (job, task)
) WITHOUT ROWID;
)sql";

// Version 5: `runs` with AUTOINCREMENT, so the id of a deleted newest run is never given again.
// SQLite cannot add it to a table: the table is rebuilt (foreign keys off meanwhile, see
// migrate()) with its columns, rows and indexes as they were.
const char* const kSchemaVersion5 = R"sql(
CREATE TABLE runs_v5 (
  id          INTEGER PRIMARY KEY AUTOINCREMENT,
  experiment  TEXT NOT NULL,
  name        TEXT NOT NULL DEFAULT '',
  status      TEXT NOT NULL,
  config      TEXT NOT NULL,
  device      TEXT NOT NULL DEFAULT '',
  seed        INTEGER,
  created     REAL NOT NULL,
  started     REAL,
  finished    REAL,
  app_version TEXT NOT NULL DEFAULT '',
  build       TEXT NOT NULL DEFAULT '{}',
  notes       TEXT NOT NULL DEFAULT '',
  message     TEXT NOT NULL DEFAULT '',
  last_step   INTEGER NOT NULL DEFAULT 0,
  total_steps INTEGER NOT NULL DEFAULT 0,
  host        TEXT NOT NULL DEFAULT '',
  pid         INTEGER NOT NULL DEFAULT 0,
  pid_start   INTEGER NOT NULL DEFAULT 0,
  archived    INTEGER NOT NULL DEFAULT 0,
  config_hash TEXT NOT NULL DEFAULT '',
  uid         TEXT
);
INSERT INTO runs_v5(id, experiment, name, status, config, device, seed, created, started,
                    finished, app_version, build, notes, message, last_step, total_steps, host,
                    pid, pid_start, archived, config_hash, uid)
  SELECT id, experiment, name, status, config, device, seed, created, started, finished,
         app_version, build, notes, message, last_step, total_steps, host, pid, pid_start,
         archived, config_hash, uid FROM runs;
DROP TABLE runs;
ALTER TABLE runs_v5 RENAME TO runs;
CREATE INDEX runs_by_experiment ON runs(experiment, created);
CREATE INDEX runs_by_status ON runs(status);
CREATE INDEX runs_by_hash ON runs(config_hash);
CREATE UNIQUE INDEX runs_by_uid ON runs(uid);
)sql";

// Version 6: a run's verdicts as rows (typed, not parsed back from status text), and each
// snapshot's declared role.
const char* const kSchemaVersion6 = R"sql(
CREATE TABLE run_verdicts (
  run_id      INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  position    INTEGER NOT NULL,           -- the order the Runner stated them in
  source      TEXT NOT NULL,              -- 'experiment' | 'paper'
  subject     TEXT NOT NULL,              -- the judging snapshot, or the metric
  label       TEXT NOT NULL,              -- 'LEAKS', 'within paper', ...
  passed      INTEGER,                    -- 1, 0, or NULL when nothing to judge by
  detail      TEXT NOT NULL DEFAULT '',
  value       REAL,
  paper_mean  REAL,
  paper_std   REAL,
  preset      TEXT NOT NULL DEFAULT '',
  PRIMARY KEY (run_id, position)
) WITHOUT ROWID;
ALTER TABLE snapshots ADD COLUMN role TEXT NOT NULL DEFAULT 'series';
-- The only snapshots stored before roles were declared that are truths or predictions: the
-- Fourier head's densities (experiments/fourier_head/fourier_head_trial.cpp).
UPDATE snapshots SET role = 'truth'
  WHERE name IN ('pdf/true', 'pdf/true_grid', 'probe/true', 'probe/true_grid');
UPDATE snapshots SET role = 'prediction'
  WHERE name IN ('pdf/pred', 'pdf/pred_grid', 'probe/pred', 'probe/pred_grid');
)sql";

// Version 7: the batch mode a study first trained with ('auto', 'off', 'K'; '' for a study
// from an older build), so that resuming it trains the rest the same way: batched products add
// in another order, and a study's seeds are compared.
const char* const kSchemaVersion7 = R"sql(
ALTER TABLE studies ADD COLUMN batch TEXT NOT NULL DEFAULT '';
)sql";

// Version 8: whether the study made its cell's run (1) or took a run there was (0; NULL in a
// study from an older build, where a run made after the study reads as made by it). Said by
// the claim, not read from timestamps: a run trained by hand after a study was cancelled, then
// taken by its resume, read as the study's and went when the study was deleted.
const char* const kSchemaVersion8 = R"sql(
ALTER TABLE study_cells ADD COLUMN made_run INTEGER;
)sql";

std::string newUid() {
  static thread_local std::mt19937_64 rng{std::random_device{}() ^
                                          (static_cast<uint64_t>(std::random_device{}()) << 32)};
  static const char* const kHex = "0123456789abcdef";
  std::string uid;
  for (int part = 0; part < 2; ++part) {
    uint64_t bits = rng();
    for (int i = 0; i < 16; ++i, bits >>= 4) uid += kHex[bits & 15];
  }
  return uid;
}

namespace {

// Version 3 gives every existing run its uid and its config hash (computed here: SQL cannot).
void identifyExistingRuns(const Database& db) {
  auto read = db.prepare("SELECT id, experiment, config FROM runs");
  auto write = db.prepare("UPDATE runs SET uid = ?, config_hash = ? WHERE id = ?");
  while (read.step()) {
    const auto config = nlohmann::json::parse(read.text(2), nullptr, /*allow_exceptions=*/false);
    write.bind(1, newUid())
        .bind(2, config.is_object() ? configHash(read.text(1), config) : std::string())
        .bind(3, read.int64(0))
        .run();
  }
  db.exec("CREATE UNIQUE INDEX runs_by_uid ON runs(uid)");
}

constexpr const char* kApplicationMarker = "fourierlab";

int versionInsideTransaction(const Database& db) {
  auto hasMeta =
      db.prepare("SELECT count(*) FROM sqlite_master WHERE type='table' AND name='meta'");
  hasMeta.step();
  if (hasMeta.int64(0) == 0) {
    auto anyTable = db.prepare("SELECT count(*) FROM sqlite_master");
    anyTable.step();
    if (anyTable.int64(0) > 0)
      throw StoreError(db.path(), "is an SQLite database but not a FourierLab run store");
    return 0;
  }
  auto s = db.prepare("SELECT value FROM meta WHERE key = 'schema_version'");
  if (!s.step()) throw StoreError(db.path(), "has no schema version: not a FourierLab run store");
  // Read as text and checked: std::stoi would throw std::invalid_argument ('abc') or
  // std::out_of_range ('99999999999') past every store error handler.
  const std::string text = s.text(0);
  const bool digits = !text.empty() && text.size() <= 9 &&
                      text.find_first_not_of("0123456789") == std::string::npos;
  if (!digits)
    throw StoreError(db.path(),
                     "has a malformed schema version '" + text +
                         "' in its meta table: not a run store this FourierLab can read");
  return std::stoi(text);
}

void checkNotNewer(const Database& db, int version) {
  if (version > kSchemaVersion)
    throw StoreError(db.path(), "was written by a newer FourierLab (schema version " +
                                    std::to_string(version) + ", this build reads up to " +
                                    std::to_string(kSchemaVersion) +
                                    "); left untouched, upgrade FourierLab to open it");
}

}  // namespace

int readSchemaVersion(const Database& db) {
  const int version = versionInsideTransaction(db);
  checkNotNewer(db, version);
  return version;
}

namespace {

// Foreign keys off for the life of a migration, as they were afterwards. Version 5 drops the old
// `runs`: with them on, that would delete every run's tags, metrics, snapshots and artifacts
// (ON DELETE CASCADE). The pragma has no effect inside a transaction, hence outside it.
class ForeignKeysOff {
 public:
  explicit ForeignKeysOff(const Database& db) : m_db(db) {
    auto s = db.prepare("PRAGMA foreign_keys");
    m_wasOn = s.step() && s.int64(0) != 0;
    if (m_wasOn) db.exec("PRAGMA foreign_keys = OFF");
  }
  ~ForeignKeysOff() {
    try {
      if (m_wasOn) m_db.exec("PRAGMA foreign_keys = ON");
    } catch (...) {  // never from a destructor; the pragma cannot fail outside a transaction
    }
  }
  ForeignKeysOff(const ForeignKeysOff&) = delete;
  ForeignKeysOff& operator=(const ForeignKeysOff&) = delete;

 private:
  const Database& m_db;
  bool m_wasOn = false;
};

}  // namespace

void migrate(const Database& db) {
  if (readSchemaVersion(db) == kSchemaVersion) return;  // the common case: no write lock
  ForeignKeysOff foreignKeysOff(db);
  Transaction tx(db);
  const int from = readSchemaVersion(db);  // again, now that we hold the write lock
  if (from < 1) {
    db.exec(kSchemaVersion1);
    db.exec(std::string("INSERT INTO meta(key, value) VALUES ('application', '") +
            kApplicationMarker + "'), ('schema_version', '1')");
  }
  if (from < 2) {
    db.exec("ALTER TABLE runs ADD COLUMN archived INTEGER NOT NULL DEFAULT 0");
  }
  if (from < 3) {
    db.exec(kSchemaVersion3);
    identifyExistingRuns(db);
  }
  if (from < 4) {
    db.exec(kSchemaVersion4);
  }
  if (from < 5) {
    db.exec(kSchemaVersion5);
  }
  if (from < 6) {
    db.exec(kSchemaVersion6);
    recoverVerdictsOfExistingRuns(db);
  }
  if (from < 7) {
    db.exec(kSchemaVersion7);
  }
  if (from < 8) {
    db.exec(kSchemaVersion8);
  }
  db.exec("UPDATE meta SET value = '" + std::to_string(kSchemaVersion) +
          "' WHERE key = 'schema_version'");
  tx.commit();
}

}  // namespace fl::store
