// RunStore: every run FourierLab made, in one SQLite file (schema in schema.h). The CLI and the
// GUI read and edit runs through it; StoreSink writes a live run's events through it.
//
//   RunStore store(RunStore::defaultPath());           // creates or upgrades; may throw
//   int64_t id = store.createRun({"fourier-head", "", config, {"sweep"}});
//   for (const RunRecord& r : store.listRuns({})) ...
//
// Threading: one RunStore is one SQLite connection, used by one thread at a time. Open one per
// thread (the store writer opens its own for its thread, store_writer.h); WAL mode lets readers and
// the writer work at once. Errors are thrown as StoreError naming the file; nothing is half-written
// (every change is one transaction).
//
// Opening a file read-write first checks it (PRAGMA quick_check included) and refuses a foreign,
// newer, truncated or corrupt one, leaving it and its -wal byte-for-byte as they were.
//
// On open, runs left `running` by a process that is dead (same host, pid and start time gone)
// become `interrupted`, keeping everything written up to their last batch; the files in their
// folders that no row names (a `.partial` checkpoint, one written just before a kill, one
// superseded but not yet deleted) are removed, and so are the folders of deleted runs.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/engine/events.h"
#include "core/store/process_identity.h"
#include "core/store/sqlite_handle.h"

namespace fl::store {

struct MetricSummary {
  std::string key;
  int64_t count = 0;
  double last = 0;
  int64_t lastStep = 0;
  double min = 0;
  int64_t minStep = 0;
  double max = 0;
  int64_t maxStep = 0;
};

struct RunRecord {
  int64_t id = 0;
  std::string experiment;
  std::string name;
  RunStatus status = RunStatus::Queued;
  nlohmann::json config;
  std::string device;
  int64_t seed = 0;
  double created = 0;  // Unix seconds
  double started = 0;  // 0 when not yet
  double finished = 0;
  std::string appVersion;
  nlohmann::json build;
  std::string notes;
  std::string message;
  int64_t lastStep = 0;
  int64_t totalSteps = 0;
  bool archived = false;
  std::string uid;         // unique across stores: a run merged twice is stored once
  std::string configHash;  // equal for the same experiment, config and seed (config_hash.h)
  std::vector<std::string> tags;
  std::vector<MetricSummary> metrics;  // filled by listRuns and run()
  std::vector<Verdict> verdicts;       // a finished run's, filled by listRuns and run()
};

struct NewRun {
  std::string experiment;
  std::string name;
  nlohmann::json config;
  std::vector<std::string> tags;
  nlohmann::json build = nlohmann::json::object();
  // Its identityHash (config_hash.h); "" stores configHash of the config as it is.
  std::string configHash{};
};

// What a filter's text also names: a run's id ("ID", "#ID") or one setting's value
// ("seed=42", "head=linear"; a number compares as a number, true and false as JSON's booleans).
struct TextQuery {
  std::optional<int64_t> id;
  std::string key;  // empty: not KEY=VALUE
  std::string value;
  std::optional<double> number;
};
TextQuery parseTextQuery(const std::string& text);

// Whether `run` uses its setting `key` (setting_use.h answers it from the experiments).
using SettingUse = std::function<bool(const RunRecord& run, const std::string& key)>;

struct RunFilter {
  std::string experiment;
  std::optional<RunStatus> status;
  std::string tag;
  std::string tagPart;  // a tag holding this, any case (History's tag field: "sweep" finds sweepA)
  std::string text;     // matched against name, notes, experiment and text settings ("gmm"), and
                        // as parseTextQuery reads it: an id, or a setting's value
  bool includeArchived = false;
  bool onlyArchived = false;  // the archived runs alone (includeArchived then goes without saying)
  // Set: a KEY=VALUE of `text` finds only the runs that use KEY. Unset: any run holding it.
  SettingUse usesSetting;
};

struct MetricPoint {
  int64_t step = 0;
  double wall = 0;
  double value = 0;  // NaN when the run reported NaN
};

struct StoredSnapshot {
  int64_t step = 0;
  Snapshot snapshot;
};

struct Checkpoint {
  int64_t id = 0;
  int64_t step = 0;
  std::string path;  // absolute
  int64_t bytes = 0;
};

std::optional<RunStatus> parseRunStatus(const std::string& text);

// Why `text` cannot be stored as a run's `what` ("name", "notes"), or nothing: it is not UTF-8
// (JSON holds UTF-8 only, so one such name made every JSON listing of the store abort), or it
// holds a control character (notes may hold line breaks and tabs).
std::optional<std::string> textProblem(const std::string& text, const std::string& what);

// Why `tag` cannot be a tag, or nothing: not UTF-8, empty or blank, surrounded by spaces,
// holding a comma (lists join tags with ", ", so `a,b` would read as two) or a control
// character.
std::optional<std::string> tagProblem(const std::string& tag);

// Whether two tags are one: alike in any case of their ASCII letters, as the store and its
// filters compare them (SQLite's lower()). "keep me" beside "Keep Me" had been a second tag.
bool sameTag(const std::string& a, const std::string& b);

class RunStore {
 public:
  // $XDG_DATA_HOME/fourierlab/runs.db, or ~/.local/share/fourierlab/runs.db.
  static std::string defaultPath();

