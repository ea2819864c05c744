// Experiment and Trial: the contract between an experiment folder and the engine.
//
// An Experiment is a description (parameters, panels, presets, probe inputs) and a factory of
// Trials. A Trial is one configured run: model + data + optimiser on a device. The Runner owns
// the loop and calls trainStep / evaluate / probe, all on the Runner's thread, so a Trial never
// needs locks and never sees cancel, pause or the event sinks.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <c10/core/Device.h>
#include <nlohmann/json.hpp>

#include "core/engine/config.h"
#include "core/engine/events.h"
#include "core/engine/panel_spec.h"
#include "core/engine/param_spec.h"
#include "core/engine/step_loss.h"
#include "core/engine/study_spec.h"

namespace fl {

// A named set of overrides, e.g. `paper-fourier`. `reference` carries a paper's published
// figures for comparison: {"source": "...", "by": "dataset", "values": {"gmm2": {"test/kl":
// [mean, std]}}}.
struct Preset {
  std::string name;
  std::string description;
  nlohmann::json overrides = nlohmann::json::object();
  nlohmann::json reference;  // null when the preset reproduces no published table
};

// One input of the interactive probe (a slider in the GUI).
struct ProbeInput {
  std::string name;
  double minimum = 0;
  double maximum = 1;
  double defaultValue = 0;
  std::string help;
};

// How the Runner drives a Trial. Steps are optimisation steps.
struct TrialPlan {
  int64_t totalSteps = 0;
  int64_t stepsPerEpoch = 1;
  int64_t logEvery = 1;   // train/loss is the mean over this many steps
  int64_t evalEvery = 0;  // evaluate every this many steps (and always at the end); 0 = end only

  // Whether the run evaluates once it has taken `stepsDone` steps.
  bool evaluatesAt(int64_t stepsDone) const {
    return stepsDone == totalSteps || (evalEvery > 0 && stepsDone % evalEvery == 0);
  }
};

// What an evaluation produced; the Runner stamps it with the step and wall time.
struct EvalReport {
  std::vector<std::pair<std::string, double>> metrics;
  std::vector<Snapshot> snapshots;

