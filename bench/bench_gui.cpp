// GUI responsiveness, measured (run with QT_QPA_PLATFORM=offscreen, or under Xvfb):
//  1. replot time of a metric plot holding 1 million points (decimation + QCustomPlot paint);
//  2. training throughput of the same run headless and with the window attached and drawing,
//     both in this one process, one after the other, so the machine's noise is shared;
//  3. a comparison's snapshots reaching the panels: every compared run's snapshot history goes
//     to each snapshot panel (the heatmaps over steps keep it all), on the GUI thread.
//   QT_QPA_PLATFORM=offscreen build/bench/bench_gui [epochs]
#include <unistd.h>

#include <QApplication>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QSpinBox>
#include <QTimer>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>

#include <qcustomplot.h>

#include "app/gui/launch_panel.h"
#include "app/gui/main_window.h"
#include "app/gui/run_view.h"
#include "app/gui/run_views.h"
#include "core/engine/event_queue.h"
#include "core/engine/registry.h"
#include "core/engine/runner.h"
#include "core/store/run_store.h"
#include "core/store/store_sink.h"
#include "core/study/thread_budget.h"
#include "experiments/builtin_experiments.h"
#include "widgets/config_form.h"
#include "widgets/dashboard.h"
#include "widgets/metric_plot.h"

namespace fs = std::filesystem;

// The bench's shared set-up: the fourier-head experiment at the paper's settings, a scratch
// folder for the stores.
struct TrainingBench {
  fl::ExperimentRegistry registry;
  std::shared_ptr<const fl::Experiment> experiment;
  nlohmann::json config;
  fs::path folder;
  int epochs = 0;
};

// 1. Replot of 1M points, raw and smoothed.
static void benchReplot() {
  fl::widgets::MetricPlot plot("loss", "step", "value");
  plot.resize(900, 500);
  plot.show();
  std::vector<double> x(1000000), y(1000000);
  for (size_t i = 0; i < x.size(); ++i) {
    x[i] = static_cast<double>(i);
    y[i] = 3.0 * std::exp(-1e-6 * i) + 0.1 * std::sin(i * 0.01) + (i % 99991 == 0 ? 2.0 : 0.0);
  }
  plot.setCurve("run 1 train/loss", Qt::blue, x, y);
  QElapsedTimer t;
  double best = 1e9;
  for (int r = 0; r < 5; ++r) {
    t.restart();
    plot.refresh();
    plot.plot()->replot(QCustomPlot::rpImmediateRefresh);
    best = std::min(best, t.nsecsElapsed() / 1e6);
  }
  std::printf(
      "replot, 1,000,000 points: %.1f ms (best of 5; %d points drawn after min/max decimation)\n",
      best, plot.drawnPointCount("run 1 train/loss"));
  plot.setSmoothing(0.9);
  t.restart();
  plot.refresh();
  plot.plot()->replot(QCustomPlot::rpImmediateRefresh);
  const double first = t.nsecsElapsed() / 1e6;
  plot.appendToCurve("run 1 train/loss", {1e6}, {1.0});  // a live tick: one new point
  t.restart();
  plot.refresh();
  plot.plot()->replot(QCustomPlot::rpImmediateRefresh);
  std::printf(
      "replot with smoothing, 1,000,000 points: %.1f ms when the weight changes, "
      "%.1f ms per live tick after (the EMA is extended, not recomputed)\n",
      first, t.nsecsElapsed() / 1e6);
}

// Headless as fourierlab-cli runs: the Runner writing into a store through its sink, so the
// difference with the window is the window's own work (draining, drawing).
static double trainHeadless(const TrainingBench& bench, int round) {
  const auto& folder = bench.folder;
  const auto& config = bench.config;
  const auto& experiment = bench.experiment;
  const auto db = (folder / ("headless" + std::to_string(round) + ".db")).string();
  fl::store::RunStore store(db);
  const int64_t id = store.createRun({"fourier-head", "", config, {}, {}});
  fl::store::StoreSink storeSink(db, id);
  fl::EventQueue queue;
  fl::FanOutSink sink({&storeSink, &queue});
  fl::RunnerOptions options;
  options.checkpointDir = store.artifactFolder(id);
  // The threads the window's queue gives one such run (the studies' thread budget), so the
  // two differ only by the window's own work.
  options.threads =
      fl::study::planThreadBudget(fl::availableCores(), 1, experiment->usefulThreads(config))
          .threadsPerRun;
  fl::Runner runner(experiment, config, sink, options);
  QElapsedTimer t;
  t.start();
  runner.start();
  runner.join();
  storeSink.close();
  return t.nsecsElapsed() / 1e9;
}

// The window in a real event loop (as under exec(): the GUI thread sleeps between timer
// ticks). With `stalls`, a 2 ms precise timer measures how long the GUI thread is busy at a
// stretch (drain, replot, tables): an event waits at most one 33 ms tick period plus that.
static double trainInWindow(TrainingBench& bench, int round, std::vector<double>* stalls) {
  const auto& folder = bench.folder;
  const int epochs = bench.epochs;
  auto& registry = bench.registry;
  auto store = std::make_unique<fl::store::RunStore>(
      (folder / ("bench" + std::to_string(round) + ".db")).string());
  fl::gui::MainWindow window(registry, std::move(store));
  window.resize(1500, 950);
  window.show();
  window.launchPanel()->selectPreset("paper-fourier");
  qobject_cast<QSpinBox*>(window.launchPanel()->form()->field("epochs"))->setValue(epochs);
  QEventLoop loop;
  QTimer poll;
  int64_t id = 0;
  QObject::connect(&poll, &QTimer::timeout, [&] {
    const fl::gui::RunView* view = id ? window.views().find(id) : nullptr;
    if (view && fl::isTerminal(view->status())) loop.quit();
  });
  poll.start(50);
  QTimer probe;
  QElapsedTimer sinceProbe;
  if (stalls) {
    probe.setTimerType(Qt::PreciseTimer);
    QObject::connect(&probe, &QTimer::timeout, [&] {
      if (sinceProbe.isValid()) stalls->push_back(sinceProbe.nsecsElapsed() / 1e6 - 2.0);
      sinceProbe.start();
    });
    probe.start(2);
  }
  QElapsedTimer t;
  t.start();
  id = window.launch();
  loop.exec();
  return t.nsecsElapsed() / 1e9;
}

