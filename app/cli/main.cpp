// fourierlab-cli: runs FourierLab's experiments headless, for sweeps and paper reproductions.
// The composition root of the command line: builds the registry, parses, dispatches.
#include <CLI/CLI.hpp>

#include "app/cli/commands.h"
#include "experiments/builtin_experiments.h"
#include "fourierlab/version.h"

int main(int argc, char** argv) {
  fl::ExperimentRegistry registry;
  fl::registerBuiltinExperiments(registry);

  CLI::App app{"FourierLab headless runner: train Fourier-structured layers without the GUI.\n"
               "Exit codes: 0 finished, 1 run failed, 2 bad usage or config, 3 store error, "
               "130 cancelled by Ctrl-C."};
  app.set_version_flag("--version", FOURIERLAB_VERSION);
  app.require_subcommand(1);

  bool listJson = false;
  auto* list = app.add_subcommand("list", "Experiments, their parameters and presets");
  list->add_flag("--json", listJson, "Print as JSON");

  fl::cli::RunArgs runArgs;
  auto* run = app.add_subcommand("run", "Run one experiment and report its final metrics");
  run->add_option("experiment", runArgs.experiment, "Experiment name (see `list`)")->required();
  run->add_option("--preset", runArgs.preset, "Start from a named preset");
  run->add_option("--set", runArgs.assignments, "Override a parameter: KEY=VALUE (repeatable)")
      ->allow_extra_args(false);
  run->add_option("--device", runArgs.device, "auto | cpu | cuda | cuda:N (same as --set device=)");
  run->add_option("--threads", runArgs.threads, "Intra-op CPU threads (0: LibTorch's default)")
      ->check(CLI::Range(0, 1024));
  run->add_flag("--json", runArgs.json,
                "Print a JSON summary as the last line of stdout");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    return code == 0 ? 0 : fl::cli::kExitBadUsage;
  }
  if (*list) return fl::cli::listCommand(registry, listJson);
  return fl::cli::runCommand(registry, runArgs);
}