  // The file `path` names, absolute, as SQLite opens it: a symbolic link is followed to its
  // target, beside which SQLite writes the -wal and -shm. The store's own checks looked for
  // them beside the link, read the store as truncated, and refused a run's every write.
  static std::string resolvedPath(const std::string& path);

  // For a command that reads or edits runs that must already exist (`runs list`, `runs show`,
  // the GUI's --open): throws StoreError when there is no store at `path` (nothing is created:
  // no file, no folder) or the file is empty (left as it is; a new store is only ever made by
  // opening it to record a run).
  static void requireExisting(const std::string& path);

  // Whether this user may write the store at `path`: the file, and its folder or the -wal and
  // -shm files a writer needs beside it. A command that only reads opens a store it may not
  // write read-only, rather than refusing it.
  static bool writableByThisUser(const std::string& path);

  // Opens or creates the store; creates its folder when needed. readOnly never writes (no
  // migration, no marking of dead runs).
  // busyTimeoutMs: how long a write waits for another process's write lock before failing.
  // checkPages: read every page for corruption before the first write (PRAGMA quick_check,
  // ~0.3 s on a 60 MB store); a second connection of a process that already did skips it.
  explicit RunStore(const std::string& path, bool readOnly = false, int busyTimeoutMs = 5000,
                    bool checkPages = true);

  const std::string& path() const { return m_db.path(); }
  // Opened read-only: every write throws (the window then offers browsing only).
  bool isReadOnly() const { return m_readOnly; }
  // Why, as a clause after its path, where whoever opened it said ("cannot be written (no space
  // left for it)"); a store opened read-only without one is this user's to read only.
  void setReadOnlyBecause(std::string why) { m_readOnlyBecause = std::move(why); }
  std::string readOnlyBecause() const {
    return !m_readOnly                 ? std::string()
           : m_readOnlyBecause.empty() ? std::string("is read-only for this user")
                                       : m_readOnlyBecause;
  }
  // Changes when another connection (another process, this process's store writers) commits
  // to the file: a cheap test of whether what was read from it may be out of date.
  int64_t dataVersion() const;
  // The connection, for the study tables (core/study/study_store.h) that share this file.
  const Database& database() const { return m_db; }
  // Where checkpoints and other files of run `id` live: <db>.files/run-<id>/.
  std::string artifactFolder(int64_t runId) const;
  // The same for the store at `storePath`, for code that has not opened it (a test looking in).
  static std::string artifactFolderOf(const std::string& storePath, int64_t runId);
  // What `path` is among the own files of the store at `storePath` ("the run store itself",
  // its write-ahead log, a file in its folder of checkpoints), or "" where it is none: an
  // export written there would overwrite the runs it exports.
  static std::string ownFileOf(const std::string& storePath, const std::string& path);
  // Throws std::invalid_argument naming `path` and what it is when it is one of those files;
  // `what` says what would be written ("the export").
  static void refuseOwnFile(const std::string& storePath, const std::string& path,
                            const std::string& what);

  // --- runs
  // Ids are never reused, even after the newest run is deleted (AUTOINCREMENT, schema version 4).
  // Throws std::invalid_argument for a tag tagProblem() refuses (names and notes: textProblem).
  int64_t createRun(const NewRun& run);
  // The same inside a transaction the caller holds (a study claims a setting and creates its
  // run in one).
  int64_t insertRun(const NewRun& run);
  std::optional<RunRecord> run(int64_t id) const;
  std::vector<RunRecord> listRuns(const RunFilter& filter = {}) const;
  // How many runs an unfiltered listing holds (every run not archived), without reading them.
  int64_t listedRunCount() const;
  std::vector<std::string> experimentNames() const;  // distinct, sorted
  void rename(int64_t id, const std::string& name);
  void setNotes(int64_t id, const std::string& notes);
  void addTags(int64_t id, const std::vector<std::string>& tags);  // checked as createRun
  void removeTag(int64_t id, const std::string& tag);
  void setArchived(int64_t id, bool archived);
  // Deletes the runs with their metrics, snapshots, artifacts and files. Returns how many.
  int deleteRuns(const std::vector<int64_t>& ids);

  // --- verdicts judged again by a newer build (core/engine/paper_verdict_restate.h)
  // The value the store's meta table holds under `key`, or "" where it holds none.
  std::string metaValue(const std::string& key) const;
  // How many verdicts of this source the store's runs hold.
  int64_t verdictCount(VerdictSource source) const;
  struct RestatedRun {
    int64_t id = 0;
    std::string message;
    std::vector<Verdict> verdicts;
  };
  // Replaces these runs' status messages and verdicts and sets meta `key` to `value`, in one
  // transaction: every run is restated, or none is.
  void restateVerdicts(const std::vector<RestatedRun>& runs, const std::string& key,
                       const std::string& value);

