// The host's share of a batched group's time: the GroupRunner, each member's RunReporter and
// its sinks around a group whose step costs nothing. On a GPU a step of the frequency study's
// 240 Fourier heads is a 0.36 ms CUDA graph, and everything printed here runs on the group's
// one thread beside it, every step: the figure to set against the graph.
//
// The members are fourier-head runs of the default config (500 epochs of 125 steps, evaluated
// every 10 epochs, a checkpoint every 5 evaluations), shortened to `epochs`. The group's
// evaluation hands out a copy of one real evaluation's report (same metrics and snapshots, so
// the reporter and sinks carry what they carry in a study) and its checkpoint writes one real
// member's file; the evaluations' own cost is bench_fourier_head's last rows.
//
// Three sinks, side by side in one process: none (the runner and reporters alone), the store
// without checkpoints, and the store with checkpoints (what `sweep run` gives every run: a
// StoreSink into the study's SQLite store). "closing" is the time the store writers take to
// catch up after the last step, which a study pays once per group.
//
//   build/bench/bench_group_runner [members=240] [epochs=20]
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

#include <torch/torch.h>

#include "core/engine/event_queue.h"
#include "core/engine/group_runner.h"
#include "core/engine/registry.h"
#include "core/engine/seeding.h"
#include "core/store/run_store.h"
#include "core/store/store_sink.h"
#include "experiments/builtin_experiments.h"
#include "experiments/fourier_head/batched_fourier_head_program.h"

namespace {

namespace fs = std::filesystem;
using fl::fourier_head::BatchedFourierHeadProgram;
using fl::fourier_head::ToyBenchmarkSettings;

// One real member: its evaluation reports (taken once) and its checkpoint writer.
struct RealMember {
  explicit RealMember(const nlohmann::json& config)
      : program({{ToyBenchmarkSettings::fromConfig(config), 1}}, torch::kCPU) {
    program.evaluate(0, false, report);
    program.evaluate(0, true, finalReport);
  }
  BatchedFourierHeadProgram program;
  fl::EvalReport report;
  fl::EvalReport finalReport;
};

// K members whose steps cost nothing: each step hands out one loss tensor for all members, as
// a device group does (GroupStepLosses), read by the reporters once an epoch.
class FreeStepGroup : public fl::BatchedTrial {
 public:
  FreeStepGroup(int64_t members, fl::TrialPlan plan, RealMember& real)
      : m_plan(plan), m_real(real), m_steps(members, 0), m_active(members, true) {}

  int64_t memberCount() const override { return static_cast<int64_t>(m_steps.size()); }
  fl::TrialPlan plan(int64_t) const override { return m_plan; }
  int64_t stepsDone(int64_t i) const override { return m_steps[i]; }
  void setActive(int64_t i, bool active) override { m_active[i] = active; }
  std::vector<std::optional<fl::StepLoss>> trainStep() override {
    std::vector<std::optional<fl::StepLoss>> losses(m_steps.size());
    const auto shared = std::make_shared<const fl::GroupStepLosses>(
        torch::full({memberCount()}, 1.0f, torch::kFloat));
    for (size_t i = 0; i < m_steps.size(); ++i) {
      if (!m_active[i] || m_steps[i] >= m_plan.totalSteps) continue;
      ++m_steps[i];
      losses[i] = fl::StepLoss(shared, static_cast<int64_t>(i));
    }
    return losses;
  }
  void evaluate(int64_t, bool final, fl::EvalReport& out) override {
    const fl::EvalReport& copy = final ? m_real.finalReport : m_real.report;
    for (const auto& metric : copy.metrics) out.metrics.push_back(metric);
    for (const auto& snapshot : copy.snapshots) out.snapshot(snapshot);
  }
  bool supportsCheckpoints() const override { return true; }
  void saveCheckpoint(int64_t, const std::string& path) const override {
    m_real.program.saveCheckpoint(0, path);
  }

 private:
  fl::TrialPlan m_plan;
  RealMember& m_real;
  std::vector<int64_t> m_steps;
  std::vector<bool> m_active;
};

// fourier-head's parameters and selection metric, with FreeStepGroup as its group.
class FreeStepExperiment : public fl::Experiment {
 public:
  FreeStepExperiment(std::shared_ptr<const fl::Experiment> real, int64_t members,
                     fl::TrialPlan plan, RealMember& member)
      : m_real(std::move(real)), m_members(members), m_plan(plan), m_member(member) {}
  std::string name() const override { return m_real->name(); }
  std::string title() const override { return m_real->title(); }
  std::string description() const override { return m_real->description(); }
  std::vector<fl::ParamSpec> params() const override { return m_real->params(); }
  std::vector<fl::PanelSpec> panels() const override { return {}; }
  std::vector<fl::Preset> presets() const override { return {}; }
  std::optional<fl::SelectionMetric> selectionMetric() const override {
    return m_real->selectionMetric();
  }
  std::unique_ptr<fl::Trial> createTrial(const fl::TrialContext&) const override {
    throw std::logic_error("the bench trains groups only");
  }
  std::string groupDifference(const nlohmann::json&, const nlohmann::json&) const override {
    return "";
  }
  std::unique_ptr<fl::BatchedTrial> createGroup(
      const std::vector<fl::TrialContext>&) const override {
    return std::make_unique<FreeStepGroup>(m_members, m_plan, m_member);
  }

