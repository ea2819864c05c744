// Tests core/engine/runner.h: the event contract, cancel within one step, NaN handling, pause,
// probes, device errors, and bit-for-bit determinism of a real experiment with a seed.
#include <QtTest>

#include <atomic>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <thread>

#include <torch/cuda.h>

#include "core/engine/checkpoint_load.h"
#include "core/engine/event_queue.h"
#include "core/engine/registry.h"
#include "core/engine/runner.h"
#include "core/engine/system_metrics.h"
#include "experiments/builtin_experiments.h"

namespace {

// A scriptable experiment: `steps` steps of `stepMillis` each; the loss is 1/(step+1), or NaN
// at step `nanAt`. Counts the steps it actually took.
struct Script {
  int64_t steps = 10;
  int stepMillis = 0;
  int64_t nanAt = -1;
  int64_t outOfMemoryAt = -1;  // the step that throws as LibTorch does when the GPU is full
  int64_t evalEvery = 5;
  bool exploding = false;    // loss 10^step: finite, and far above where it started
  bool checkpoints = false;  // writes a small file per checkpoint
  bool unloadable = false;   // its checkpoints cannot be loaded (a damaged file)
  // How the steps are taken once this many were: the last entry reached is the description.
  std::vector<std::pair<int64_t, std::string>> describedAfter;
  std::atomic<int64_t> taken{0};
};

class ScriptedTrial : public fl::Trial {
 public:
  explicit ScriptedTrial(Script& s) : m_script(s) {}
  fl::TrialPlan plan() const override { return {m_script.steps, 5, 5, m_script.evalEvery}; }
  fl::StepLoss trainStep(int64_t step) override {
    if (m_script.stepMillis)
      std::this_thread::sleep_for(std::chrono::milliseconds(m_script.stepMillis));
    if (step == m_script.outOfMemoryAt)
      TORCH_CHECK_WITH(OutOfMemoryError, false, "CUDA out of memory. Tried to allocate 2.00 GiB");
    ++m_script.taken;
    if (m_script.exploding) return std::pow(10.0, static_cast<double>(step));
    return step == m_script.nanAt ? std::nan("") : 1.0 / static_cast<double>(step + 1);
  }
  bool supportsCheckpoints() const override { return m_script.checkpoints; }
  std::string stepDescription() const override {
    std::string how;
    for (const auto& [after, description] : m_script.describedAfter)
      if (m_script.taken >= after) how = description;
    return how;
  }
  void saveCheckpoint(const std::string& path) const override {
    std::ofstream(path) << m_script.taken.load();
  }
  void evaluate(int64_t stepsDone, bool final, fl::EvalReport& out) override {
    out.metric("test/steps", static_cast<double>(stepsDone));
    out.metric("test/final", final ? 1.0 : 0.0);
  }
  void loadCheckpoint(const std::string& path) override {  // nothing to restore: steps are scripted
    if (m_script.unloadable) throw std::runtime_error(path + " is damaged");
  }
  std::vector<fl::Snapshot> probe(const std::map<std::string, double>& inputs) override {
    fl::Snapshot s;
    s.name = "probe/echo";
    s.shape = {1};
    s.data = {static_cast<float>(inputs.at("x"))};
    return {s};
  }

 private:
  Script& m_script;
};

class ScriptedExperiment : public fl::Experiment {
 public:
  explicit ScriptedExperiment(Script& s) : m_script(s) {}
  std::string name() const override { return "scripted"; }
  std::string title() const override { return "scripted"; }
  std::string description() const override { return ""; }
  std::vector<fl::ParamSpec> params() const override { return {}; }
  std::vector<fl::PanelSpec> panels() const override { return {}; }
  std::vector<fl::Preset> presets() const override { return {}; }
  std::unique_ptr<fl::Trial> createTrial(const fl::TrialContext&) const override {
    return std::make_unique<ScriptedTrial>(m_script);
  }