  // --- a live run (StoreSink)
  // `batchSize` > 0 records how it trains this time among its batch sizes (run_batching.h);
  // `totalSteps` 0 keeps the length stored (a run's progress gives it).
  void markRunning(int64_t id, const std::string& device, int64_t totalSteps,
                   const ProcessIdentity& writer, int batchSize = 0);
  // Throws StoreError when there is no run `id` (deleted meanwhile).
  void finishRun(int64_t id, RunStatus status, const std::string& message);
  // The run's status, message and end time as `before` holds them: a resume that changed
  // nothing of it (refused) leaves it as it was.
  void restoreEnd(const RunRecord& before);
  // Writes one batch of events in one transaction: metrics (and their summaries), snapshots,
  // progress, status changes and checkpoints (probe answers are not history: skipped). The files
  // of checkpoints the batch marks removed are deleted after the commit, not before.
  void writeEvents(int64_t id, const std::vector<Event>& events);
  // The batches of several runs in one transaction (the store writer flushes every live run of
  // the process at once): all are written or none.
  struct RunEvents {
    int64_t runId = 0;
    const std::vector<Event>* events = nullptr;
  };
  void writeEvents(const std::vector<RunEvents>& runs);
  void addCheckpoint(int64_t id, int64_t step, const std::string& path);
  void removeCheckpoint(int64_t checkpointId);  // its row, then its file (not in a transaction)
  std::vector<Checkpoint> checkpoints(int64_t id) const;  // by step
  // Deletes the files in run `id`'s folder that no artifact row names. Only for a run no
  // process is writing (finished, interrupted, or about to be resumed by the caller).
  void removeStrayFiles(int64_t id);

  // Resume: drops every metric and snapshot after `step`, recomputes the summaries.
  void truncateAfter(int64_t id, int64_t step);
  // The run's wall time when it had taken `step` steps: the latest metric's, 0 when none. A
  // resumed run's clock continues from here, so its wall times keep counting up.
  double wallSecondsAt(int64_t id, int64_t step) const;

  // --- reading a run's history
  std::vector<std::string> metricKeys(int64_t id) const;
  std::vector<MetricPoint> metric(int64_t id, const std::string& key) const;
  std::vector<std::string> snapshotNames(int64_t id) const;
  // All stored steps of one snapshot name, or only the latest when latestOnly.
  std::vector<StoredSnapshot> snapshots(int64_t id, const std::string& name,
                                        bool latestOnly = false) const;

  // Runs left running or queued by a process of this host that is gone (a kill -9) read
  // interrupted, with why; their stray files go. Done at every read-write open; a window
  // watching the store asks again, as a process can die while it looks. Returns their ids.
  std::vector<int64_t> markDeadRunsInterrupted();
  // Those marked so when this store was opened: a window's crash (a kill -9, a power cut) left
  // its runs `running`, and the next window opened on an empty dock without a word of them.
  const std::vector<int64_t>& interruptedAtOpen() const { return m_interruptedAtOpen; }

  int schemaVersion() const;
  // PRAGMA integrity_check: "ok" or the problems found.
  std::string integrityCheck() const;

 private:
  void configureConnection(int busyTimeoutMs);
  void enableWal();
  void removeFoldersOfDeletedRuns();
  RunRecord readRun(Statement& s) const;
  // Each tag the run does not hold in any case yet, inside the caller's transaction.
  void insertTags(int64_t id, const std::vector<std::string>& tags);
  void attachTagsAndSummaries(std::vector<RunRecord>& runs) const;
  // One run's events, inside the caller's transaction.
  void writeBatch(int64_t id, const std::vector<Event>& events,
                  std::vector<std::string>& supersededFiles);
  // A checkpoint written (its row added) or superseded (its row forgotten now, its file
  // listed for deletion after the commit).
  void writeCheckpointEvent(int64_t id, const CheckpointEvent& c,
                            std::vector<std::string>& supersededFiles);
  std::string forgetCheckpoint(int64_t checkpointId);  // deletes the row; returns its file
  // resolveStoredArtifact and isInsideFilesOf (core/store/artifact_paths.h) for this store.
  std::string resolveArtifact(const std::string& stored) const;
  bool isOwnArtifact(const std::string& file) const;
  int64_t seriesId(int64_t runId, const std::string& key);
  struct MetricRow {
    int64_t series;
    int64_t step;
    double wall;
    double value;
  };
  void insertMetricRows(std::vector<MetricRow>& rows);

  // Declared before m_db: opening m_db sets it when the pages were checked on the way.
  bool m_pagesChecked = false;
  Database m_db;
  bool m_readOnly;
  std::vector<int64_t> m_interruptedAtOpen;
  std::string m_readOnlyBecause;
  std::map<std::pair<int64_t, std::string>, int64_t> m_seriesIds;  // cache for writers
};

}  // namespace fl::store
