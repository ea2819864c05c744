#include "app/cli/sweep_spec.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/engine/config.h"
#include "core/study/axis_values.h"
#include "core/study/study_expansion.h"

namespace fl::cli {

namespace {

std::string studyNames(const Experiment& e) {
  std::string out;
  for (const auto& s : e.studies()) out += (out.empty() ? "" : ", ") + s.name;
  return out.empty() ? "none" : out;
}

}  // namespace

SweepSpec sweepSpecFromArgs(const ExperimentRegistry& registry, const SweepArgs& args) {
  SweepSpec out;
  auto& spec = out.spec;
  if (!args.study.empty() && !args.studyFile.empty()) {
    out.error = "give --study or --study-file, not both";
    return out;
  }
  if (!args.studyFile.empty()) {
    // Why not, as the corpus check says it: a folder read as an empty file and was refused as
    // "not valid JSON: unexpected end of input"; a missing file was "cannot be read".
    std::error_code ec;
    const auto status = std::filesystem::status(args.studyFile, ec);
    std::ifstream file(args.studyFile);
    const std::string why = ec || !std::filesystem::exists(status) ? "no such file"
                            : std::filesystem::is_directory(status)
                                ? "is a folder, not a study file"
                            : !file ? "cannot be read (" + std::string(std::strerror(errno)) + ")"
                                    : std::string();
    if (!why.empty()) {
      out.error = "--study-file " + args.studyFile + ": " + why;
      return out;
    }
    std::stringstream text;
    text << file.rdbuf();
    try {
      spec = study::StudySpec::fromText(text.str());
    } catch (const std::invalid_argument& e) {
      out.error = "--study-file " + args.studyFile + ": " + e.what();
      return out;
    }
    if (!args.experiment.empty() && !spec.experiment.empty() &&
        spec.experiment != args.experiment) {
      out.error = "--study-file " + args.studyFile + " is a study of '" + spec.experiment +
                  "', not '" + args.experiment + "'";
      return out;
    }
    if (spec.experiment.empty()) spec.experiment = args.experiment;
    if (spec.experiment.empty()) {
      out.error = "--study-file " + args.studyFile +
                  ": name the experiment (\"experiment\" in the file, or sweep run EXPERIMENT)";
      return out;
    }
    if (spec.name.empty()) spec.name = args.studyFile;
    // The file as written: --grid below may narrow an axis a reference row names, on purpose.
    if (const auto problems = study::layoutProblems(spec); !problems.empty()) {
      out.error = "--study-file " + args.studyFile + ": " + problems.front();
      for (size_t i = 1; i < problems.size(); ++i) out.error += "; " + problems[i];
      return out;
    }
  } else {
    spec.experiment = args.experiment;
  }
  if (spec.experiment.empty()) {
    out.error = "sweep run needs an EXPERIMENT (see `fourierlab-cli list`)";
    return out;
  }
  out.experiment = registry.find(spec.experiment);
  if (!out.experiment) {
    out.error = "unknown experiment '" + spec.experiment + "' (known: " + registry.names() + ")";
    return out;
  }
  if (!args.study.empty()) {
    auto builtin = out.experiment->findStudy(args.study);
    if (!builtin) {
      out.error = "unknown study '" + args.study + "' for experiment '" + spec.experiment +
                  "' (known: " + studyNames(*out.experiment) + ")";
      return out;
    }
    spec = *builtin;
  }

  const auto specs = out.experiment->allParams();
  // A study file's fixed settings, said at the block that holds them: an unknown key was named
  // at the first grid setting ("at dataset=\"gmm2\": unknown parameter 'epoch'").
  if (!args.studyFile.empty()) {
    auto checkSet = [&](const nlohmann::json& set, const std::string& where) {
      for (const auto& issue : validateConfig(specs, set).issues)
        if (set.contains(issue.key)) return where + "." + issue.key + ": " + issue.message;
      return std::string();
    };
    std::string problem = checkSet(spec.overrides, "set");
    for (size_t i = 0; i < spec.arms.size() && problem.empty(); ++i)
      problem = checkSet(spec.arms[i].overrides, "arms[" + std::to_string(i) + "].set");
    if (!problem.empty()) {
      out.error = "--study-file " + args.studyFile + ": " + problem;
      return out;
    }
  }
  if (!args.preset.empty()) spec.preset = args.preset;
  for (const auto& assignment : args.assignments)
    if (auto issue = applyAssignment(specs, assignment, spec.overrides)) {
      out.error = "--set " + assignment + ": " + issue->message;
      return out;
    }
  std::vector<std::string> gridKeys;  // the --grid axes given here, each once
  for (const auto& text : args.grid) {
    auto axis = study::parseAxisAssignment(specs, text);
    if (axis.error) {
      out.error = "--grid " + text + ": " + *axis.error;
      return out;
    }
    if (std::find(gridKeys.begin(), gridKeys.end(), axis.axis.key) != gridKeys.end()) {
      out.error = "--grid " + text + ": axis '" + axis.axis.key +
                  "' is given twice (give its values in one --grid)";
      return out;
    }
    gridKeys.push_back(axis.axis.key);
    // An axis the study already has takes the values given (Table 1 on one dataset:
    // `--study table1 --grid dataset=gmm2`); another one is added.
    auto same = std::find_if(spec.grid.begin(), spec.grid.end(),
                             [&](const study::Axis& a) { return a.key == axis.axis.key; });
    if (same != spec.grid.end())
      *same = std::move(axis.axis);
    else
      spec.grid.push_back(std::move(axis.axis));
  }
  for (const auto& text : args.zip) {
    auto zip = study::parseZipAssignment(specs, text);
    if (zip.error) {
      out.error = *zip.error;
      return out;
    }
    spec.zips.push_back(std::move(zip.zip));
  }
  if (!args.seeds.empty()) {
    auto seeds = study::parseSeeds(*findParam(specs, "seed"), args.seeds);
    if (seeds.error) {
      out.error = *seeds.error;
      return out;
    }
    spec.seeds = seeds.seeds;
  }
  if (!args.name.empty()) spec.name = args.name;
  if (spec.name.empty()) spec.name = spec.experiment + " sweep";
  return out;
}

}  // namespace fl::cli