 private:
  Script& m_script;
};

// The scripted experiment with a paper preset: `dataset` picks the reference row, `width` is
// part of the model, `eval_inputs` only of the evaluation.
class PaperExperiment : public ScriptedExperiment {
 public:
  PaperExperiment(Script& s, std::string stat) : ScriptedExperiment(s), m_stat(std::move(stat)) {}
  std::vector<fl::ParamSpec> params() const override {
    return {fl::ParamSpec::choice("dataset", "a", {"a", "b"}, "").inGroup("data"),
            fl::ParamSpec::integer("width", 4, 1, 64, ""),
            fl::ParamSpec::integer("eval_inputs", 8, 1, 64, "").inGroup("evaluation")};
  }
  std::vector<fl::Preset> presets() const override {
    fl::Preset paper{"paper", "", {{"width", 8}}, nullptr};
    paper.reference = {
        {"source", "a paper"},
        {"by", "dataset"},
        {"values", {{"a", {{"test/steps", {12.0, 1.0}}}}, {"b", {{"test/steps", {30.0, 1.0}}}}}}};
    if (!m_stat.empty()) paper.reference["stat"] = m_stat;
    return {paper};
  }

 private:
  std::string m_stat;
};

nlohmann::json cpuConfig() { return {{"seed", 1}, {"device", "cpu"}}; }

std::vector<fl::Event> runToEnd(std::shared_ptr<const fl::Experiment> e, nlohmann::json config,
                                const fl::RunnerOptions& options = {}) {
  fl::EventQueue queue;
  fl::Runner runner(std::move(e), std::move(config), queue, options);
  runner.start();
  runner.join();
  return queue.takeAll();
}

// The run's events, its checkpoints written into `dir`.
std::vector<fl::Event> runCheckpointedTo(const QTemporaryDir& dir,
                                         std::shared_ptr<const fl::Experiment> e,
                                         nlohmann::json config) {
  fl::RunnerOptions options;
  options.checkpointDir = dir.path().toStdString();
  return runToEnd(std::move(e), std::move(config), options);
}

const fl::StatusEvent& lastStatus(const std::vector<fl::Event>& events) {
  return std::get<fl::StatusEvent>(events.back());
}

// The run's own metrics: the process's "system/" figures follow the clock and the machine, not
// the seed (test_system_usage holds them).
std::vector<fl::MetricEvent> metricsOf(const std::vector<fl::Event>& events) {
  std::vector<fl::MetricEvent> out;
  for (const auto& e : events)
    if (auto* m = std::get_if<fl::MetricEvent>(&e); m && !fl::isSystemMetric(m->key))
      out.push_back(*m);
  return out;
}

}  // namespace

class TestRunner : public QObject {
  Q_OBJECT

 private slots:
  void finishedRunReportsLossEvalsAndEndsWithStatus() {
    Script script;
    script.steps = 12;
    auto events = runToEnd(std::make_shared<ScriptedExperiment>(script), cpuConfig());
    QCOMPARE(fl::toString(std::get<fl::StatusEvent>(events.front()).status),
             fl::toString(fl::RunStatus::Running));
    QCOMPARE(fl::toString(lastStatus(events).status), fl::toString(fl::RunStatus::Finished));
    QCOMPARE(script.taken.load(), int64_t(12));
    std::vector<int64_t> lossSteps, evalSteps;
    for (const auto& m : metricsOf(events)) {
      if (m.key == "train/loss") lossSteps.push_back(m.step);
      if (m.key == "test/steps") evalSteps.push_back(m.step);
    }
    // Logged every 5 steps and at the end; evaluated likewise (12 is not a multiple of 5).
    QCOMPARE(lossSteps, (std::vector<int64_t>{5, 10, 12}));
    QCOMPARE(evalSteps, (std::vector<int64_t>{5, 10, 12}));
    // The first logged loss is the mean of 1, 1/2, ..., 1/5.
    const double mean = (1 + 1 / 2.0 + 1 / 3.0 + 1 / 4.0 + 1 / 5.0) / 5;
    QCOMPARE(metricsOf(events).front().value, mean);
    // Epochs of 5 steps: two done at step 10, and at the end all three, the last one partial
    // (a finished run said "epoch 2/3").
    std::vector<std::pair<int64_t, int64_t>> epochs;
    for (const auto& e : events)
      if (const auto* p = std::get_if<fl::ProgressEvent>(&e)) {
        QCOMPARE(p->totalEpochs, int64_t(3));
        epochs.emplace_back(p->step, p->epoch);
      }
    QCOMPARE(epochs, (std::vector<std::pair<int64_t, int64_t>>{{5, 1}, {10, 2}, {12, 3}}));
  }

