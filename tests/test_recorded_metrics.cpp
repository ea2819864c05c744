// Tests Experiment::recordedMetrics against what each built-in experiment's runs record: every
// metric an evaluation reports is declared, every name declared for a config is reported by a
// run of it, and every metric a dashboard panel draws is one a run records. A study file's metric
// names are checked against these declarations before its runs train (test_study_spec), so a
// name missing here would refuse a sound study, and one declared in vain would let a typo by.
#include <QtTest>

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <torch/torch.h>

#include "core/engine/experiment.h"
#include "core/engine/registry.h"
#include "core/engine/seeding.h"
#include "core/study/metric_names.h"
#include "experiments/builtin_experiments.h"

namespace {

const fl::ExperimentRegistry& registry() {
  static const fl::ExperimentRegistry r = [] {
    fl::ExperimentRegistry reg;
    fl::registerBuiltinExperiments(reg);
    return reg;
  }();
  return r;
}

// A transformer small enough to train a step and evaluate in well under a second.
const std::vector<std::string> kTinyTransformer = {"d_model=32",   "heads=2", "layers=1",
                                                   "batch_size=4", "steps=2", "warmup=1"};
// The same on the built-in structured text, for the character models.
const std::vector<std::string> kTinyCharModel = {"d_model=32",           "heads=2", "layers=1",
                                                 "batch_size=4",         "steps=2", "warmup=1",
                                                 "synthetic_chars=20000"};

std::vector<std::string> with(std::vector<std::string> base, const std::vector<std::string>& more) {
  base.insert(base.end(), more.begin(), more.end());
  return base;
}

std::vector<std::string> choicesOf(const fl::Experiment& experiment, const std::string& key) {
  for (const auto& spec : experiment.params())
    if (spec.name == key) return spec.choices;
  return {};
}

// The configs each experiment is tried with: every head, filter variant and position encoding,
// and the settings that change which metrics a run records.
std::map<std::string, std::vector<std::vector<std::string>>> configsToTry() {
  std::map<std::string, std::vector<std::vector<std::string>>> configs;
  for (const char* head : {"linear", "fourier", "gmm"})
    configs["fourier-head"].push_back({std::string("head=") + head, "samples=200", "epochs=1"});

  const auto qk = registry().find("fourier-qk");
  for (const auto& variant : choicesOf(*qk, "variant"))
    configs["fourier-qk"].push_back(
        with(kTinyCharModel, {"variant=" + variant, "train_len=64", "eval_tokens=512"}));
  configs["fourier-qk"].push_back(with(
      kTinyCharModel, {"variant=fourier", "fixed_centre=true", "train_len=64", "eval_tokens=512"}));

  const auto fope = registry().find("fope");
  for (const auto& position : choicesOf(*fope, "position"))
    configs["fope"].push_back(
        with(kTinyCharModel, {"position=" + position, "train_len=16", "eval_tokens=512",
                              "passkey_mix=0", "passkey_samples=4", "eval_factors=1,4"}));
  configs["fope"].push_back(
      with(kTinyCharModel, {"train_len=16", "eval_tokens=512", "passkey_mix=0", "passkey_samples=0",
                            "eval_factors=1,2"}));
  configs["fope"].push_back(
      with(kTinyCharModel,
           {"train_len=64", "eval_tokens=1024", "passkey_protocol=zero-shot", "passkey_mix=0",
            "passkey_samples=2", "passkey_digits=4", "eval_factors=1,8"}));

  for (const char* init : {"random", "fourier"})
    configs["addition"].push_back(with(
        kTinyTransformer, {"operands=20", "top_periods=3", std::string("embedding_init=") + init}));
  return configs;
}

struct Recorded {
  nlohmann::json config;
  std::vector<std::string> declared;
  std::set<std::string> reported;
};

// Each config tried, built, trained a step and evaluated as a final evaluation; a config the
// experiment refuses is a mistake of this test, said as such.
std::map<std::string, std::vector<Recorded>> recordRuns(std::string& refused) {
  std::map<std::string, std::vector<Recorded>> out;
  for (const auto& [name, configs] : configsToTry()) {
    const auto experiment = registry().find(name);
    for (const auto& assignments : configs) {
      const auto built = fl::buildConfig(*experiment, "", assignments);
      if (!built.ok()) {
        refused += name + ": " + built.summary() + "\n";
        continue;
      }
      Recorded r;
      r.config = built.values;
      r.declared = experiment->recordedMetrics(built.values).value_or(std::vector<std::string>{});
      const uint64_t seed = 7;
      std::unique_ptr<fl::Trial> trial;
      {
        fl::SeededScope scope(seed);
        trial = experiment->createTrial({built.values, c10::kCPU, seed});
      }
      trial->trainStep(0);
      fl::EvalReport report;
      trial->evaluate(1, /*final=*/true, report);
      for (const auto& [key, value] : report.metrics) r.reported.insert(key);
      out[name].push_back(std::move(r));
    }
  }
  return out;
}

bool covered(const std::vector<std::string>& declared, const std::string& key) {
  return std::any_of(declared.begin(), declared.end(),
                     [&](const std::string& d) { return fl::study::coversMetric(d, key); });
}

std::string joined(const std::set<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

}  // namespace

class TestRecordedMetrics : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() {
    torch::set_num_threads(1);
    std::string refused;
    m_runs = recordRuns(refused);
    QVERIFY2(refused.empty(), refused.c_str());
  }

