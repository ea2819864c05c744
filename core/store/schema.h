// The run store's schema and its cumulative forward migrations.
//
// Version history (never edit a released step; add one):
//   1  runs, tags, series (one per run and metric key, with its summary), metrics, snapshots,
//      artifacts, meta(schema_version)
//   2  runs.archived: archived runs are hidden from the default listing
//   3  studies: studies (spec, creation time), study_cells (a study's expanded settings x seeds,
//      each linked to the run that trains it); runs.config_hash (a run's identity, so a config
//      and seed is trained once) and runs.uid (unique across stores, so merging shards is
//      idempotent)
//   4  study_jobs, study_job_tasks: a study's runs sent to a cluster (Slurm job id, work
//      folder, each array task's cells) and when each task's shard was last merged
//   5  runs.id AUTOINCREMENT: the id of a deleted newest run is never given again (the table
//      is rebuilt with its rows, ids and indexes as they were)
#pragma once

#include <string>

#include "core/store/sqlite_handle.h"

namespace fl::store {

constexpr int kSchemaVersion = 8;

// The DDL of version 1 alone: tests use it to write an old database and check the upgrade.
extern const char* const kSchemaVersion1;
// Version 3's step alone (after version 1's DDL and version 2's runs.archived): a v3 store.
extern const char* const kSchemaVersion3;

// Reads the version (0 for an empty database). Throws StoreError when the file is not a
// FourierLab store or is newer than this build (it is then left untouched).
int readSchemaVersion(const Database& db);

// A new run's uid: 32 random hex digits.
std::string newUid();

// Brings the database to kSchemaVersion in one transaction (BEGIN IMMEDIATE, so two processes
// creating the same fresh file at once serialise: the second finds it done).
void migrate(const Database& db);

}  // namespace fl::store