  void cancelIsHonouredWithinOneStep() {
    Script script;
    script.steps = 100000;
    script.stepMillis = 2;
    fl::EventQueue queue;
    fl::Runner runner(std::make_shared<ScriptedExperiment>(script), cpuConfig(), queue);
    runner.start();
    while (script.taken < 20) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    runner.cancel();
    const int64_t atCancel = script.taken;
    runner.join();
    QVERIFY(script.taken <= atCancel + 1);
    QCOMPARE(fl::toString(runner.finalStatus()), fl::toString(fl::RunStatus::Cancelled));
    QCOMPARE(fl::toString(lastStatus(queue.takeAll()).status),
             fl::toString(fl::RunStatus::Cancelled));
  }

  void nanLossFailsTheRunNamingTheStep() {
    Script script;
    script.steps = 50;
    script.nanAt = 7;  // the 8th step
    auto events = runToEnd(std::make_shared<ScriptedExperiment>(script), cpuConfig());
    const auto& status = lastStatus(events);
    QCOMPARE(fl::toString(status.status), fl::toString(fl::RunStatus::Failed));
    QVERIFY2(status.message.find("loss became nan at step 8 (epoch 2)") != std::string::npos,
             status.message.c_str());
    QCOMPARE(script.taken.load(), int64_t(8));
    QCOMPARE(status.step, int64_t(8));  // where it failed, also as a number
  }

  void aFinishedRunOfAPapersConfigurationSaysHowItCompares() {
    Script script;
    script.steps = 12;  // test/steps: 5, 10, 12
    auto paperConfig = [](nlohmann::json extra) {
      nlohmann::json c = {{"seed", 3}, {"device", "cpu"}, {"width", 8}};
      if (extra.is_object()) c.update(extra);
      return c;
    };
    auto messageOf = [&](std::string stat, nlohmann::json extra) {
      return lastStatus(
                 runToEnd(std::make_shared<PaperExperiment>(script, stat), paperConfig(extra)))
          .message;
    };
    QCOMPARE(messageOf("", {}),
             std::string("test/steps 12.000 vs paper 12.000 ± 1.000: within the paper's spread "
                         "(|Δ| 0.000 <= 2.000 = 2 std)"));
    // The row follows the dataset; seeds and evaluation settings do not matter.
    QCOMPARE(messageOf("", {{"dataset", "b"}, {"eval_inputs", 3}, {"seed", 9}}),
             std::string("test/steps 12.000 vs paper 30.000 ± 1.000: outside the paper's spread "
                         "(|Δ| 18.000 > 2.000 = 2 std)"));
    // "stat": "min" compares the best value reached.
    QCOMPARE(
        messageOf("min", {}),
        std::string("best test/steps 5.000 vs paper 12.000 ± 1.000: outside the paper's spread "
                    "(|Δ| 7.000 > 2.000 = 2 std)"));
    // Another model is not the paper's: no comparison, and the message says why.
    QCOMPARE(messageOf("", {{"width", 4}}),
             std::string("not compared with the paper (paper): width 4 (the paper's 8)"));
    // A resumed run's best counts its past (from the store) as well as what it evaluates now.
    fl::EventQueue queue;
    fl::RunnerOptions options;
    options.resume = fl::ResumePoint{"unused", 5, {{"test/steps", 0.5}}};
    fl::Runner resumed(std::make_shared<PaperExperiment>(script, "min"), paperConfig({}), queue,
                       options);
    resumed.start();
    resumed.join();
    QCOMPARE(
        lastStatus(queue.takeAll()).message,
        std::string("best test/steps 0.500 vs paper 12.000 ± 1.000: outside the paper's spread "
                    "(|Δ| 11.500 > 2.000 = 2 std)"));
  }

  // A checkpoint that cannot be loaded fails the resume in words a study's next claim knows:
  // it trains that run again from step 0 (resuming it would fail the same way), where a run
  // failed otherwise resumes from its checkpoint.
  void aCheckpointThatCannotBeLoadedIsSaidSo() {
    Script script;
    script.unloadable = true;
    fl::RunnerOptions options;
    options.resume = fl::ResumePoint{"step-5.pt", 5};
    const auto events =
        runToEnd(std::make_shared<ScriptedExperiment>(script), cpuConfig(), options);
    const auto& status = lastStatus(events);
    QCOMPARE(fl::toString(status.status), std::string("failed"));
    QCOMPARE(status.message,
             std::string("its checkpoint could not be loaded: step-5.pt is damaged"));
    QVERIFY(fl::failedLoadingCheckpoint(status.message));
    QVERIFY(!fl::failedLoadingCheckpoint("out of memory on cuda:0 at step 5; checkpoint saved"));
    QCOMPARE(script.taken.load(), int64_t(0));
  }

