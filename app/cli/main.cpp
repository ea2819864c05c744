// fourierlab-cli: runs FourierLab's experiments headless, for sweeps and paper reproductions,
// and browses the run store. The composition root of the command line: builds the registry,
// parses, dispatches.
#include <CLI/CLI.hpp>

#include <optional>

#include "app/cli/checked_output.h"
#include "app/cli/commands.h"
#include "app/cli/option_checks.h"
#include "app/cli/sweep_options.h"
#include "app/cli/unknown_subcommand.h"
#include "core/engine/interrupt_signals.h"
#include "core/engine/openmp_wait_policy.h"
#include "core/engine/write_failure_signals.h"
#include "experiments/builtin_experiments.h"
#include "fourierlab/version.h"

namespace {

// `run EXPERIMENT`: one run, its options into runArgs.
CLI::App* addRunCommand(CLI::App& app, fl::cli::RunArgs& runArgs) {
  auto* run = app.add_subcommand("run",
                                 "Run one experiment, record it in the run store, report "
                                 "its final metrics (one run: batched training, --batch, "
                                 "is for the many runs of `sweep run`)");
  run->add_option("experiment", runArgs.experiment, "Experiment name (see `list`)");
  run->add_option("--preset", runArgs.preset, "Start from a named preset");
  run->add_option("--set", runArgs.assignments, "Override a parameter: KEY=VALUE (repeatable)")
      ->allow_extra_args(false);
  run->add_option("--device", runArgs.device, "auto | cpu | cuda | cuda:N (same as --set device=)")
      ->check(fl::cli::nonEmpty("auto, cpu, cuda or cuda:N"));
  run->add_option("--threads", runArgs.threads,
                  "Intra-op CPU threads (0: the thread budget: 1 for tiny models, else the cores)")
      ->check(fl::cli::wholeNumberIn(0, 1024));
  run->add_flag("--json", runArgs.json, "Print a JSON summary as the last line of stdout");
  fl::cli::addStoreOption(run, runArgs.db);
  run->add_option("--name", runArgs.name, "A name for the run (with --resume: its new name)")
      ->check(fl::cli::nonEmpty("a name, or leave --name out"));
  run->add_option("--tag", runArgs.tags, "Tag the run (repeatable)")->allow_extra_args(false);
  run->add_option("--resume", runArgs.resume,
                  "Continue interrupted, cancelled or failed run ID from its last checkpoint")
      ->check(fl::cli::storeId());
  return run;
}

// `runs list|show|export|tag|untag|note|rename|delete|archive|unarchive|compare`, into runsArgs.
CLI::App* addRunsCommand(CLI::App& app, fl::cli::RunsArgs& runsArgs) {
  auto* runs = app.add_subcommand("runs", "Browse and edit the run store");
  runs->require_subcommand(1);
  fl::cli::addStoreOption(runs, runsArgs.db);
  // `runs list --db PATH` as well as `runs --db PATH list`: a subcommand hands the options it
  // does not know (here --db) back to `runs`.
  runs->fallthrough();
  auto* runsList = runs->add_subcommand("list", "All runs with their final metrics");
  runsList->add_option("--experiment", runsArgs.experiment, "Only this experiment");
  runsList->add_option("--status", runsArgs.status, "Only runs with this status");
  runsList->add_option("--tag", runsArgs.tag, "Only runs with this tag");
  runsList->add_option(
      "--text", runsArgs.text,
      "Only runs whose name, notes, experiment or a text setting (gmm) contain it, the run of "
      "that id (43, #43), or the runs with that setting (seed=42, head=linear)");
  auto* all = runsList->add_flag("--all", runsArgs.all, "Include archived runs");
  runsList->add_flag("--archived", runsArgs.archived, "Only archived runs")->excludes(all);
  runsList->add_flag("--json", runsArgs.json, "Print a JSON array");
  auto* show =
      runs->add_subcommand("show", "Config, status, timings, metric summaries, tags, notes");
  show->add_option("id", runsArgs.id, "Run id")->required()->check(fl::cli::storeId());
  show->add_flag("--json", runsArgs.json, "Print as JSON");
  auto* exportRuns = runs->add_subcommand("export", "Metrics (long format) and snapshots");
  exportRuns->add_option("ids", runsArgs.ids, "Run ids")->required()->check(fl::cli::storeId());
  exportRuns->add_option("--format", runsArgs.format, "csv or json")
      ->transform(CLI::IsMember({"csv", "json"}, CLI::ignore_case));
  exportRuns->add_option("--out", runsArgs.out, "Output file (default: stdout)")
      ->check(fl::cli::nonEmpty("a file, or leave --out out for stdout"));
  auto* tag = runs->add_subcommand("tag", "Add tags to a run");
  tag->add_option("id", runsArgs.id, "Run id")->required()->check(fl::cli::storeId());
  tag->add_option("tags", runsArgs.words, "Tags")->required();
  auto* untag = runs->add_subcommand("untag", "Remove tags from a run");
  untag->add_option("id", runsArgs.id, "Run id")->required()->check(fl::cli::storeId());
  untag->add_option("tags", runsArgs.words, "Tags")->required();
  auto* note = runs->add_subcommand("note", "Set a run's notes");
  note->add_option("id", runsArgs.id, "Run id")->required()->check(fl::cli::storeId());
  note->add_option("text", runsArgs.value, "The notes")->required();
  auto* rename = runs->add_subcommand("rename", "Rename a run");
  rename->add_option("id", runsArgs.id, "Run id")->required()->check(fl::cli::storeId());
  // A blank name is most likely an unset shell variable ("$NAME"): refused, as `run --name` is.
  rename->add_option("name", runsArgs.value, "The new name")
      ->required()
      ->check(fl::cli::nonEmpty("a name"));
  auto* remove =
      runs->add_subcommand("delete", "Delete runs with their metrics, snapshots and files");
  remove->add_option("ids", runsArgs.ids, "Run ids")->required()->check(fl::cli::storeId());
  remove->add_flag("--yes,-y", runsArgs.yes,
                   "Delete without asking (it asks only when its input is a terminal)");
  auto* archive = runs->add_subcommand("archive", "Hide runs from the default listing");
  archive->add_option("ids", runsArgs.ids, "Run ids")->required()->check(fl::cli::storeId());
  auto* unarchive = runs->add_subcommand("unarchive", "List archived runs again");
  unarchive->add_option("ids", runsArgs.ids, "Run ids")->required()->check(fl::cli::storeId());
  auto* compare =
      runs->add_subcommand("compare", "Config differences and final metrics side by side");
  compare->add_option("ids", runsArgs.ids, "Run ids (two or more)")
      ->required()
      ->check(fl::cli::storeId());
  compare->add_flag("--json", runsArgs.json, "Print as JSON");
  return runs;
}

// Whether the command trains in this process: `run`, `sweep work` (a Slurm task's runs) and
// `sweep run|resume` without --slurm (with it they only submit the runs).
bool trainsHere(const CLI::App& run, CLI::App& sweep, const fl::cli::SweepArgs& sweepArgs) {
  const bool sweepTrainsHere =
      sweep.got_subcommand("work") ||
      ((sweep.got_subcommand("run") || sweep.got_subcommand("resume")) && !sweepArgs.slurm);
  return run || (sweep && sweepTrainsHere);
}

}  // namespace

