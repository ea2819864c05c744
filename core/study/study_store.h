// StudyStore: the study tables of a run store (schema version 3): a study's spec and its
// cells, each cell one setting x seed linked to the run that trains it. Every run of a study is
// an ordinary run; the cell adds its study, arm and axis values.
//
//   store::RunStore runs(path);
//   StudyStore studies(runs);
//   int64_t id = studies.create(spec, expandStudy(experiment, spec));
//   auto claim = studies.claim(id, cell);   // safe against a second process on the same study
//
// Threading: as RunStore (one connection, one thread at a time). Claims are transactions
// (BEGIN IMMEDIATE), so two processes resuming one study never train one cell twice.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/engine/study_spec.h"
#include "core/store/run_store.h"
#include "core/study/study_aggregate.h"
#include "core/study/study_expansion.h"

namespace fl::study {

// A study as a whole: finished when every cell finished; running while any cell's run trains or
// waits; else incomplete.
enum class StudyStatus { Finished, Running, Incomplete };

std::string toString(StudyStatus status);  // "finished", "running", "incomplete"

struct StudyRecord {
  int64_t id = 0;
  std::string uid;
  std::string name;
  std::string experiment;
  StudySpec spec;
  double created = 0;
  std::string notes;
  // The batch mode it first trained with ("auto", "off", "8"; see run_groups.h), empty until
  // then and for a study of an older build.
  std::string batch;
  int64_t cells = 0;
  StatusCounts<int64_t> statusCounts;  // cells by status
  // Why its stored spec cannot be read (a damaged row), its spec then empty; list() only: one
  // such row made every listing of the store fail.
  std::string unreadable;

  StudyStatus status() const;
};

// What a process may do with one cell, decided in one transaction.
struct CellClaim {
  enum class Kind {
    Done,              // its run finished (here or in another study with the same config)
    RunningElsewhere,  // another live process trains it
    Fresh,             // a new run, created and marked running for this process
    Resume,            // an interrupted or cancelled run with a checkpoint, now ours
    Restart,           // a failed run or one without a checkpoint: trained again from step 0
  };
  Kind kind = Kind::Done;
  int64_t runId = 0;
  std::optional<store::Checkpoint> checkpoint;  // Resume
  std::optional<RunStatus> previousStatus;      // Resume / Restart: what it was, if its run exists
};

class StudyStore {
 public:
  explicit StudyStore(store::RunStore& runs) : m_runs(runs) {}

  // Stores the study and its cells; a cell whose config (and seed) some finished run already
  // trained is linked to that run at once. Returns the id.
  int64_t create(const StudySpec& spec, const StudyExpansion& expansion);
  // The study whose spec is exactly this one, if stored (running it again resumes it).
  std::optional<int64_t> findSameSpec(const StudySpec& spec) const;
  // The finished run a study's cell of this config hash is linked to at once, if any: the
  // first of the same experiment, config and seed.
  std::optional<int64_t> finishedRunOf(const std::string& experiment,
                                       const std::string& configHash) const;

  std::optional<StudyRecord> study(int64_t id) const;
  std::vector<StudyRecord> list() const;
  // Every cell with its run's status and final metrics, in expansion order.
  std::vector<StudyRunResult> results(int64_t id) const;
  // The cells whose run has not finished, in expansion order.
  std::vector<int64_t> unfinishedCells(int64_t id) const;
  nlohmann::json cellConfig(int64_t id, int64_t cell) const;

  CellClaim claim(int64_t id, int64_t cell);

  // Records the batch mode the study trains with (BatchMode::argument()) where none is
  // recorded yet: the first one stays.
  void recordFirstBatchMode(int64_t id, const std::string& batch);

  // The runs remove(id, true) deletes: those the study trained (not the runs made before it
  // that it took as they were: the user's own, a pinned baseline) that no other study uses.
  std::vector<int64_t> runsOnlyItTrained(int64_t id) const;
  // Deletes the study; with `withRuns`, also runsOnlyItTrained (and their files). Returns the
  // number of runs deleted.
  int remove(int64_t id, bool withRuns);

  // The name each study run without a name would have been given when its study created it
  // (studyRunName), by run id: runs stored before studies named their runs, or renamed to "".
  // The store is left as it is; the History shows these names.
  std::map<int64_t, std::string> namesOfUnnamedRuns() const;

  // The study and axis values of a run, for `runs show`: "" when it belongs to none.
  std::vector<std::pair<int64_t, nlohmann::json>> studiesOfRun(int64_t runId) const;

 private:
  store::RunStore& m_runs;
};

std::string specHash(const StudySpec& spec);

}  // namespace fl::study
