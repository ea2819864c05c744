#include "app/cli/sweep_options.h"

#include "app/cli/option_checks.h"

#include "core/study/run_groups.h"

namespace fl::cli {

namespace {

void addBudget(CLI::App* c, SweepArgs& a) {
  c->add_option("--parallel", a.parallel,
                "Runs trained at once (default: the thread budget: cores / threads per run)")
      ->check(wholeNumberIn(1, 1024));
  c->add_option("--threads", a.threads,
                "Intra-op threads per run (default: 1 for tiny models or many runs)")
      ->check(wholeNumberIn(1, 1024));
  c->add_option("--device", a.device, "auto | cpu | cuda | cuda:N for every run of the study")
      ->check(nonEmpty("auto, cpu, cuda or cuda:N"));
}

// Batched training: here, or with --slurm in each array task (`sweep work`).
void addBatch(CLI::App* c, SweepArgs& a) {
  c->add_option("--batch", a.batch,
                "auto | off | K: train runs whose shapes agree as one group, K runs at most "
                "(auto: up to 32, spread over the cores); each run is still stored on its own. "
                "Default: the mode the study first trained with, auto for a new one. "
                "Experiments without batched training run one by one (see README: Batched "
                "studies)")
      ->check(CLI::Validator(
          [](std::string& text) {
            std::string error;
            return study::parseBatchMode(text, &error) ? std::string() : error;
          },
          "auto|off|K", "batch mode"));
}

void addSlurm(CLI::App* c, SweepArgs& a) {
  c->add_flag("--slurm", a.slurm,
              "Send the runs to a Slurm cluster as a job array instead of training them here "
              "(see README: Studies on a Slurm cluster)");
  c->add_option("--partition", a.partition, "--slurm: the partition (default: the cluster's)");
  c->add_option("--time", a.time, "--slurm: each task's time limit, HH:MM:SS or D-HH:MM:SS");
  c->add_option("--cpus-per-task", a.cpusPerTask,
                "--slurm: CPUs of each task, its thread budget (default 1)")
      ->check(wholeNumberIn(1, 1024));
  c->add_option("--mem", a.mem, "--slurm: memory of each task, e.g. 4G");
  c->add_option("--max-parallel", a.maxParallel, "--slurm: at most this many tasks at once")
      ->check(wholeNumberIn(1, 100000));
  c->add_option("--tasks", a.tasks,
                "--slurm: array tasks, the runs dealt among them (default: one per run; "
                "batched, one per group of runs that train together)")
      ->check(wholeNumberIn(1, 1000));
  c->add_option("--work-dir", a.workDir,
                "--slurm: the job's folder, seen by the nodes and by `sweep collect` (default: "
                "beside the store, STORE.slurm/STUDY-HASH/job-N)");
  c->add_option("--scratch", a.scratch,
                "--slurm: the nodes' folder for shards while they train (default: "
                "$SLURM_TMPDIR, $TMPDIR or /tmp)");
}

void addId(CLI::App* c, SweepArgs& a) {
  c->add_option("id", a.id, "Study id (see `sweep list`)")->required()->check(storeId());
}

// `sweep run`: a study from the experiment's, a file or the axes given, then its training.
void addRunCommand(CLI::App* sweep, SweepArgs& a) {
  auto* run = sweep->add_subcommand(
      "run", "Expand a study (built-in, from a file, or --grid/--zip/--seeds) and train it");
  run->add_option("experiment", a.experiment, "Experiment name (see `list`)");
  run->add_option("--study", a.study, "A built-in study of the experiment (see `list`)")
      ->check(nonEmpty("a study the experiment declares (see `list`)"));
  run->add_option("--study-file", a.studyFile, "A study as a JSON file (see README: Studies)")
      ->check(nonEmpty("the path of a study file"));
  run->add_option("--preset", a.preset, "Start every run from this preset")
      ->check(nonEmpty("a preset of the experiment (see `list`)"));
  run->add_option("--set", a.assignments, "Fix a parameter for every run: KEY=VALUE (repeatable)")
      ->allow_extra_args(false);
  run->add_option("--grid", a.grid,
                  "An axis: KEY=V1,V2,... or KEY=FIRST,SECOND,...,LAST (repeatable: the cartesian "
                  "product)")
      ->allow_extra_args(false);
  run->add_option("--zip", a.zip, "Axes that vary together: KEY=V1,V2,KEY2=W1,W2 (repeatable)")
      ->allow_extra_args(false);
  run->add_option("--seeds", a.seeds,
                  "Seeds of every setting: 1,2,3,42 (mean and spread over them)")
      ->check(nonEmpty("seeds such as 1,2,3,42 or 1,2,...,10"));
  run->add_option("--name", a.name, "A name for the study")
      ->check(nonEmpty("a name, or leave --name out"));
  run->add_flag("--dry-run", a.dryRun,
                "Print the runs and the spec (with --slurm: the batch script); train, store and "
                "submit nothing");
  addBudget(run, a);
  addBatch(run, a);
  addSlurm(run, a);
}

// `sweep resume`: what a stopped study still has to train.
void addResumeCommand(CLI::App* sweep, SweepArgs& a) {
  auto* resume = sweep->add_subcommand(
      "resume", "Finish a study: keep finished runs, resume interrupted ones, rerun failed ones");
  addId(resume, a);
  addBudget(resume, a);
  addBatch(resume, a);
  addSlurm(resume, a);
}

// `sweep status`, `collect` and `work`: a study's Slurm job, seen from the user and from a task.
void addClusterCommands(CLI::App* sweep, SweepArgs& a) {
  auto* status = sweep->add_subcommand(
      "status", "The state of a study's Slurm tasks: queued, running, done or failed");
  addId(status, a);
  status->add_flag("--json", a.json, "Print as JSON");

  auto* collect = sweep->add_subcommand(
      "collect", "Merge the shards the study's Slurm tasks published into the store");
  addId(collect, a);
  collect->add_flag("--json", a.json, "Print what was merged as JSON");

  auto* work = sweep->add_subcommand(
      "work", "One task of a Slurm job (its batch script runs this): train its runs into a shard");
  work->add_option("work-dir", a.workDir, "The job's folder (job.json)")->required();
  work->add_option("--task", a.task, "The array task (default: $SLURM_ARRAY_TASK_ID)")
      ->check(wholeNumberIn(0, 100000));
  work->add_option("--scratch", a.scratch,
                   "Folder for the shard while it trains (default: $SLURM_TMPDIR, $TMPDIR, /tmp)");
  addBudget(work, a);
  addBatch(work, a);
}

// `sweep list`, `show`, `table`, `plot` and `export`: reading stored studies; `delete`.
void addReadingCommands(CLI::App* sweep, SweepArgs& a) {
  auto* list = sweep->add_subcommand("list", "Stored studies with their progress");
  list->add_flag("--json", a.json, "Print as JSON");

  auto* show = sweep->add_subcommand("show", "A study's spec, status counts and unfinished runs");
  addId(show, a);
  show->add_flag("--json", a.json, "Print as JSON");

  auto* table = sweep->add_subcommand(
      "table", "Mean ± std over seeds per setting, beside the paper's values with a verdict");
  addId(table, a);
  table->add_option("--metric", a.metrics, "A metric to show (repeatable; default: the study's)")
      ->allow_extra_args(false);
  table->add_option("--rows", a.rows, "The axis down the rows");
  table->add_option("--cols", a.cols, "The axis across the columns");
  table->add_option("--format", a.format, "md, csv or json")
      ->transform(CLI::IsMember({"md", "csv", "json"}, CLI::ignore_case));

  auto* plot = sweep->add_subcommand(
      "plot",
      "The paper-style figure: mean line and band over seeds, baselines dashed, the "
      "paper's points; SVG, PNG or PDF");
  addId(plot, a);
  plot->add_option("--x", a.x,
                   "The axis along the horizontal axis, or @ for the number in the metrics' names "
                   "(val/ppl@256) (default: the study's figure)");
  plot->add_option("--metric", a.metrics, "A metric, one panel each (repeatable)")
      ->allow_extra_args(false);
  plot->add_option("--group", a.group, "One line per value of this axis");
  plot->add_option("--panel", a.panel, "One row of panels per value of this axis");
  plot->add_option("--band", a.band,
                   "std (mean ± std), half (± 0.67 std: the paper's 50% interval), minmax, none");
  plot->add_option("--where", a.where, "Only settings with KEY=VALUE (repeatable)")
      ->allow_extra_args(false);
  plot->add_option("--figure", a.figure,
                   "One of the study's declared figures, by name or number (1 for its first)")
      ->check(nonEmpty("a figure the study declares (see `sweep show`)"));
  plot->add_option("--out", a.out, "Output file: .svg, .png or .pdf")->required();
  plot->add_option("--width", a.width, "Pixels (default: 560 per metric + 200)")
      ->check(wholeNumberIn(200, 10000));
  plot->add_option("--height", a.height, "Pixels (default: 380 per panel row + 90)")
      ->check(wholeNumberIn(200, 10000));

  auto* exportStudy = sweep->add_subcommand(
      "export", "Every run's final metrics and axis values, one row per run (for pandas)");
  addId(exportStudy, a);
  exportStudy->add_option("--format", a.format, "csv or json")
      ->transform(CLI::IsMember({"csv", "json"}, CLI::ignore_case));
  exportStudy->add_option("--out", a.out, "Output file (default: stdout)")
      ->check(nonEmpty("a file, or leave --out out for stdout"));

  auto* remove = sweep->add_subcommand(
      "delete", "Delete a study and the runs it trained that no other study uses");
  addId(remove, a);
  remove->add_flag("--keep-runs", a.keepRuns, "Keep its runs as ordinary runs");
  remove->add_flag("--yes,-y", a.yes,
                   "Delete without asking (it asks only when its input is a terminal)");
}

}  // namespace

CLI::App* addSweepCommand(CLI::App& app, SweepArgs& a) {
  auto* sweep = app.add_subcommand(
      "sweep", "Studies: a paper's whole sweep (axes x seeds) as one stored, resumable object");
  sweep->require_subcommand(1);
  addStoreOption(sweep, a.db);
  sweep->fallthrough();
  addRunCommand(sweep, a);
  addResumeCommand(sweep, a);
  addClusterCommands(sweep, a);
  addReadingCommands(sweep, a);
  return sweep;
}

study::BatchMode askedBatchMode(const SweepArgs& args) {
  return *study::parseBatchMode(args.batch.empty() ? "auto" : args.batch);
}

}  // namespace fl::cli
