// Run store figures: metric points ingested per second through StoreSink from a live Runner,
// time to list 10,000 runs (with their metric summaries), time to load one run's 1 million
// metric points. Uses a temporary database under /tmp (or $TMPDIR).
//
//   build/bench/bench_run_store [points]
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>

#include "core/engine/runner.h"
#include "core/store/run_store.h"
#include "core/store/store_sink.h"

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

double secondsSince(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

// A trial whose steps cost nothing and whose every evaluation reports `keys` metrics: the
// store, not the model, is what is measured.
class FloodTrial : public fl::Trial {
 public:
  FloodTrial(int64_t steps, int keys) : m_steps(steps), m_keys(keys) {}
  fl::TrialPlan plan() const override { return {m_steps, m_steps, m_steps, 1}; }
  fl::StepLoss trainStep(int64_t) override { return 1.0; }
  void evaluate(int64_t step, bool, fl::EvalReport& out) override {
    for (int k = 0; k < m_keys; ++k)
      out.metric("m" + std::to_string(k), static_cast<double>((step * 31 + k) % 1000));
  }

 private:
  int64_t m_steps;
  int m_keys;
};

class FloodExperiment : public fl::Experiment {
 public:
  FloodExperiment(int64_t steps, int keys) : m_steps(steps), m_keys(keys) {}
  std::string name() const override { return "flood"; }
  std::string title() const override { return "flood"; }
  std::string description() const override { return ""; }
  std::vector<fl::ParamSpec> params() const override { return {}; }
  std::vector<fl::PanelSpec> panels() const override { return {}; }
  std::vector<fl::Preset> presets() const override { return {}; }
  std::unique_ptr<fl::Trial> createTrial(const fl::TrialContext&) const override {
    return std::make_unique<FloodTrial>(m_steps, m_keys);
  }

 private:
  int64_t m_steps;
  int m_keys;
};

}  // namespace

int main(int argc, char** argv) {
  const int64_t points = argc > 1 ? std::stoll(argv[1]) : 1000000;
  const auto folder = fs::temp_directory_path() / ("fourierlab-bench-" + std::to_string(getpid()));
  fs::create_directories(folder);
  const auto db = (folder / "bench.db").string();
  std::printf("# bench_run_store (database %s)\n", db.c_str());

  // 1. Ingest through the sink with a live Runner: 100 keys per evaluation, one per step.
  const int keys = 100;
  const int64_t steps = points / keys;
  int64_t runId = 0;
  {
    fl::store::RunStore store(db);
    runId = store.createRun({"flood", "ingest", {{"seed", 0}, {"device", "cpu"}}, {}, {}});
    auto experiment = std::make_shared<FloodExperiment>(steps, keys);
    fl::store::StoreSink sink(db, runId);
    fl::Runner runner(experiment, {{"device", "cpu"}, {"checkpoint_every", 0}}, sink);
    const auto t0 = Clock::now();
    runner.start();
    runner.join();
    const double produced = secondsSince(t0);
    sink.close();
    const double total = secondsSince(t0);
    const int64_t stored = points + steps;  // plus one train/loss point per step
    std::printf(
        "ingest: %lld points (%d keys x %lld steps + train/loss) produced in %.2f s, "
        "all committed after %.2f s: %.2f million points/s\n",
        static_cast<long long>(stored), keys, static_cast<long long>(steps), produced, total,
        stored / total / 1e6);
    if (sink.error()) std::printf("  sink error: %s\n", sink.error()->c_str());
  }

  // 2. Load one series of 1 million points: one key written for every step.
  {
    fl::store::RunStore store(db);
    const int64_t id = store.createRun({"flood", "one series", {{"seed", 0}}, {}, {}});
    std::vector<fl::Event> batch;
    batch.reserve(100000);
    for (int64_t step = 1; step <= 1000000; ++step) {
      batch.push_back(fl::MetricEvent{"train/loss", step, step * 1e-3, 1.0 / step});
      if (batch.size() == 100000) {
        store.writeEvents(id, batch);
        batch.clear();
      }
    }
    const auto t0 = Clock::now();
    const auto series = store.metric(id, "train/loss");
    std::printf("load: %zu points of one metric in %.0f ms\n", series.size(),
                secondsSince(t0) * 1e3);
  }

  // 3. List 10,000 runs with five metric summaries each.
  {
    fl::store::RunStore store(db);
    for (int i = 0; i < 10000; ++i) {
      const int64_t id = store.createRun({"fourier-head",
                                          "run " + std::to_string(i),
                                          {{"seed", i}, {"lr", 1e-3}, {"head", "fourier"}},
                                          {i % 2 ? "odd" : "even"},
                                          {}});
      std::vector<fl::Event> events;
      for (const char* key :
           {"train/loss", "test/kl", "test/mse_expected", "test/mse_argmax", "test/smoothness"})
        for (int64_t step = 1; step <= 3; ++step)
          events.push_back(fl::MetricEvent{key, step, 0.0, 1.0 * step});
      store.writeEvents(id, events);
    }
    for (int repeat = 0; repeat < 3; ++repeat) {
      const auto t0 = Clock::now();
      const auto runs = store.listRuns({});
      std::printf("list: %zu runs with tags and metric summaries in %.0f ms\n", runs.size(),
                  secondsSince(t0) * 1e3);
    }
  }
  // 4. Open the whole store (10k runs, 2M+ points): read-write runs PRAGMA quick_check first,
  // read-only does not, so the difference is what vetting every page costs each open.
  std::error_code ec;
  std::printf("open: store of %.0f MiB\n", fs::file_size(db, ec) / 1048576.0);
  for (int repeat = 0; repeat < 3; ++repeat) {
    auto t0 = Clock::now();
    { fl::store::RunStore store(db, /*readOnly=*/true); }
    const double readOnlyMs = secondsSince(t0) * 1e3;
    t0 = Clock::now();
    { fl::store::RunStore store(db); }
    std::printf("open: read-only %.1f ms, read-write with quick_check %.1f ms\n", readOnlyMs,
                secondsSince(t0) * 1e3);
  }
  fs::remove_all(folder);
  return 0;
}
