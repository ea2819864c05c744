// Tests core/engine/system_usage.h and system_metrics.h: the /proc/self/statm reader and the CPU
// percent against figures computed here, the system panels every experiment gets, and real
// runs (alone, in a batched group, through fourierlab-cli into the store and its exports)
// recording the process's CPU and memory as "system/" series, and no GPU series on the CPU.
#include <QtTest>

#include <sys/resource.h>

#include <cmath>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "core/engine/event_queue.h"
#include "core/engine/group_runner.h"
#include "core/engine/registry.h"
#include "core/engine/runner.h"
#include "core/engine/system_metrics.h"
#include "core/engine/system_usage.h"
#include "experiments/builtin_experiments.h"
#include "tests/cli_process.h"

using fl::testing::lastJsonLine;
using fl::testing::runCli;

namespace {

// Every "system/" point of a run's events, by key, in step order.
std::map<std::string, std::vector<fl::MetricEvent>> systemSeries(
    const std::vector<fl::Event>& events) {
  std::map<std::string, std::vector<fl::MetricEvent>> out;
  for (const auto& e : events)
    if (auto* m = std::get_if<fl::MetricEvent>(&e); m && fl::isSystemMetric(m->key))
      out[m->key].push_back(*m);
  return out;
}

int64_t lastStepOf(const std::vector<fl::Event>& events) {
  int64_t last = 0;
  for (const auto& e : events)
    if (auto* p = std::get_if<fl::ProgressEvent>(&e)) last = p->step;
  return last;
}

// VmRSS in /proc/self/status, in MiB: the kernel's other account of the same resident memory.
double statusRssMib() {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("VmRSS:", 0) == 0) {
      std::istringstream fields(line.substr(6));
      double kib = 0;
      fields >> kib;
      return kib / 1024.0;
    }
  return NAN;
}

// getrusage's user + system time of every thread, in seconds.
double rusageCpuSeconds() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  auto seconds = [](const timeval& tv) {
    return static_cast<double>(tv.tv_sec) + static_cast<double>(tv.tv_usec) * 1e-6;
  };
  return seconds(usage.ru_utime) + seconds(usage.ru_stime);
}

}  // namespace

class TestSystemUsage : public QObject {
  Q_OBJECT

  QTemporaryDir m_dir;
  fl::ExperimentRegistry m_registry;

  nlohmann::json toyConfig(int seed) {
    return fl::buildConfig(
               *m_registry.find("fourier-head"), "",
               {"samples=300", "epochs=2", "device=cpu", "seed=" + std::to_string(seed)})
        .values;
  }

 private slots:
  void initTestCase() {
    QVERIFY(m_dir.isValid());
    fl::registerBuiltinExperiments(m_registry);
  }

  // The GPU's figures are the device's: runs of one process share one NVML answer while it is
  // fresh, and ask again once it is older than they allow (no NVML needed: the count is of the
  // questions, answered or not).
  void runsOnOneGpuShareOneNvmlAnswer() {
    fl::sharedGpuUsage(0, std::chrono::hours(1));  // an answer, whatever came before
    const int64_t before = fl::gpuUsageQueries();
    for (int run = 0; run < 240; ++run) fl::sharedGpuUsage(0, std::chrono::hours(1));
    QCOMPARE(fl::gpuUsageQueries(), before);
    fl::sharedGpuUsage(1, std::chrono::hours(1));  // another device has answers of its own
    QCOMPARE(fl::gpuUsageQueries(), before + 1);
    for (int run = 0; run < 5; ++run) fl::sharedGpuUsage(0, std::chrono::nanoseconds(-1));
    QCOMPARE(fl::gpuUsageQueries(), before + 6);
  }

  void statmGivesItsSecondFieldAsResidentPages() {
    QCOMPARE(fl::parseStatmResidentPages("24812 6235 3012 1 0 7345 0\n"),
             std::optional<int64_t>(6235));
    QCOMPARE(fl::parseStatmResidentPages("0 0 0 0 0 0 0"), std::optional<int64_t>(0));
    QVERIFY(!fl::parseStatmResidentPages(""));
    QVERIFY(!fl::parseStatmResidentPages("24812"));
    QVERIFY(!fl::parseStatmResidentPages("size resident"));
    QVERIFY(!fl::parseStatmResidentPages("24812 -3 0"));
  }

  void residentMemoryAgreesWithProcStatus() {
    // statm's pages times the page size against status's VmRSS in kB, read around it: nothing
    // here allocates between the reads beyond a line of text.
    const double before = statusRssMib();
    const auto rss = fl::processResidentMiB();
    const double after = statusRssMib();
    QVERIFY(rss.has_value());
    QVERIFY2(*rss > 0, qPrintable(QString::number(*rss)));
    const double slack = 0.5;  // MiB: a page or two touched by the reads themselves
    QVERIFY2(
        *rss >= std::min(before, after) - slack && *rss <= std::max(before, after) + slack,
        qPrintable(QString("statm %1 MiB, status %2..%3 MiB").arg(*rss).arg(before).arg(after)));
  }