  void pausedRunTakesNoStepsButAnswersProbes() {
    Script script;
    script.steps = 100000;
    script.stepMillis = 1;
    fl::EventQueue queue;
    fl::Runner runner(std::make_shared<ScriptedExperiment>(script), cpuConfig(), queue);
    runner.setPaused(true);
    runner.start();
    const int64_t id = runner.requestProbe({{"x", 0.25}});
    std::vector<fl::Event> seen;
    for (int i = 0; i < 50 && seen.size() < 2; ++i)
      for (auto& e : queue.waitAndTakeAll(std::chrono::milliseconds(20))) seen.push_back(e);
    QCOMPARE(script.taken.load(), int64_t(0));
    bool answered = false;
    for (const auto& e : seen)
      if (auto* s = std::get_if<fl::SnapshotEvent>(&e))
        answered =
            s->requestId == id && s->snapshot.name == "probe/echo" && s->snapshot.data[0] == 0.25f;
    QVERIFY(answered);
    runner.setPaused(false);
    while (script.taken < 5) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    runner.cancel();
    runner.join();
    QCOMPARE(fl::toString(runner.finalStatus()), fl::toString(fl::RunStatus::Cancelled));
  }

  void invalidConfigFailsWithTheKeyNamed() {
    Script script;
    auto events =
        runToEnd(std::make_shared<ScriptedExperiment>(script), {{"seed", 1}, {"device", "tpu"}});
    QCOMPARE(fl::toString(lastStatus(events).status), fl::toString(fl::RunStatus::Failed));
    QVERIFY(lastStatus(events).message.find("'device'") != std::string::npos);
    QCOMPARE(script.taken.load(), int64_t(0));
  }

  void cudaWithoutCudaIsAClearError() {
    if (torch::cuda::is_available()) QSKIP("this machine has CUDA");
    Script script;
    auto events =
        runToEnd(std::make_shared<ScriptedExperiment>(script), {{"seed", 1}, {"device", "cuda"}});
    QCOMPARE(fl::toString(lastStatus(events).status), fl::toString(fl::RunStatus::Failed));
    QVERIFY2(lastStatus(events).message.find("no CUDA device is visible") != std::string::npos,
             lastStatus(events).message.c_str());
  }

  // How the steps are taken is said once a step has shown it, and again when it changes (a
  // CUDA graph recorded at the first step; eager steps after a capture that failed later).
  void howTheStepsAreTakenIsSaidWhenItIsKnownAndWhenItChanges() {
    Script script;
    script.describedAfter = {{1, "each step replayed as one CUDA graph"},
                             {6, "eager steps (CUDA graph capture failed: scripted)"}};
    const auto events = runToEnd(std::make_shared<ScriptedExperiment>(script), cpuConfig());
    std::vector<std::pair<int64_t, std::string>> running;
    for (const auto& e : events)
      if (const auto* s = std::get_if<fl::StatusEvent>(&e);
          s && s->status == fl::RunStatus::Running)
        running.emplace_back(s->step, s->message);
    QVERIFY(!running.empty());
    const std::string first = running.front().second;  // "running on cpu (N threads)"
    QVERIFY2(first.rfind("running on cpu", 0) == 0, first.c_str());
    const std::vector<std::pair<int64_t, std::string>> expected{
        {0, first},
        {1, first + ", each step replayed as one CUDA graph"},
        {6, first + ", eager steps (CUDA graph capture failed: scripted)"}};
    QCOMPARE(running, expected);
    QVERIFY(lastStatus(events).status == fl::RunStatus::Finished);
  }

  void autoDeviceSaysWhichItUsed() {
    Script script;
    auto events = runToEnd(std::make_shared<ScriptedExperiment>(script), {{"device", "auto"}});
    const auto& running = std::get<fl::StatusEvent>(events.front());
    QVERIFY(running.message.find("auto:") != std::string::npos);
    QVERIFY(running.device == "cpu" || running.device.rfind("cuda:", 0) == 0);
  }