  void metric(std::string key, double value) { metrics.emplace_back(std::move(key), value); }
  void snapshot(Snapshot s) { snapshots.push_back(std::move(s)); }
};

struct TrialContext {
  nlohmann::json config;  // validated and complete
  c10::Device device = c10::kCPU;
  uint64_t seed = 0;
};

class Trial {
 public:
  virtual ~Trial() = default;
  virtual TrialPlan plan() const = 0;
  // Takes optimisation step `stepIndex` (0-based) and returns its loss: a number, or the loss
  // tensor as it is on the device (step_loss.h), which the Runner reads only when it reports,
  // so a GPU step never waits for the device. A non-finite loss fails the run at its step.
  virtual StepLoss trainStep(int64_t stepIndex) = 0;
  // Computes test metrics and snapshots after `stepsDone` steps; `final` asks for the complete
  // snapshots (e.g. every test input) rather than the live subset.
  virtual void evaluate(int64_t stepsDone, bool final, EvalReport& out) = 0;
  // Answers the interactive probe: the model's prediction for the given inputs, now.
  virtual std::vector<Snapshot> probe(const std::map<std::string, double>& inputs) { return {}; }
  // Checkpoints: everything needed to continue bit for bit (model, optimiser, data order).
  // saveCheckpoint writes `path` atomically and throws FileWriteError when it cannot
  // (optim::saveArchive does both). The default says the experiment cannot be checkpointed.
  virtual bool supportsCheckpoints() const { return false; }
  virtual void saveCheckpoint(const std::string& path) const;
  virtual void loadCheckpoint(const std::string& path);
  // How the steps are taken, where it is worth saying ("each step replayed as one CUDA graph",
  // or eager and why), for the run's status once a step has shown it; may be empty.
  virtual std::string stepDescription() const { return {}; }
};

// K runs of one experiment trained as one program: the runs' shapes agree, so one pass
// steps them all and pays the per-op overhead once. Each member is an ordinary run to the
// GroupRunner (core/engine/group_runner.h), which drives it as the Runner drives a Trial: the
// member's plan, evaluation, probe and checkpoint (a single run's format, so either resumes the
// other's) are its single run's. Members may be at different steps (one resumed, one fresh).
// Touched only by the GroupRunner's thread.
class BatchedTrial {
 public:
  virtual ~BatchedTrial() = default;
  virtual int64_t memberCount() const = 0;
  virtual TrialPlan plan(int64_t member) const = 0;  // the member's single run's plan
  virtual int64_t stepsDone(int64_t member) const = 0;
  // An inactive member keeps its state and takes no steps (finished, failed or stopped).
  virtual void setActive(int64_t member, bool active) = 0;
  // One step of every active member with steps left, each from its own stepsDone: its loss,
  // nullopt for members that took none. A member whose loss is not finite is set inactive.
  virtual std::vector<std::optional<StepLoss>> trainStep() = 0;
  virtual void evaluate(int64_t member, bool final, EvalReport& out) = 0;
  virtual std::vector<Snapshot> probe(int64_t member, const std::map<std::string, double>& inputs) {
    return {};
  }
  virtual bool supportsCheckpoints() const { return false; }
  // How the group steps ("one CUDA graph per step"), for its runs' status; may be empty.
  virtual std::string stepDescription() const { return {}; }
  virtual void saveCheckpoint(int64_t member, const std::string& path) const;
  // Sets the member's stepsDone to the checkpoint's step.
  virtual void loadCheckpoint(int64_t member, const std::string& path);
};

// One arm of a one-click comparison: a label and what it overrides in the current config.
struct Variant {
  std::string label;
  nlohmann::json overrides;
  // The arm whose snapshots the dashboard shows when the comparison starts (the others are
  // overlaid); the first arm when none says so.
  bool shownFirst = false;
};

// Which metric ranks checkpoints (the keep policy keeps the last and the best).
struct SelectionMetric {
  std::string key;
  bool lowerIsBetter = true;
};

class Experiment {
 public:
  virtual ~Experiment() = default;
  virtual std::string name() const = 0;  // "fourier-head": the CLI's and the store's key
  virtual std::string title() const = 0;
  virtual std::string description() const = 0;
  virtual std::vector<ParamSpec> params() const = 0;  // without the run params (seed, device)
  virtual std::vector<PanelSpec> panels() const = 0;
  virtual std::vector<Preset> presets() const = 0;
  virtual std::vector<ProbeInput> probeInputs() const { return {}; }
  virtual std::optional<SelectionMetric> selectionMetric() const { return std::nullopt; }
  // Every metric an evaluation of this complete config may record (its Trial's EvalReport keys;
  // the Runner's train/loss and system/ keys are the engine's), so that a study file naming a
  // metric its runs never record is refused before they train, not read at the end. Exact
  // names where the config says them (one per head, layer and length); an entry ending in '*'
  // stands for every name it begins, where it cannot. nullopt: the experiment does not say,
  // and its studies' metrics are found out from the finished runs.
  virtual std::optional<std::vector<std::string>> recordedMetrics(
      const nlohmann::json& /*config*/) const {
    return std::nullopt;
  }
  // The variants "Run comparison" launches side by side, on the same data and seed.
  virtual std::vector<Variant> comparisonVariants() const { return {}; }
  // What each key's own check cannot see, on a config that passed them (complete, defaults
  // filled in): parameters that clash (heads must divide d_model, FoPE needs a frequency above
  // the floor of train_len) and the data (an unreadable corpus, one too short for train_len).
  // Each issue names the keys and their values as given. Called by validateRunConfig() before
  // a run is created, so a bad config is refused with nothing stored.
  virtual std::vector<ConfigIssue> checkConfig(const nlohmann::json& config) const { return {}; }
  // The paper's studies this experiment declares beside its presets (studies/*.json), each
  // with the reference values of the table or figure it reproduces.
  virtual std::vector<study::StudySpec> studies() const { return {}; }
  // The most intra-op threads one run of this config can use well (0: any number). Tiny models
  // say 1: a second thread only adds synchronisation (study/thread_budget.h).
  virtual int usefulThreads(const nlohmann::json& config) const { return 0; }
  // The curves' other x axes (the Live tab's "epoch" and "tokens seen"), from a complete config
  // as the trainer reads it. stepsPerEpoch: the optimisation steps one pass over the training
  // data takes, as the trainer counts them; nullopt when the data has no epochs (windows drawn
  // at random from a corpus). tokensPerStep: the tokens one step reads; nullopt when the model
  // reads no tokens (the toy reads coordinates). Both may throw on a config that lacks a key.
  virtual std::optional<double> stepsPerEpoch(const nlohmann::json& config) const {
    return std::nullopt;
  }
  virtual std::optional<double> tokensPerStep(const nlohmann::json& config) const {
    return std::nullopt;
  }
  // The snapshots a trial emits with SnapshotKeep::NotStored, rebuilt for a reader of the store
  // from the run's config and one stored snapshot (the toy's true densities follow from the
  // dataset and the inputs a stored prediction names). Must equal what the trial emitted.
  virtual std::vector<Snapshot> rebuiltSnapshots(const nlohmann::json& config,
                                                 const Snapshot& stored) const {
    return {};
  }
  // Builds the model and data; throws std::runtime_error with a clear message on bad input
  // (e.g. an unreadable corpus). Called with the global torch seed set to ctx.seed.
  virtual std::unique_ptr<Trial> createTrial(const TrialContext& ctx) const = 0;

  // Batched training, for experiments whose runs are tiny. groupDifference says why two
  // validated configs cannot train in one group (empty: they can); createGroup builds the
  // group's members from their contexts, each seeded as its single run (the caller holds no
  // SeededScope). The defaults: every run trains alone.
  virtual std::string groupDifference(const nlohmann::json& a, const nlohmann::json& b) const {
    return name() + " trains its runs one by one";
  }
  // The same rule as a key, where the experiment can give one: two configs' keys are equal
  // exactly when groupDifference finds nothing between them. A study's groups are then formed
  // in one pass; without a key every config is weighed against every group (a 10,000-run
  // study of distinct shapes planned for minutes, deaf to Ctrl-C).
  virtual std::optional<std::string> groupKey(const nlohmann::json& /*config*/) const {
    return std::nullopt;
  }
  virtual std::unique_ptr<BatchedTrial> createGroup(const std::vector<TrialContext>& members) const;

  // params() followed by the engine's run params: what a config is validated against.
  std::vector<ParamSpec> allParams() const;
  std::optional<Preset> findPreset(const std::string& presetName) const;
  std::optional<study::StudySpec> findStudy(const std::string& studyName) const;
};

}  // namespace fl