  void cpuPercentIsCpuTimeOverWallTime() {
    // 1.5 s of CPU in 1 s of wall time: one core and a half.
    QCOMPARE(*fl::cpuPercent({10.0, 100.0}, {11.5, 101.0}, 2), 150.0);
    QCOMPARE(*fl::cpuPercent({10.0, 100.0}, {10.25, 102.0}, 2), 12.5);
    QCOMPARE(*fl::cpuPercent({10.0, 100.0}, {10.0, 102.0}, 2), 0.0);  // idle is 0, and said
    QVERIFY(!fl::cpuPercent({10.0, 100.0}, {11.0, 100.0}, 2));        // no time passed
    QVERIFY(!fl::cpuPercent({10.0, 100.0}, {9.0, 101.0}, 2));         // not the same process
    QVERIFY(!fl::cpuPercent({NAN, 100.0}, {9.0, 101.0}, 2));          // a time not read
    // Never more than the cores give: 41 ms of CPU counted in 13 ms on two cores reads 200.
    QCOMPARE(*fl::cpuPercent({10.0, 100.0}, {10.041, 100.013}, 2), 200.0);
    QCOMPARE(*fl::cpuPercent({10.0, 100.0}, {10.041, 100.013}, 0), 100.0);  // cores unknown: 1
  }

  // A CPU share over a few milliseconds is mostly the clock's lag: the sampler gives none until
  // half a second has passed since begin, except at the run's last step; memory it gives always.
  void theCpuShareWaitsForHalfASecondOrTheLastStep() {
    fl::SystemSampler sampler;
    sampler.begin("cpu");
    auto keys = [](const std::vector<std::pair<std::string, double>>& sample) {
      std::set<std::string> out;
      for (const auto& [key, value] : sample) out.insert(key);
      return out;
    };
    const auto first = keys(sampler.sample());
    QVERIFY(first.count(fl::kSystemRssMib));
    QVERIFY(!first.count(fl::kSystemCpuPercent));
    const auto last = keys(sampler.sample(/*lastStep=*/true));
    QVERIFY(last.count(fl::kSystemCpuPercent));
    QVERIFY(last.count(fl::kSystemRssMib));
  }

  // The runs training in the process are sampled when their number changes, not a second
  // later: held from sample to sample, a comparison's second arm read as starting up to a second
  // (thousands of toy steps) after it did.
  void aChangeInTheRunsTrainingIsSampledAtOnce() {
    fl::SystemSampler first;
    first.begin("cpu");
    QVERIFY(first.due(false));  // the first step's sample
    const auto runsIn = [](const std::vector<std::pair<std::string, double>>& sample) {
      for (const auto& [key, value] : sample)
        if (key == fl::kSystemRunsInProcess) return value;
      return -1.0;
    };
    const double alone = runsIn(first.sample());
    QVERIFY(!first.due(false));  // within the interval, nothing changed
    fl::SystemSampler second;
    second.begin("cpu");  // another run starts training in the process
    QVERIFY(first.due(false));
    QCOMPARE(runsIn(first.sample()), alone + 1);
    QVERIFY(!first.due(false));
    second.end();
    QVERIFY(first.due(false));
    QCOMPARE(runsIn(first.sample()), alone);
  }

  void processCpuTimeAgreesWithGetrusage() {
    // getrusage read around it: the kernel's same sum over every thread, split into user and
    // system time and cut to microseconds. The upper margin allows for a thread other than
    // this one running meanwhile, whose time is counted at the scheduler's tick (10 ms at
    // HZ=100); none should be.
    const double before = rusageCpuSeconds();
    const fl::CpuTimes t = fl::processCpuTimes();
    const double after = rusageCpuSeconds();
    QVERIFY2(t.cpuSeconds >= before - 1e-6 && t.cpuSeconds <= after + 0.011,
             qPrintable(QString("%1 not within %2..%3").arg(t.cpuSeconds).arg(before).arg(after)));
  }

  void everyExperimentGetsTheSystemPanelsOnce() {
    const auto cpuOnly = fl::systemPanels(false);
    const auto withGpu = fl::systemPanels(true);
    std::set<std::string> cpuSeries, gpuSeries;
    for (const auto& p : cpuOnly) cpuSeries.insert(p.series.begin(), p.series.end());
    for (const auto& p : withGpu) gpuSeries.insert(p.series.begin(), p.series.end());
    QVERIFY(cpuSeries.count(fl::kSystemCpuPercent) && cpuSeries.count(fl::kSystemRssMib) &&
            cpuSeries.count(fl::kSystemRunsInProcess));
    for (const auto& s : cpuSeries) QVERIFY2(s.find("gpu") == std::string::npos, s.c_str());
    QVERIFY(gpuSeries.count(fl::kSystemGpuUtilPercent) && gpuSeries.count(fl::kSystemGpuMemMib));
    for (const auto& p : withGpu) {
      QVERIFY(p.kind == fl::PanelKind::MetricLines);
      QCOMPARE(p.yFloor, 0.0);
      // A count of runs holds between samples (steps); the other figures are rates and sizes.
      QCOMPARE(p.stepwise, p.series == std::vector<std::string>{fl::kSystemRunsInProcess});
      for (const auto& s : p.series) QVERIFY2(fl::isSystemMetric(s), s.c_str());
    }
    // Titles say whose figure it is.
    QCOMPARE(cpuOnly[0].title, std::string("CPU (process, % of one core)"));
    QCOMPARE(cpuOnly[1].title, std::string("Memory (process, MiB)"));
    for (const auto& e : m_registry.all()) {
      const auto own = e->panels();
      const auto all = fl::withSystemPanels(own, true);
      QCOMPARE(all.size(), own.size() + withGpu.size());
      std::set<std::string> ids;
      for (const auto& p : all) ids.insert(p.id);
      QVERIFY2(ids.size() == all.size(), e->name().c_str());  // no id taken twice
    }
  }

