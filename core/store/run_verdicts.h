// The run_verdicts table (schema version 4): a finished run's verdicts as rows, written with its
// terminal status and read with the run, so lists colour a run by its typed verdicts instead of
// parsing its status message.
//
//   writeVerdicts(db, runId, status.verdicts);        // inside the caller's transaction
//   std::vector<Verdict> v = readVerdicts(db, runId);
//
// Threading: as the Database it is given (one thread at a time).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "core/engine/verdict.h"
#include "core/store/sqlite_handle.h"

namespace fl::store {

// Table and column names.
inline constexpr const char* kVerdictsTable = "run_verdicts";

// Replaces the run's verdicts (a terminal status always does: a cancelled run has none).
void writeVerdicts(const Database& db, int64_t runId, const std::vector<Verdict>& verdicts);
std::vector<Verdict> readVerdicts(const Database& db, int64_t runId);
// The verdicts of every run with an id in [firstId, lastId], in their written order.
std::map<int64_t, std::vector<Verdict>> readVerdicts(const Database& db, int64_t firstId,
                                                     int64_t lastId);

// Upgrading a version-3 store: the verdicts its runs stated before they were typed. The
// experiment's from each run's latest snapshot that carries one (its meta says whether it
// passed); the paper's from the sentences the Runner wrote into finished runs' messages
// ("test/kl 0.160 vs paper 0.146 ± 0.033: within the paper's spread"). Run once, inside the
// migration's transaction.
void recoverVerdictsOfExistingRuns(const Database& db);

// One sentence of a version-3 message as a paper verdict; false when it is not one.
bool parsePaperSentence(const std::string& sentence, Verdict& out);

}  // namespace fl::store