  void sameSeedGivesBitIdenticalMetrics() {
    fl::ExperimentRegistry registry;
    fl::registerBuiltinExperiments(registry);
    auto e = registry.find("fourier-head");
    auto config = [&](int seed) {
      auto c = fl::buildConfig(*e, "",
                               {"samples=400", "epochs=3", "eval_every=1", "device=cpu",
                                "seed=" + std::to_string(seed)});
      return c.values;
    };
    auto a = metricsOf(runToEnd(e, config(5)));
    auto b = metricsOf(runToEnd(e, config(5)));
    auto c = metricsOf(runToEnd(e, config(6)));
    QCOMPARE(a.size(), b.size());
    QVERIFY(a.size() > 5);
    bool anyDiffers = false;
    for (size_t i = 0; i < a.size(); ++i) {
      QCOMPARE(a[i].key, b[i].key);
      QCOMPARE(a[i].step, b[i].step);
      QVERIFY2(std::memcmp(&a[i].value, &b[i].value, sizeof(double)) == 0, a[i].key.c_str());
      anyDiffers = anyDiffers || a[i].value != c[i].value;
    }
    QVERIFY(anyDiffers);  // another seed really is another run
  }

  // A run resumed between two logged training losses logs the means the uninterrupted run
  // logged: the losses since the last logged mean ride along in its checkpoint. It logged the
  // mean of the steps after the resume alone (a resumed run's curve had one point no
  // uninterrupted run has).
  void aRunResumedBetweenTwoLoggedLossesLogsTheUninterruptedMeans() {
    QTemporaryDir dir;
    fl::ExperimentRegistry registry;
    fl::registerBuiltinExperiments(registry);
    auto e = registry.find("fourier-head");
    const auto config = fl::buildConfig(*e, "",
                                        {"samples=400", "epochs=4", "eval_every=2", "device=cpu",
                                         "seed=5", "checkpoint_seconds=0.000001"})
                            .values;
    auto lossesOf = [](const std::vector<fl::Event>& events) {
      std::map<int64_t, double> losses;
      for (const auto& m : metricsOf(events))
        if (m.key == "train/loss") losses[m.step] = m.value;
      return losses;
    };
    const auto whole = lossesOf(runToEnd(e, config));
    QVERIFY(whole.size() >= 4);
    const int64_t interval = std::next(whole.begin())->first - whole.begin()->first;
    QVERIFY(interval > 2);

    // The same run, checkpointed after every step (a time bound of a microsecond).
    std::map<int64_t, std::string> checkpoints;
    for (const auto& event : runCheckpointedTo(dir, e, config))
      if (auto* c = std::get_if<fl::CheckpointEvent>(&event); c && !c->removed)
        checkpoints[c->step] = c->path;
    // Resumed from the middle of the second interval.
    const int64_t from = whole.begin()->first + interval / 2;
    QVERIFY(from % interval != 0);
    QVERIFY(checkpoints.count(from));
    fl::RunnerOptions resumeOptions;
    resumeOptions.resume = fl::ResumePoint{checkpoints.at(from), from};
    const auto after = lossesOf(runToEnd(e, config, resumeOptions));
    QCOMPARE(after.begin()->first, whole.begin()->first + interval);
    QCOMPARE(after.size(),
             static_cast<size_t>(std::distance(whole.upper_bound(from), whole.end())));
    for (const auto& [step, loss] : after) {
      QVERIFY(whole.count(step));
      QVERIFY2(loss == whole.at(step),
               ("train/loss at step " + std::to_string(step) + ": " + std::to_string(loss) +
                " resumed, " + std::to_string(whole.at(step)) + " uninterrupted")
                   .c_str());
    }
  }

  // A run whose last writes the store refused (a full disk) resumes at its final checkpoint
  // with no step left to train: the loss mean logged at that step rides in the checkpoint and is
  // logged again where the store lacks it, so the run does not end without its last loss.
  void aRunResumedAtItsEndLogsTheLossTheStoreLost() {
    QTemporaryDir dir;
    fl::ExperimentRegistry registry;
    fl::registerBuiltinExperiments(registry);
    auto e = registry.find("fourier-head");
    const auto config =
        fl::buildConfig(*e, "", {"samples=400", "epochs=2", "eval_every=1", "device=cpu"}).values;
    std::map<int64_t, double> whole;
    std::string finalCheckpoint;
    int64_t end = 0;
    for (const auto& event : runCheckpointedTo(dir, e, config)) {
      if (auto* m = std::get_if<fl::MetricEvent>(&event); m && m->key == "train/loss")
        whole[m->step] = m->value;
      if (auto* c = std::get_if<fl::CheckpointEvent>(&event); c && !c->removed && c->step > end) {
        end = c->step;
        finalCheckpoint = c->path;
      }
    }
    QVERIFY(end > 0 && whole.count(end));
    for (const bool storeHasIt : {false, true}) {
      fl::RunnerOptions resumeOptions;
      resumeOptions.resume = fl::ResumePoint{finalCheckpoint, end};
      resumeOptions.resume->lossLoggedAtStep = storeHasIt;
      resumeOptions.resume->evaluatedAtStep = storeHasIt;
      std::vector<std::pair<int64_t, double>> losses;
      for (const auto& m : metricsOf(runToEnd(e, config, resumeOptions)))
        if (m.key == "train/loss") losses.emplace_back(m.step, m.value);
      if (storeHasIt) {
        QVERIFY(losses.empty());  // nothing logged twice
      } else {
        QCOMPARE(losses.size(), size_t(1));
        QCOMPARE(losses[0].first, end);
        QCOMPARE(losses[0].second, whole.at(end));
      }
    }
  }