  void aRunRecordsTheProcessCpuAndMemoryButNoGpuOnTheCpu() {
    fl::EventQueue queue;
    fl::Runner runner(m_registry.find("fourier-head"), toyConfig(3), queue);
    runner.start();
    runner.join();
    const auto events = queue.takeAll();
    QCOMPARE(fl::toString(std::get<fl::StatusEvent>(events.back()).status),
             std::string("finished"));
    const auto series = systemSeries(events);
    QVERIFY(series.count(fl::kSystemCpuPercent));
    QVERIFY(series.count(fl::kSystemRssMib));
    for (const auto& m : series.at(fl::kSystemCpuPercent))
      QVERIFY2(std::isfinite(m.value) && m.value >= 0, qPrintable(QString::number(m.value)));
    for (const auto& m : series.at(fl::kSystemRssMib))
      QVERIFY2(m.value > 0, qPrintable(QString::number(m.value)));
    for (const auto& m : series.at(fl::kSystemRunsInProcess)) QCOMPARE(m.value, 1.0);
    // Sampled at the first step and at the last, whatever happened between.
    const int64_t last = lastStepOf(events);
    QVERIFY(last > 1);
    QCOMPARE(series.at(fl::kSystemRssMib).front().step, int64_t(1));
    QCOMPARE(series.at(fl::kSystemRssMib).back().step, last);
    // A run on the CPU reads no GPU, GPU or not: none of its series, not zeros.
    for (const auto& [key, points] : series)
      QVERIFY2(key.find("gpu") == std::string::npos, key.c_str());
    QCOMPARE(fl::runsTrainingInProcess(), 0);  // the run no longer counts once it ended
  }

  void aBatchedGroupsMembersEachRecordTheSharedProcess() {
    auto e = m_registry.find("fourier-head");
    std::vector<fl::EventQueue> queues(2);
    std::vector<fl::GroupMemberSpec> specs;
    for (int i = 0; i < 2; ++i) specs.push_back({toyConfig(i + 1), &queues[i], "", {}});
    fl::GroupRunner group(e, specs);
    group.start();
    group.join();
    for (int i = 0; i < 2; ++i) {
      const auto events = queues[i].takeAll();
      QCOMPARE(int(group.finalStatus(i)), int(fl::RunStatus::Finished));
      const auto series = systemSeries(events);
      QVERIFY(series.count(fl::kSystemCpuPercent) && series.count(fl::kSystemRssMib));
      // At the first step both members were training in this one process, and say so.
      QCOMPARE(series.at(fl::kSystemRunsInProcess).front().step, int64_t(1));
      QCOMPARE(series.at(fl::kSystemRunsInProcess).front().value, 2.0);
    }
    QCOMPARE(fl::runsTrainingInProcess(), 0);
  }

  void theStoreAndItsReadersCarryTheSystemSeries() {
    const QString db = m_dir.filePath("system.db");
    auto run = runCli({"run", "fourier-head", "--set", "samples=300", "--set", "epochs=2",
                       "--device", "cpu", "--db", db, "--json"});
    QVERIFY2(run.exitCode == 0, qPrintable(run.err));
    // The evaluation lines are the run's results only.
    for (const auto& line : run.err.split('\n'))
      if (line.startsWith("eval step")) QVERIFY2(!line.contains("system/"), qPrintable(line));
    auto shown = nlohmann::json::parse(
        runCli({"runs", "--db", db, "show", "1", "--json"}).out.toStdString());
    for (const char* key : {fl::kSystemCpuPercent, fl::kSystemRssMib, fl::kSystemRunsInProcess})
      QVERIFY2(shown["summaries"].contains(key), key);
    QVERIFY(shown["summaries"][fl::kSystemRssMib]["min"].get<double>() > 0);
    QVERIFY(shown["summaries"][fl::kSystemCpuPercent]["min"].get<double>() >= 0);
    for (const auto& [key, value] : shown["summaries"].items())
      QVERIFY2(key.find("gpu") == std::string::npos, key.c_str());
    auto csv = runCli({"runs", "--db", db, "export", "1"});
    QCOMPARE(csv.exitCode, 0);
    QVERIFY(csv.out.contains(",system/rss_mib,1,"));  // its first point, at step 1
    QVERIFY(csv.out.contains(",system/cpu_percent,"));
  }
};

QTEST_APPLESS_MAIN(TestSystemUsage)
#include "test_system_usage.moc"