// 2. Throughput: headless, then with the window drawing every 33 ms.
static void benchThroughput(TrainingBench& bench) {
  const int epochs = bench.epochs;
  const double steps = epochs * 125.0;
  std::printf(
      "training, paper-fourier gmm2, %d epochs (%.0f steps), headless (into a store, as the "
      "CLI) then with the window attached and drawing, 3 rounds:\n",
      epochs, steps);
  std::vector<double> slowdowns;
  for (int round = 0; round < 3; ++round) {
    const double headless = trainHeadless(bench, round);
    const double windowed = trainInWindow(bench, round, nullptr);
    slowdowns.push_back(100.0 * (windowed / headless - 1.0));
    std::printf(
        "  round %d: headless %.2f s (%.0f steps/s), window %.2f s (%.0f steps/s): %+.1f %%\n",
        round + 1, headless, steps / headless, windowed, steps / windowed, slowdowns.back());
  }
  std::sort(slowdowns.begin(), slowdowns.end());
  std::printf("  median slowdown with the window: %+.1f %%\n", slowdowns[1]);
  std::vector<double> stalls;
  trainInWindow(bench, 3, &stalls);
  std::sort(stalls.begin(), stalls.end());
  auto quantile = [&](double q) { return stalls[static_cast<size_t>(q * (stalls.size() - 1))]; };
  std::printf(
      "GUI thread busy at a stretch while it trains (a 2 ms timer's lateness, %zu samples): "
      "median %.2f ms, p99 %.1f ms, max %.1f ms; an event reaches the screen within one "
      "33 ms tick plus that: <= %.0f ms\n",
      stalls.size(), quantile(0.5), quantile(0.99), stalls.back(), 33.0 + stalls.back());
}

// 3. Twelve compared runs of the Fourier-head experiment, 200 evaluations each, every snapshot
// series its panels draw (50 bins): the time to hand them to the dashboard, and one refresh.
static void benchComparisonSnapshots(const fl::Experiment& experiment) {
  fl::widgets::Dashboard dashboard;
  dashboard.resize(1600, 900);
  dashboard.setPanels(experiment.panels());
  std::vector<std::string> series;
  for (const auto& panel : experiment.panels())
    if (panel.kind != fl::PanelKind::MetricLines && panel.kind != fl::PanelKind::Verdict &&
        panel.kind != fl::PanelKind::Probe)
      for (const auto& name : panel.series)
        if (std::find(series.begin(), series.end(), name) == series.end()) series.push_back(name);
  constexpr int kRuns = 12, kSteps = 200, kBins = 50;
  std::vector<fl::Snapshot> snapshots;
  for (const auto& name : series) {
    fl::Snapshot s;
    s.name = name;
    s.shape = {kBins};
    s.axes = {{"bin", "", {}}};
    for (int k = 0; k < kBins; ++k) s.data.push_back(1.0f / static_cast<float>(1 + k));
    snapshots.push_back(s);
  }
  QElapsedTimer t;
  t.start();
  int64_t calls = 0;
  for (int step = 1; step <= kSteps; ++step)
    for (int64_t run = 2; run <= kRuns + 1; ++run)
      for (const auto& s : snapshots) {
        dashboard.addOverlaySnapshot(run, s, step * 10);
        ++calls;
      }
  const double handMs = static_cast<double>(t.nsecsElapsed()) / 1e6;
  t.restart();
  dashboard.refresh();
  const double refreshMs = static_cast<double>(t.nsecsElapsed()) / 1e6;
  std::printf(
      "comparison snapshots: %d runs x %d evaluations x %zu series = %lld handed to the "
      "panels in %.1f ms (%.2f us each), then one refresh in %.1f ms\n",
      kRuns, kSteps, series.size(), static_cast<long long>(calls), handMs,
      1000.0 * handMs / static_cast<double>(calls), refreshMs);
}

int main(int argc, char** argv) {
  QApplication app(argc, argv);
  TrainingBench bench;
  bench.epochs = argc > 1 ? std::atoi(argv[1]) : 100;
  std::printf("# bench_gui (platform %s)\n", qPrintable(QGuiApplication::platformName()));
  benchReplot();
  fl::registerBuiltinExperiments(bench.registry);
  bench.experiment = bench.registry.find("fourier-head");
  benchComparisonSnapshots(*bench.experiment);
  bench.config = fl::buildConfig(*bench.experiment, "paper-fourier",
                                 {"epochs=" + std::to_string(bench.epochs), "device=cpu"})
                     .values;
  bench.folder = fs::temp_directory_path() / ("fourierlab-bench-gui-" + std::to_string(getpid()));
  fs::create_directories(bench.folder);
  benchThroughput(bench);
  fs::remove_all(bench.folder);
  return 0;
}