  void everyBuiltInExperimentDeclaresItsMetrics() {
    for (const auto& experiment : registry().all()) {
      const auto configs = configsToTry();
      QVERIFY2(configs.count(experiment->name()),
               (experiment->name() + " is not tried here: add its configs").c_str());
      const auto built = fl::buildConfig(*experiment, "", {});
      QVERIFY2(built.ok(), built.summary().c_str());
      QVERIFY2(experiment->recordedMetrics(built.values).has_value(), experiment->name().c_str());
      QCOMPARE(m_runs.at(experiment->name()).size(), configs.at(experiment->name()).size());
      for (const auto& run : m_runs.at(experiment->name()))
        QVERIFY2(run.reported.size() >= 3, run.config.dump().c_str());
    }
  }

  void everyReportedMetricIsDeclared() {
    for (const auto& [name, runs] : m_runs)
      for (const auto& run : runs) {
        std::set<std::string> undeclared;
        for (const auto& key : run.reported)
          if (!covered(run.declared, key)) undeclared.insert(key);
        QVERIFY2(undeclared.empty(), (name + " " + run.config.dump() +
                                      " reported what it does not declare: " + joined(undeclared))
                                         .c_str());
      }
  }

  void everyDeclaredNameIsReportedByARunOfItsConfig() {
    for (const auto& [name, runs] : m_runs)
      for (const auto& run : runs) {
        QVERIFY2(!run.declared.empty(), name.c_str());
        std::set<std::string> unreported;
        for (const auto& declared : run.declared)
          if (std::none_of(run.reported.begin(), run.reported.end(), [&](const std::string& key) {
                return fl::study::coversMetric(declared, key);
              }))
            unreported.insert(declared);
        QVERIFY2(unreported.empty(),
                 (name + " " + run.config.dump() +
                  " declared what its run did not report: " + joined(unreported))
                     .c_str());
      }
  }

  void theRecordedNamesFollowTheConfig() {
    const auto fope = registry().find("fope");
    auto names = [&](const std::vector<std::string>& assignments) {
      const auto built = fl::buildConfig(*fope, "", with(kTinyCharModel, assignments));
      if (!built.ok()) throw std::invalid_argument(built.summary());
      const auto declared = fope->recordedMetrics(built.values).value();
      return std::set<std::string>(declared.begin(), declared.end());
    };
    const auto rope = names({"position=rope", "train_len=16", "eval_factors=1,4", "passkey_mix=0",
                             "passkey_samples=4"});
    QVERIFY(rope.count("val/ppl@16") && rope.count("val/ppl@64"));
    QVERIFY(!rope.count("val/ppl@32"));
    QVERIFY(rope.count("spectrum/purity_L0") && !rope.count("spectrum/purity_L1"));  // 1 layer
    const auto alibi = names({"position=alibi", "train_len=16", "eval_factors=1,4", "passkey_mix=0",
                              "passkey_samples=0"});
    QVERIFY(!alibi.count("spectrum/purity_L0"));
    QVERIFY(std::none_of(alibi.begin(), alibi.end(),
                         [](const std::string& n) { return n.starts_with("passkey/"); }));
  }

  void everyPanelsMetricIsOneARunRecords() {
    for (const auto& experiment : registry().all()) {
      std::vector<std::string> declared{"train/loss",
                                        "system/cpu_percent",
                                        "system/rss_mib",
                                        "system/runs_in_process",
                                        "system/gpu_util_percent",
                                        "system/gpu_mem_mib",
                                        "system/gpu_torch_reserved_mib"};
      for (const auto& run : m_runs.at(experiment->name()))
        declared.insert(declared.end(), run.declared.begin(), run.declared.end());
      for (const auto& panel : experiment->panels()) {
        if (panel.kind != fl::PanelKind::MetricLines) continue;
        auto series = panel.series;
        series.insert(series.end(), panel.onRequest.begin(), panel.onRequest.end());
        for (const auto& key : series)
          // A panel's series ending in '*' draws every metric it begins (panel_spec.h).
          QVERIFY2(key.ends_with('*')
                       ? std::any_of(declared.begin(), declared.end(),
                                     [&](const std::string& d) {
                                       return d.starts_with(key.substr(0, key.size() - 1));
                                     })
                       : covered(declared, key),
                   (experiment->name() + " panel " + panel.id + " draws " + key +
                    ", which no run declares")
                       .c_str());
      }
    }
  }

 private:
  std::map<std::string, std::vector<Recorded>> m_runs;
};

QTEST_GUILESS_MAIN(TestRecordedMetrics)
#include "test_recorded_metrics.moc"