  // With the defaults (a checkpoint every 5 evaluations), a run whose evaluations are rare
  // could once go any time without one: killed, it could not resume. Checkpoints also come once
  // checkpoint_seconds have passed, between evaluations.
  void checkpointsComeWithinTheTimeBoundBetweenEvaluations() {
    QTemporaryDir dir;
    Script script;
    script.steps = 40;
    script.stepMillis = 5;  // at least 50 ms every 10 steps
    script.evalEvery = 0;   // evaluated only at the end
    script.checkpoints = true;
    fl::EventQueue queue;
    fl::RunnerOptions options;
    options.checkpointDir = dir.path().toStdString();
    auto config = cpuConfig();
    config["checkpoint_every"] = 1;
    config["checkpoint_seconds"] = 0.05;
    fl::Runner runner(std::make_shared<ScriptedExperiment>(script), config, queue, options);
    runner.start();
    runner.join();
    const auto events = queue.takeAll();
    QCOMPARE(fl::toString(lastStatus(events).status), fl::toString(fl::RunStatus::Finished));
    std::vector<int64_t> steps;
    for (const auto& e : events)
      if (auto* c = std::get_if<fl::CheckpointEvent>(&e); c && !c->removed)
        steps.push_back(c->step);
    QVERIFY(steps.size() >= 2);
    QCOMPARE(steps.back(), int64_t(40));  // and the one at the end
    // 40 steps of at least 5 ms each last at least 200 ms, so a 50 ms bound must have written
    // one before the end (lower bounds only: sleeping never takes less). Where exactly depends
    // on the machine's speed; CheckpointSchedule's own test pins it with a fake clock.
    QVERIFY2(steps.front() < 40, "no checkpoint before the only evaluation");
  }

  // A step the device has no memory for fails the run saying so, with a checkpoint where it
  // stopped (the parameters are the previous step's), so it resumes there.
  void outOfMemoryFailsTheRunWithACheckpointWhereItStopped() {
    QTemporaryDir dir;
    Script script;
    script.steps = 20;
    script.evalEvery = 0;
    script.checkpoints = true;
    script.outOfMemoryAt = 12;
    fl::EventQueue queue;
    fl::RunnerOptions options;
    options.checkpointDir = dir.path().toStdString();
    fl::Runner runner(std::make_shared<ScriptedExperiment>(script), cpuConfig(), queue, options);
    runner.start();
    runner.join();
    const auto events = queue.takeAll();
    const auto& status = lastStatus(events);
    QCOMPARE(fl::toString(status.status), fl::toString(fl::RunStatus::Failed));
    QVERIFY2(status.message.find("out of memory on cpu at step 13 (CUDA out of memory.") == 0,
             status.message.c_str());
    QVERIFY2(status.message.find("; checkpoint saved; resume it on a device with more memory "
                                 "(--resume with --device), or train it again with a smaller "
                                 "batch_size") != std::string::npos,
             status.message.c_str());
    int64_t saved = -1;
    for (const auto& e : events)
      if (auto* c = std::get_if<fl::CheckpointEvent>(&e); c && !c->removed) saved = c->step;
    QCOMPARE(saved, int64_t(12));  // twelve steps taken, the thirteenth not
    QCOMPARE(script.taken.load(), int64_t(12));
  }