 private:
  std::shared_ptr<const fl::Experiment> m_real;
  int64_t m_members;
  fl::TrialPlan m_plan;
  RealMember& m_member;
};

class NullSink : public fl::EventSink {
 public:
  void onEvent(const fl::Event&) override {}
};

enum class Sinks { None, Store, StoreAndCheckpoints };

double cpuSecondsOfProcess() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  auto seconds = [](const timeval& t) { return t.tv_sec + t.tv_usec * 1e-6; };
  return seconds(usage.ru_utime) + seconds(usage.ru_stime);
}

void timeGroup(const char* label, Sinks sinks, const FreeStepExperiment& experiment,
               const nlohmann::json& memberConfig, int64_t members, int64_t groupSteps,
               const fs::path& folder) {
  const fs::path storePath = folder / (std::string(label) + ".db");
  std::unique_ptr<fl::store::RunStore> store;
  if (sinks != Sinks::None) store = std::make_unique<fl::store::RunStore>(storePath.string());
  NullSink null;
  std::vector<std::unique_ptr<fl::store::StoreSink>> storeSinks;
  std::vector<fl::GroupMemberSpec> specs;
  nlohmann::json config = memberConfig;
  // 0 evaluations between checkpoints: none (the 60 s bound is never reached here).
  if (sinks != Sinks::StoreAndCheckpoints) config["checkpoint_every"] = 0;
  for (int64_t i = 0; i < members; ++i) {
    fl::GroupMemberSpec spec;
    spec.config = config;
    spec.sink = &null;
    if (store) {
      const int64_t id = store->createRun({"fourier-head", "", config, {}, {}});
      storeSinks.push_back(std::make_unique<fl::store::StoreSink>(store->path(), id));
      spec.sink = storeSinks.back().get();
      if (sinks == Sinks::StoreAndCheckpoints) spec.checkpointDir = store->artifactFolder(id);
    }
    specs.push_back(std::move(spec));
  }
  auto shared = std::shared_ptr<const fl::Experiment>(&experiment, [](const fl::Experiment*) {});
  fl::GroupRunner runner(shared, std::move(specs), 1);
  const double cpu0 = cpuSecondsOfProcess();
  const auto t0 = std::chrono::steady_clock::now();
  runner.start();
  runner.join();
  const auto t1 = std::chrono::steady_clock::now();
  int64_t written = 0;
  for (auto& sink : storeSinks) {
    sink->close();
    written += sink->eventsWritten();
  }
  const auto t2 = std::chrono::steady_clock::now();
  const double cpu = cpuSecondsOfProcess() - cpu0;
  int64_t finished = 0;
  for (int64_t i = 0; i < members; ++i)
    finished += runner.finalStatus(i) == fl::RunStatus::Finished ? 1 : 0;
  const double train = std::chrono::duration<double>(t1 - t0).count();
  const double closing = std::chrono::duration<double>(t2 - t1).count();
  std::printf("%-26s %9.1f %10.2f %9.3f %9.3f %8.2f %10lld %5lld/%lld\n", label,
              train / static_cast<double>(groupSteps) * 1e6,
              train / static_cast<double>(groupSteps * members) * 1e6, train, closing, cpu,
              static_cast<long long>(written), static_cast<long long>(finished),
              static_cast<long long>(members));
}

}  // namespace

int main(int argc, char** argv) {
  const int64_t members = argc > 1 ? std::atoll(argv[1]) : 240;
  const int64_t epochs = argc > 2 ? std::atoll(argv[2]) : 20;
  if (members < 1 || epochs < 1) {
    std::fprintf(stderr, "usage: bench_group_runner [members>=1] [epochs>=1]\n");
    return 2;
  }
  at::set_num_threads(1);
  fl::ExperimentRegistry registry;
  fl::registerBuiltinExperiments(registry);
  const auto real = registry.find("fourier-head");
  auto built = fl::buildConfig(*real, "", {"epochs=" + std::to_string(epochs), "device=cpu"});
  const nlohmann::json config = built.values;
  const auto settings = ToyBenchmarkSettings::fromConfig(config);
  const fl::TrialPlan plan =
      fl::fourier_head::toyBenchmarkPlan(settings, fl::fourier_head::toyTrainSize(settings));
  RealMember member(config);
  FreeStepExperiment experiment(real, members, plan, member);

  const fs::path folder =
      fs::temp_directory_path() / ("bench_group_runner." + std::to_string(::getpid()));
  fs::create_directories(folder);
  std::printf(
      "bench_group_runner: %lld members, %lld epochs of %lld steps (%lld group steps), "
      "evaluated every %lld steps, %zu metrics and %zu snapshots an evaluation\n",
      static_cast<long long>(members), static_cast<long long>(epochs),
      static_cast<long long>(plan.stepsPerEpoch), static_cast<long long>(plan.totalSteps),
      static_cast<long long>(plan.evalEvery), member.report.metrics.size(),
      member.report.snapshots.size());
  std::printf("%-26s %9s %10s %9s %9s %8s %10s %9s\n", "sinks", "us/step", "us/member", "train s",
              "closing s", "cpu s", "events", "finished");
  timeGroup("none", Sinks::None, experiment, config, members, plan.totalSteps, folder);
  timeGroup("store", Sinks::Store, experiment, config, members, plan.totalSteps, folder);
  timeGroup("store+checkpoints", Sinks::StoreAndCheckpoints, experiment, config, members,
            plan.totalSteps, folder);
  fs::remove_all(folder);
  return 0;
}