int main(int argc, char** argv) {
  fl::InterruptSignals::holdUntilHandled();  // first: before any thread exists
  fl::letWritesFailInsteadOfKilling();
  fl::ExperimentRegistry registry;
  fl::registerBuiltinExperiments(registry);

  CLI::App app{
      "FourierLab headless runner: train Fourier-structured layers without the GUI.\n"
      "Exit codes: 0 finished, 1 run failed, 2 bad usage or config (nothing stored),\n"
      "3 run store or file error (e.g. a full disk; the message names the file),\n"
      "4 Slurm's sbatch refused a stored study's job (nothing submitted),\n"
      "5 sbatch answered without a job id (the job may be queued, unrecorded),\n"
      "130/143/129 cancelled cleanly by SIGINT (Ctrl-C) / SIGTERM (kill, timeout,\n"
      "a cluster's preemption) / SIGHUP (terminal closed): checkpoint saved, resumable."};
  app.set_version_flag("--version", FOURIERLAB_VERSION);
  app.require_subcommand(1);

  bool listJson = false;
  auto* list = app.add_subcommand("list", "Experiments, their parameters and presets");
  list->add_flag("--json", listJson, "Print as JSON");
  bool devicesJson = false;
  auto* devices = app.add_subcommand("devices", "Where this machine can train (--device values)");
  devices->add_flag("--json", devicesJson, "Print as JSON");

  fl::cli::RunArgs runArgs;
  auto* run = addRunCommand(app, runArgs);

  fl::cli::RunsArgs runsArgs;
  auto* runs = addRunsCommand(app, runsArgs);

  fl::cli::SweepArgs sweepArgs;
  auto* sweep = fl::cli::addSweepCommand(app, sweepArgs);

  if (const auto empty = fl::cli::emptyAfterEquals(argc, argv)) {
    std::fprintf(stderr, "error: %s\n", empty->c_str());
    return fl::cli::kExitBadUsage;
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (auto typo = fl::cli::unknownSubcommand(app); !typo.empty()) {
      std::fprintf(stderr, "error: %s\n", typo.c_str());
      return fl::cli::kExitBadUsage;
    }
    // --help and --version print to stdout too: checked as every command's output is.
    return fl::cli::withCheckedOutput([&] {
      const int code = app.exit(e);
      return code == 0 ? 0 : fl::cli::kExitBadUsage;
    });
  }
  // The commands that train start again with OpenMP's passive wait policy (see its header).
  const bool trains = trainsHere(*run, *sweep, sweepArgs);
  // A command that trains handles SIGINT, SIGTERM and SIGHUP from here on (its own
  // InterruptSignals share this one's flag); any other takes them as it always did.
  std::optional<fl::InterruptSignals> interruptSignals;
  if (trains) {
    fl::ensurePassiveOpenMpWait(argv);
    interruptSignals.emplace();
  } else {
    fl::InterruptSignals::releaseHeld();
  }
  const int exitCode = fl::cli::withCheckedOutput([&]() -> int {
    if (*list) return fl::cli::listCommand(registry, listJson);
    if (*devices) return fl::cli::devicesCommand(devicesJson);
    if (*run) {
      runArgs.presetGiven = run->get_option("--preset")->count() > 0;
      if (runArgs.experiment.empty() && runArgs.resume == 0) {
        std::fprintf(stderr, "error: run needs an EXPERIMENT (or --resume ID)\n");
        return fl::cli::kExitBadUsage;
      }
      return fl::cli::runCommand(registry, runArgs);
    }
    if (*sweep) {
      sweepArgs.action = sweep->get_subcommands().front()->get_name();
      return fl::cli::sweepCommand(registry, sweepArgs);
    }
    runsArgs.action = runs->get_subcommands().front()->get_name();
    if (runsArgs.id != 0) runsArgs.ids = {runsArgs.id};
    return fl::cli::runsCommand(registry, runsArgs);
  });
  // The work is done and its exit code decided: a signal now is not a request to stop it.
  if (trains) fl::InterruptSignals::ignoreAfterWork();
  return exitCode;
}