  // A checkpoint onto a full disk used to abort the process (LibTorch's zip writer throwing from
  // its destructor) and left step-N.pt.partial. /dev/full stands in for the full disk: the
  // partial file is made a link to it, which the checkpoint writer opens and writes through.
  void aCheckpointOntoAFullDiskFailsTheRunNamingTheFile() {
    QTemporaryDir dir;
    fl::ExperimentRegistry registry;
    fl::registerBuiltinExperiments(registry);
    auto e = registry.find("fourier-head");
    // 320 training samples, batch 32: 10 steps an epoch, the first checkpoint after step 10.
    auto config = fl::buildConfig(
        *e, "", {"samples=400", "epochs=3", "eval_every=1", "checkpoint_every=1", "device=cpu"});
    QVERIFY2(config.ok(), config.summary().c_str());
    const auto checkpoint = dir.path().toStdString() + "/step-10.pt";
    std::filesystem::create_symlink("/dev/full", checkpoint + ".partial");
    fl::EventQueue queue;
    fl::RunnerOptions options;
    options.checkpointDir = dir.path().toStdString();
    fl::Runner runner(e, config.values, queue, options);
    runner.start();
    runner.join();
    const auto events = queue.takeAll();
    const auto& status = lastStatus(events);
    QCOMPARE(fl::toString(status.status), fl::toString(fl::RunStatus::Failed));
    QVERIFY(status.fileWriteFailed);
    QVERIFY2(
        status.message == "cannot write " + checkpoint + ": disk full (No space left on device)",
        status.message.c_str());
    QVERIFY(!std::filesystem::exists(std::filesystem::symlink_status(checkpoint + ".partial")));
    QVERIFY(!std::filesystem::exists(checkpoint));
    for (const auto& event : events) QVERIFY(!std::holds_alternative<fl::CheckpointEvent>(event));
  }

  // lr=1 with batch 1 used to finish "fine" with train/loss 4.5e11. A loss ten times above the
  // first step's at the end is judged DIVERGED, as the experiments judge their runs.
  void anExplodingFiniteLossIsJudgedDiverged() {
    Script script;
    script.steps = 10;
    script.exploding = true;  // 1, 10, ..., 1e9; the last logged mean is (1e5 + ... + 1e9) / 5
    auto events = runToEnd(std::make_shared<ScriptedExperiment>(script), cpuConfig());
    const auto& status = lastStatus(events);
    QCOMPARE(fl::toString(status.status), fl::toString(fl::RunStatus::Finished));
    QVERIFY2(status.message.rfind("DIVERGED -- train/loss ended at 2.22e+08", 0) == 0,
             status.message.c_str());
    int verdicts = 0;
    for (const auto& e : events)
      if (auto* s = std::get_if<fl::SnapshotEvent>(&e);
          s && s->snapshot.name == "train/divergence") {
        ++verdicts;
        QCOMPARE(s->snapshot.meta["verdict"].get<std::string>(), std::string("DIVERGED"));
        QCOMPARE(s->snapshot.meta["ok"].get<bool>(), false);
        QCOMPARE(s->snapshot.data.at(0), static_cast<float>(222220000.0));
      }
    QCOMPARE(verdicts, 1);

    Script healthy;  // 1/(step+1): falls
    healthy.steps = 10;
    auto calm = runToEnd(std::make_shared<ScriptedExperiment>(healthy), cpuConfig());
    QVERIFY(lastStatus(calm).message.find("DIVERGED") == std::string::npos);
  }

  void parallelRunsKeepTheirOwnSeeds() {
    // Two runs at once must each give what they give alone (initialisation takes a lock).
    fl::ExperimentRegistry registry;
    fl::registerBuiltinExperiments(registry);
    auto e = registry.find("fourier-head");
    auto config =
        fl::buildConfig(*e, "", {"samples=300", "epochs=2", "device=cpu", "seed=9"}).values;
    auto alone = metricsOf(runToEnd(e, config));
    fl::EventQueue q1, q2;
    fl::Runner r1(e, config, q1), r2(e, config, q2);
    r1.start();
    r2.start();
    r1.join();
    r2.join();
    auto m1 = metricsOf(q1.takeAll());
    auto m2 = metricsOf(q2.takeAll());
    QCOMPARE(m1.size(), alone.size());
    for (size_t i = 0; i < alone.size(); ++i) {
      QCOMPARE(m1[i].value, alone[i].value);
      QCOMPARE(m2[i].value, alone[i].value);
    }
  }
};

QTEST_APPLESS_MAIN(TestRunner)
#include "test_runner.moc"
