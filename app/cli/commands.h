// The fourierlab-cli subcommands. Each returns the process exit code; main() only parses.
#pragma once

#include <string>
#include <vector>

#include "core/engine/registry.h"

namespace fl::cli {

// Exit codes, as documented in the README and `fourierlab-cli --help`.
enum ExitCode : int {
  kExitOk = 0,
  kExitRunFailed = 1,
  kExitBadUsage = 2,  // bad arguments or config: the message names the key
  kExitStoreError = 3,
  // Slurm's sbatch refused a study's job after the study was stored: nothing was submitted, and
  // `sweep resume --slurm` submits it again (it read as bad usage, "nothing stored").
  kExitSchedulerRefused = 4,
  // sbatch answered without a job id: the job may be queued, unrecorded (`squeue --me`).
  kExitSchedulerUnclear = 5,
  // A clean cancel (checkpoint saved, resumable) after a signal: 128 + its number.
  kExitHangup = 129,      // SIGHUP: the terminal closed
  kExitCancelled = 130,   // SIGINT: Ctrl-C
  kExitTerminated = 143,  // SIGTERM: kill, timeout, a cluster's preemption
};

struct RunArgs {
  std::string db;  // empty: RunStore::defaultPath()
  std::string experiment;
  std::string preset;
  bool presetGiven = false;              // --preset was given (an empty name is refused)
  std::vector<std::string> assignments;  // --set KEY=VALUE, in order
  std::string device;                    // --device, applied after the assignments
  bool json = false;
  int threads = 0;
  std::string name;
  std::vector<std::string> tags;
  int64_t resume = 0;  // continue this run id from its last checkpoint
};

struct RunsArgs {
  std::string db;
  std::string action;  // list, show, export, tag, note, rename, delete, archive, unarchive, compare
  std::vector<int64_t> ids;
  int64_t id = 0;                  // commands on one run
  std::vector<std::string> words;  // tags
  std::string value;               // the note, the new name
  std::string experiment, status, tag, text;
  bool all = false;       // list: include archived runs
  bool archived = false;  // list: only archived runs
  bool json = false;
  std::string format;  // export: csv | json (default: from --out's name, else csv)
  std::string out;
  bool yes = false;  // delete: without asking on a terminal
};

// `sweep ...`: studies (core/study). One struct for every sweep subcommand.
struct SweepArgs {
  std::string db;
  std::string action;  // run, resume, list, show, table, plot, export, delete, work, status,
                       // collect
  int64_t id = 0;
  // run: the study, from a built-in one, a file, or the command line (on top of either).
  std::string experiment;
  std::string study;      // --study NAME (built-in)
  std::string studyFile;  // --study-file PATH
  std::string preset;
  std::string name;
  std::vector<std::string> assignments;  // --set KEY=VALUE
  std::vector<std::string> grid;         // --grid KEY=V1,V2,...
  std::vector<std::string> zip;          // --zip KEY=V1,V2,KEY2=W1,W2
  std::string seeds;                     // --seeds 1,2,3,42
  bool dryRun = false;
  // run / resume: the thread budget
  int parallel = 0;
  int threads = 0;
  std::string device;
  // --batch auto | off | K (study::parseBatchMode); empty when not given: a study then trains
  // with the mode it first trained with, a new one with auto (askedBatchMode).
  std::string batch;
  // table
  std::vector<std::string> metrics;
  std::string rows, cols;
  std::string format;  // table: md | csv | json; export: csv | json
  // plot
  std::string x, group, panel, band, figure, out;
  std::vector<std::string> where;  // KEY=VALUE
  int width = 0, height = 0;
  // run / resume --slurm: a Slurm job array (core/cluster/slurm_job.h)
  bool slurm = false;
  std::string partition, time, mem, workDir, scratch;
  int cpusPerTask = 1;
  int maxParallel = 0;
  int tasks = 0;
  // work: one array task (WORK DIR, its task number)
  int task = -1;
  // delete
  bool keepRuns = false;
  bool yes = false;  // delete: without asking on a terminal
  bool json = false;
};

int listCommand(const ExperimentRegistry& registry, bool json);
int devicesCommand(bool json);
int runCommand(const ExperimentRegistry& registry, const RunArgs& args);
int runsCommand(const ExperimentRegistry& registry, const RunsArgs& args);
int sweepCommand(const ExperimentRegistry& registry, const SweepArgs& args);

}  // namespace fl::cli
