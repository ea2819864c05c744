// Tests the History's run table (app/gui/history_model.h, history_view.h) as a researcher reads
// it: a study's runs are named by the study, its arm and their setting when the study creates
// them (core/study/study_run_name.h, StudyStore::claim), and runs an older build stored without
// a name read the same in the History while a name given by Rename is kept; the config columns
// come in the order each experiment declares its parameters; every numeric column sorts as
// numbers; the id column is shown. Two small experiments declare their parameters out of
// alphabetical order, so an order that merely sorts keys fails; nothing trains.
#include <QtTest>

#include <QComboBox>
#include <QPushButton>

#include <algorithm>
#include <random>
#include <set>

#include "app/gui/history_model.h"
#include "app/gui/history_view.h"
#include "app/gui/metric_order.h"
#include "app/gui/run_edit.h"
#include "core/engine/events.h"
#include "core/engine/registry.h"
#include "core/store/run_store.h"
#include "core/study/study_expansion.h"
#include "core/study/study_run_name.h"
#include "core/study/study_store.h"
#include "experiments/builtin_experiments.h"
#include "widgets/frozen_columns_view.h"

namespace {

class NoTrial : public fl::Trial {
 public:
  fl::TrialPlan plan() const override { return {1, 1, 1, 1}; }
  fl::StepLoss trainStep(int64_t) override { return 0.0; }
  void evaluate(int64_t, bool, fl::EvalReport&) override {}
};

// An experiment that declares `params` in the order given.
class DeclaredExperiment : public fl::Experiment {
 public:
  DeclaredExperiment(std::string name, std::vector<fl::ParamSpec> params)
      : m_name(std::move(name)), m_params(std::move(params)) {}
  std::string name() const override { return m_name; }
  std::string title() const override { return m_name; }
  std::string description() const override { return ""; }
  std::vector<fl::ParamSpec> params() const override { return m_params; }
  std::vector<fl::PanelSpec> panels() const override { return {}; }
  std::vector<fl::Preset> presets() const override { return {}; }
  std::unique_ptr<fl::Trial> createTrial(const fl::TrialContext&) const override {
    return std::make_unique<NoTrial>();
  }

 private:
  std::string m_name;
  std::vector<fl::ParamSpec> m_params;
};

// "toy": samples, frequencies, head, lr (then the run params: seed, device, ...).
std::shared_ptr<const fl::Experiment> toyExperiment() {
  return std::make_shared<DeclaredExperiment>(
      "toy",
      std::vector<fl::ParamSpec>{fl::ParamSpec::integer("samples", 5000, 1, 1000000, ""),
                                 fl::ParamSpec::integer("frequencies", 12, 1, 64, ""),
                                 fl::ParamSpec::choice("head", "linear", {"linear", "fourier"}, ""),
                                 fl::ParamSpec::real("lr", 0.001, 0, 1, "")});
}

// "lm": width, depth, lr.
std::shared_ptr<const fl::Experiment> lmExperiment() {
  return std::make_shared<DeclaredExperiment>(
      "lm", std::vector<fl::ParamSpec>{fl::ParamSpec::integer("width", 64, 1, 4096, ""),
                                       fl::ParamSpec::integer("depth", 2, 1, 64, ""),
                                       fl::ParamSpec::real("lr", 0.001, 0, 1, "")});
}

// "headed": head, then the Fourier head's frequencies, used only by the Fourier head.
std::shared_ptr<const fl::Experiment> headedExperiment() {
  return std::make_shared<DeclaredExperiment>(
      "headed",
      std::vector<fl::ParamSpec>{
          fl::ParamSpec::choice("head", "linear", {"linear", "fourier"}, ""),
          fl::ParamSpec::integer("frequencies", 12, 1, 64, "").usedOnlyWhen("head", {"fourier"}),
          fl::ParamSpec::real("lr", 0.001, 0, 1, "")});
}

fl::store::RunRecord runOf(int64_t id, const std::string& experiment, nlohmann::json config) {
  fl::store::RunRecord r;
  r.id = id;
  r.experiment = experiment;
  r.config = std::move(config);
  return r;
}

QStringList configColumns(const fl::gui::HistoryModel& model) {
  QStringList out;
  for (const auto& key : model.keys())
    if (key.startsWith("config:")) out << key.mid(7);
  return out;
}

}  // namespace

class TestHistoryModel : public QObject {
  Q_OBJECT

  QTemporaryDir m_dir;
  fl::ExperimentRegistry m_registry;
  int m_stores = 0;

  std::string freshStorePath() {
    return (m_dir.path() + QString("/history%1.db").arg(++m_stores)).toStdString();
  }

  // Stores `spec` (of the toy experiment) as a study; returns its id.
  int64_t storeStudy(fl::study::StudyStore& studies, const std::string& specText) {
    const auto spec = fl::study::StudySpec::fromText(specText);
    const auto expansion = fl::study::expandStudy(*m_registry.find("toy"), spec);
    if (!expansion.ok()) qFatal("%s", expansion.errors.front().c_str());
    return studies.create(spec, expansion);
  }

  // A finished run of the toy experiment as an older build (or a plain run) stored it.
  int64_t storeFinishedRun(fl::store::RunStore& store, const std::string& name,
                           const nlohmann::json& overrides) {
    const auto config = fl::validateRunConfig(*m_registry.find("toy"), overrides);
    if (!config.ok()) qFatal("%s", config.summary().c_str());
    const int64_t id = store.createRun({"toy", name, config.values, {}, {}});
    store.finishRun(id, fl::RunStatus::Finished, "");
    return id;
  }

 private slots:
  // Metric columns read numbers as numbers (@48 before @384; text order put @384 second), lead
  // with the held-out ones and list the process's figures last, whatever order the keys come in.
  void metricKeysAreInReadingOrder() {
    const QStringList expected{"test/kl",         "val/ppl@64",     "val/ppl@1024",
                               "passkey/acc@48",  "passkey/acc@96", "passkey/acc@192",
                               "passkey/acc@384", "train/loss",     "system/cpu_percent",
                               "system/rss_mib"};
    std::mt19937 random(7);
    for (int trial = 0; trial < 50; ++trial) {
      QStringList shuffled = expected + expected.mid(trial % 5, 2);  // with repeats
      std::shuffle(shuffled.begin(), shuffled.end(), random);
      QCOMPARE(fl::gui::inReadingOrder(shuffled), expected);
    }
  }

  // Runs without the sorted value used to come first in a descending sort, above the best run:
  // they come last in either order.
  void runsWithoutTheSortedValueComeLastEitherWay() {
    const auto path = freshStorePath();
    fl::store::RunStore store(path);
    for (double kl : {0.5, -1.0, 0.2, -1.0, 0.9}) {
      const int64_t id = store.createRun({"toy", "", {{"samples", 100}}, {}, {}});
      if (kl >= 0) store.writeEvents(id, {fl::MetricEvent{"test/kl", 10, 0.1, kl}});
      store.finishRun(id, fl::RunStatus::Finished, "");
    }
    fl::gui::HistoryView history(store, m_registry);
    history.refresh();
    using Ids = std::vector<int64_t>;
    QVERIFY(history.sortByKey("metric:test/kl:last", Qt::DescendingOrder));
    Ids shown = history.shownIds();
    QCOMPARE(Ids(shown.begin(), shown.begin() + 3), (Ids{5, 1, 3}));
    QCOMPARE(std::set<int64_t>(shown.begin() + 3, shown.end()), (std::set<int64_t>{2, 4}));
    QVERIFY(history.sortByKey("metric:test/kl:last", Qt::AscendingOrder));
    shown = history.shownIds();
    QCOMPARE(Ids(shown.begin(), shown.begin() + 3), (Ids{3, 1, 5}));
    QCOMPARE(std::set<int64_t>(shown.begin() + 3, shown.end()), (std::set<int64_t>{2, 4}));
  }

  // A run archived (History's Archive, `runs archive`) used to vanish with no way back in the
  // window: the status filter's "archived" lists such runs, and Unarchive brings them back.
  void archivedRunsAreListedApartAndComeBack() {
    const auto path = freshStorePath();
    fl::store::RunStore store(path);
    for (int seed : {1, 2, 3}) storeFinishedRun(store, "", {{"head", "linear"}, {"seed", seed}});
    fl::gui::HistoryView history(store, m_registry);
    history.refresh();
    // Newest first, as W&B lists runs (the run just trained was at the bottom).
    QCOMPARE(history.shownIds(), (std::vector<int64_t>{3, 2, 1}));
    QPushButton* archive = nullptr;
    for (auto* b : history.findChildren<QPushButton*>())
      if (b->text() == "Archive") archive = b;
    QVERIFY(archive);
    auto select = [&](int64_t id) {
      const auto ids = history.shownIds();
      const auto row = std::find(ids.begin(), ids.end(), id) - ids.begin();
      history.table()->clearSelection();
      history.table()->selectRow(static_cast<int>(row));
    };
    select(2);
    archive->click();
    QCOMPARE(history.shownIds(), (std::vector<int64_t>{3, 1}));
    QVERIFY(store.run(2)->archived);
    QComboBox* status = nullptr;
    for (auto* box : history.findChildren<QComboBox*>())
      if (box->findText("archived") >= 0) status = box;
    QVERIFY(status);
    status->setCurrentText("archived");
    QCOMPARE(history.shownIds(), std::vector<int64_t>{2});
    QCOMPARE(archive->text(), QString("Unarchive"));
    select(2);
    archive->click();
    QVERIFY(history.shownIds().empty());
    QVERIFY(!store.run(2)->archived);
    status->setCurrentText("any status");
    QCOMPARE(history.shownIds().size(), size_t(3));
    QCOMPARE(archive->text(), QString("Archive"));
  }

  // Beside another experiment's run, settings every run of one experiment shares used to show
  // as columns that differ (the other run lacks them): only what differs within an experiment
  // is a column.
  void anotherExperimentsRunAddsNoFalseDifferences() {
    fl::gui::HistoryModel model(&m_registry);
    model.setRuns({runOf(1, "toy", {{"samples", 500}, {"head", "linear"}, {"lr", 0.1}}),
                   runOf(2, "toy", {{"samples", 900}, {"head", "linear"}, {"lr", 0.1}}),
                   runOf(3, "lm", {{"width", 64}, {"depth", 2}, {"lr", 0.5}})});
    QCOMPARE(configColumns(model), QStringList{"samples"});
  }

  // Tag… shows the tags every selected run holds and hands back a list: what was taken out is
  // removed, what was typed is added, nothing else changes. Random lists against a set model.
  void aTagListEditsOnlyWhatChanged() {
    using fl::gui::parseTagList;
    QCOMPARE(parseTagList(" a, b ,,a, c d ,"), (std::vector<std::string>{"a", "b", "c d"}));
    QCOMPARE(parseTagList(""), std::vector<std::string>{});
    QCOMPARE(fl::gui::sharedTags({{"x", "y", "z"}, {"z", "x"}, {"x", "q", "z"}}),
             (std::vector<std::string>{"x", "z"}));
    QCOMPARE(fl::gui::sharedValue({"n", "n"}), std::string("n"));
    QCOMPARE(fl::gui::sharedValue({"n", "m"}), std::string());
    std::mt19937 rng(7);
    const std::vector<std::string> pool{"a", "b", "c", "d", "e", "f"};
    for (int trial = 0; trial < 500; ++trial) {
      std::vector<std::string> shown, typed;
      for (const auto& t : pool) {
        if (rng() % 2) shown.push_back(t);
        if (rng() % 2) typed.push_back(t);
      }
      const auto edit = fl::gui::tagEdit(shown, typed);
      // Applying the edit to what was shown gives what was typed, as sets.
      std::set<std::string> result(shown.begin(), shown.end());
      for (const auto& t : edit.removed) result.erase(t);
      for (const auto& t : edit.added) QVERIFY(result.insert(t).second);  // never added twice
      QCOMPARE(result, std::set<std::string>(typed.begin(), typed.end()));
      for (const auto& t : edit.removed)
        QVERIFY(std::find(typed.begin(), typed.end(), t) == typed.end());
    }
    // A tag is one in any case, as the store holds it: "keep me" retyped for "Keep Me" had
    // removed the tag (its add changed nothing, its removal took the one the run held).
    const auto retyped = fl::gui::tagEdit({"Keep Me", "x"}, {"keep me", "X"});
    QVERIFY(retyped.added.empty() && retyped.removed.empty());
    QCOMPARE(parseTagList("a, A, b"), (std::vector<std::string>{"a", "b"}));
  }

  void initTestCase() {
    QVERIFY(m_dir.isValid());
    m_registry.add(toyExperiment());
    m_registry.add(lmExperiment());
    m_registry.add(headedExperiment());
  }

  // The study, the arm when there is one, then the setting as the study's tables label it.
  void aStudyRunsNameIsTheStudyItsArmAndItsSetting() {
    struct Case {
      std::string study, arm;
      nlohmann::json axes;
      int64_t seed;
      std::string name;
    };
    const std::vector<Case> cases{
        {"table1",
         "",
         {{"dataset", "gmm2"}, {"head", "fourier"}},
         1,
         "table1 · dataset=gmm2 head=fourier seed=1"},
        {"frequencies",
         "Fourier head",
         {{"dataset", "gmm2"}, {"frequencies", 12}, {"gamma", 1e-6}},
         42,
         "frequencies · Fourier head · dataset=gmm2 frequencies=12 gamma=1e-06 seed=42"},
        {"seeds", "", nlohmann::json::object(), 3, "seeds · seed=3"},
        {"", "", {{"lr", 0.5}}, 2, "lr=0.5 seed=2"},
    };
    for (const auto& c : cases) {
      QCOMPARE(fl::study::studyRunName(c.study, c.arm, c.axes, c.seed), c.name);
      QCOMPARE(fl::study::isStudyRunName(c.name), !c.study.empty());
      // A cell's label (the CLI's progress, `sweep show`) is its run's name without the study:
      // two arms' cells with the same axes and seed read apart.
      const std::string label = fl::study::cellLabel(c.arm, c.axes, c.seed);
      QCOMPARE(c.study.empty() ? label : c.study + " · " + label, c.name);
    }
    // Names a user gives stay names (the window's legends show them as they are).
    for (const std::string name : {"baseline", "lr sweep · best", "seed=3", " · seed=1", ""})
      QVERIFY2(!fl::study::isStudyRunName(name), name.c_str());
  }

  // The run a study creates for a cell carries its name in the store (so `runs list` shows it
  // too); a name given by Rename survives the cell being claimed again.
  void aStudyNamesTheRunsItCreatesAndKeepsARenamedOne() {
    fl::store::RunStore store(freshStorePath());
    fl::study::StudyStore studies(store);
    const int64_t plain = storeStudy(studies, R"({"name": "tiny", "experiment": "toy",
        "grid": {"samples": [500, 1000], "head": ["linear", "fourier"]}, "seeds": [1, 2]})");
    const auto first = studies.claim(plain, 0);
    QCOMPARE(first.kind, fl::study::CellClaim::Kind::Fresh);
    QCOMPARE(store.run(first.runId)->name, std::string("tiny · head=linear samples=500 seed=1"));
    const auto last = studies.claim(plain, 7);
    QCOMPARE(store.run(last.runId)->name, std::string("tiny · head=fourier samples=1000 seed=2"));

    const int64_t withArms = storeStudy(studies, R"({"name": "arms", "experiment": "toy",
        "seeds": [3], "arms": [{"name": "Fourier head", "set": {"head": "fourier"},
        "grid": {"frequencies": [4, 8]}}, {"name": "linear", "set": {"head": "linear"}}]})");
    QCOMPARE(store.run(studies.claim(withArms, 1).runId)->name,
             std::string("arms · Fourier head · frequencies=8 seed=3"));
    QCOMPARE(store.run(studies.claim(withArms, 2).runId)->name,
             std::string("arms · linear · seed=3"));

    // Renamed, then stopped and claimed again (a resume or restart): the user's name stays.
    store.rename(first.runId, "my baseline");
    store.finishRun(first.runId, fl::RunStatus::Interrupted, "");
    const auto again = studies.claim(plain, 0);
    QCOMPARE(again.runId, first.runId);
    QCOMPARE(again.kind, fl::study::CellClaim::Kind::Restart);  // no checkpoint: from step 0
    QCOMPARE(store.run(first.runId)->name, std::string("my baseline"));
  }

  // Runs an older build's study created without a name show the name the study gives runs
  // now; the store keeps them as they were. A run with a name (given by Rename) shows that
  // name, and a plain run of the user's that the study reused (made before the study) is not
  // given the study's.
  void theHistoryNamesAnOlderBuildsStudyRunsAndKeepsGivenNames() {
    const auto path = freshStorePath();
    int64_t unnamed = 0, reused = 0, renamed = 0, alone = 0;
    {
      fl::store::RunStore store(path);
      reused = storeFinishedRun(store, "", {{"head", "fourier"}, {"seed", 1}});
      renamed = storeFinishedRun(store, "", {{"head", "fourier"}, {"seed", 2}});
      alone = storeFinishedRun(store, "", {{"head", "linear"}, {"samples", 7}, {"seed", 1}});
      fl::study::StudyStore studies(store);
      // The user's finished runs are the study's fourier cells at once (same config).
      const int64_t study = storeStudy(studies, R"({"name": "old", "experiment": "toy",
          "grid": {"head": ["linear", "fourier"]}, "seeds": [1, 2]})");
      // The study makes its linear seed-1 run; an older build left it unnamed.
      unnamed = studies.claim(study, 0).runId;
      QVERIFY(unnamed > renamed);
      store.rename(unnamed, "");
      store.rename(renamed, "kept by the user");
    }
    fl::store::RunStore store(path);
    fl::gui::HistoryView history(store, m_registry);
    history.refresh();
    auto* model = history.model();
    QCOMPARE(model->rowCount(), 4);
    const int name = model->column("name");
    auto nameOf = [&](int64_t id) {
      return model->data(model->index(model->rowOf(id), name), Qt::DisplayRole).toString();
    };
    QCOMPARE(nameOf(unnamed), QString("old · head=linear seed=1"));
    QCOMPARE(nameOf(renamed), QString("kept by the user"));
    QCOMPARE(nameOf(reused), QString());                // the user's own run, not the study's
    QCOMPARE(nameOf(alone), QString());                 // in no study: nothing to name it by
    QCOMPARE(store.run(unnamed)->name, std::string());  // the store is not rewritten
  }

  // The config columns that differ, in the order the experiment declares its parameters (the
  // Configure form's), not sorted by key.
  void configColumnsFollowTheExperimentsDeclarationOrder() {
    const std::vector<fl::store::RunRecord> toyRuns{
        runOf(1, "toy", {{"samples", 500}, {"frequencies", 4}, {"head", "linear"}, {"lr", 0.1}}),
        runOf(2, "toy", {{"samples", 900}, {"frequencies", 8}, {"head", "fourier"}, {"lr", 0.2}})};
    fl::gui::HistoryModel model(&m_registry);
    model.setRuns(toyRuns);
    QCOMPARE(configColumns(model), (QStringList{"samples", "frequencies", "head", "lr"}));

    const std::vector<fl::store::RunRecord> lmRuns{
        runOf(3, "lm", {{"width", 64}, {"depth", 2}, {"lr", 0.1}, {"seed", 1}}),
        runOf(4, "lm", {{"width", 128}, {"depth", 4}, {"lr", 0.2}, {"seed", 2}})};
    model.setRuns(lmRuns);
    QCOMPARE(configColumns(model), (QStringList{"width", "depth", "lr", "seed"}));

    // Several experiments: each one's parameters in its order, the first listed first; a key
    // neither declares (from an older build) last.
    std::vector<fl::store::RunRecord> mixed = lmRuns;
    mixed.insert(mixed.end(), toyRuns.begin(), toyRuns.end());
    mixed[0].config["retired"] = true;
    model.setRuns(mixed);
    QCOMPARE(configColumns(model), (QStringList{"width", "depth", "lr", "seed", "samples",
                                                "frequencies", "head", "retired"}));
    std::reverse(mixed.begin(), mixed.end());
    model.setRuns(mixed);
    QCOMPARE(configColumns(model), (QStringList{"samples", "frequencies", "head", "lr", "seed",
                                                "width", "depth", "retired"}));
    // The id and name columns stay first whatever the config columns are.
    QCOMPARE(model.key(0), QString("id"));
    QCOMPARE(model.key(1), QString("name"));

    // One run listed (filtered down to it): every value it uses, in declaration order; none
    // differs, and no column at all said nothing of it.
    model.setRuns({toyRuns.front()});
    QCOMPARE(configColumns(model), (QStringList{"samples", "frequencies", "head", "lr"}));

    // Without a registry: sorted by key, as before.
    fl::gui::HistoryModel unordered(nullptr);
    unordered.setRuns(toyRuns);
    QCOMPARE(configColumns(unordered), (QStringList{"frequencies", "head", "lr", "samples"}));
  }

  // A value a run does not use sets it apart from no run: two linear heads with other
  // frequencies differ only in lr, and one Fourier head beside them by its head alone; beside
  // two Fourier heads of other frequencies, the linear heads' read "(not used)", and their
  // tooltip says why.
  void aValueARunDoesNotUseIsBlankAndSetsNoRunApart() {
    fl::gui::HistoryModel model(&m_registry);
    std::vector<fl::store::RunRecord> runs{
        runOf(1, "headed", {{"head", "linear"}, {"frequencies", 4}, {"lr", 0.1}}),
        runOf(2, "headed", {{"head", "linear"}, {"frequencies", 8}, {"lr", 0.2}})};
    model.setRuns(runs);
    QCOMPARE(configColumns(model), QStringList{"lr"});
    runs.push_back(runOf(3, "headed", {{"head", "fourier"}, {"frequencies", 8}, {"lr", 0.2}}));
    model.setRuns(runs);
    QCOMPARE(configColumns(model), (QStringList{"head", "lr"}));
    runs.push_back(runOf(4, "headed", {{"head", "fourier"}, {"frequencies", 16}, {"lr", 0.2}}));
    model.setRuns(runs);
    QCOMPARE(configColumns(model), (QStringList{"head", "frequencies", "lr"}));
    // A linear head alone: its frequencies, which it does not use, are no column of it.
    model.setRuns({runs.front()});
    QCOMPARE(configColumns(model), (QStringList{"head", "lr"}));
    model.setRuns(runs);
    const int column = model.column("config:frequencies");
    auto cell = [&](int row, int role) { return model.data(model.index(row, column), role); };
    QCOMPARE(cell(0, Qt::DisplayRole).toString(), QString("(not used)"));
    QCOMPARE(cell(0, fl::gui::HistoryModel::kSortRole), QVariant());  // sorts as no value
    QCOMPARE(cell(2, Qt::DisplayRole).toString(), QString("8"));
    QCOMPARE(cell(1, Qt::ToolTipRole).toString(),
             QString("Not used by this run (used only when head is fourier): 8"));
    // Without the registry nothing is known to be unused.
    fl::gui::HistoryModel plain(nullptr);
    plain.setRuns(runs);
    QCOMPARE(
        plain.data(plain.index(0, plain.column("config:frequencies")), Qt::DisplayRole).toString(),
        QString("4"));
  }

  // A shortened paper run's verdict cell was blank, as if it were still to be judged: it reads
  // "not compared", greyed, and its tooltip names the preset and the departures. A run at the
  // paper's settings shows its verdicts; one far from every preset has no verdict cell text.
  void aShortenedPaperRunsVerdictSaysNotCompared() {
    fl::ExperimentRegistry builtin;
    fl::registerBuiltinExperiments(builtin);
    const auto head = builtin.find("fourier-head");
    const auto configOf = [&](const std::vector<std::string>& set) {
      const auto config = fl::buildConfig(*head, "paper-fourier", set);
      if (!config.ok()) qFatal("%s", config.summary().c_str());
      return config.values;
    };
    auto paper = runOf(1, "fourier-head", configOf({}));
    fl::Verdict within;
    within.subject = "test/kl";
    within.label = "within paper";
    within.passed = true;
    within.detail = "test/kl 0.15 vs paper 0.146 \u00b1 0.02: within the paper's spread";
    paper.verdicts = {within};
    paper.status = fl::RunStatus::Finished;
    auto shortened = runOf(2, "fourier-head", configOf({"epochs=300"}));
    shortened.status = fl::RunStatus::Finished;
    auto ownExperiment =
        runOf(3, "fourier-head", configOf({"epochs=3", "samples=300", "bins=20", "lr=0.01"}));
    ownExperiment.status = fl::RunStatus::Finished;
    // Not finished, it is not judged yet: nothing said (it read "not compared" while training).
    auto training = shortened;
    training.id = 4;
    training.status = fl::RunStatus::Running;
    auto cancelled = shortened;
    cancelled.id = 5;
    cancelled.status = fl::RunStatus::Cancelled;
    fl::gui::HistoryModel model(&builtin);
    model.setRuns({paper, shortened, ownExperiment, training, cancelled});
    const int column = model.column("verdict");
    QVERIFY(column >= 0);
    auto cell = [&](int row, int role) { return model.data(model.index(row, column), role); };
    QCOMPARE(cell(1, Qt::DisplayRole).toString(), QString("not compared"));
    // The study table's grey for its "not compared" cells: one grey for "not judged".
    QCOMPARE(cell(1, Qt::ForegroundRole).value<QColor>(), QColor(110, 110, 110));
    QCOMPARE(cell(1, Qt::ToolTipRole).toString(),
             QString("Not compared with the paper (paper-fourier): epochs 300 (the paper's 500)"));
    QVERIFY(cell(0, Qt::DisplayRole).toString().contains("within paper"));
    QVERIFY(cell(0, Qt::DisplayRole).toString() != QString("not compared"));
    QCOMPARE(cell(2, Qt::DisplayRole).toString(), QString());
    QCOMPARE(cell(3, Qt::DisplayRole).toString(), QString());
    QCOMPARE(cell(4, Qt::DisplayRole).toString(), QString());
    // Without the registry no preset is known: nothing is claimed.
    fl::gui::HistoryModel plain(nullptr);
    plain.setRuns({paper, shortened});
    QCOMPARE(plain.data(plain.index(1, plain.column("verdict")), Qt::DisplayRole).toString(),
             QString());
  }

  // Ids, config values and metrics sort as numbers (500 < 1000 < 5000, 3 < 42, 9 < 10), in the
  // table the History shows, and the id column is shown, frozen at the left.
  void numericColumnsSortAsNumbersAndTheIdIsShown() {
    fl::store::RunStore store(freshStorePath());
    const std::vector<int> samples{500, 5000, 1000, 20, 300, 40, 60, 70, 80, 90, 100};
    const std::vector<int> seeds{1, 2, 42, 3, 5, 6, 7, 8, 9, 10, 11};
    const std::vector<double> kl{10, 9, 100, 0.5, 2, 3, 4, 5, 6, 7, 8};
    for (size_t i = 0; i < samples.size(); ++i) {
      const int64_t id =
          store.createRun({"toy", "", {{"samples", samples[i]}, {"seed", seeds[i]}}, {}, {}});
      store.writeEvents(id, {fl::MetricEvent{"test/kl", 10, 0.1, kl[i]}});
      store.finishRun(id, fl::RunStatus::Finished, "");
    }
    fl::gui::HistoryView history(store, m_registry);
    history.refresh();
    using Ids = std::vector<int64_t>;
    QVERIFY(history.sortByKey("config:samples", Qt::AscendingOrder));
    QCOMPARE(history.shownIds(), (Ids{4, 6, 7, 8, 9, 10, 11, 5, 1, 3, 2}));
    QVERIFY(history.sortByKey("config:seed", Qt::AscendingOrder));
    QCOMPARE(history.shownIds(), (Ids{1, 2, 4, 5, 6, 7, 8, 9, 10, 11, 3}));
    QVERIFY(history.sortByKey("metric:test/kl:last", Qt::DescendingOrder));
    QCOMPARE(history.shownIds(), (Ids{3, 1, 2, 11, 10, 9, 8, 7, 6, 5, 4}));
    QVERIFY(history.sortByKey("id", Qt::DescendingOrder));
    QCOMPARE(history.shownIds(), (Ids{11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1}));

    auto* model = history.model();
    QCOMPARE(model->column("id"), 0);
    QCOMPARE(model->headerData(0, Qt::Horizontal, Qt::DisplayRole).toString(), QString("id"));
    QCOMPARE(model->data(model->index(model->rowOf(7), 0), Qt::DisplayRole).toString(),
             QString("7"));
    auto* frozen = history.table()->frozenView();
    QVERIFY(!frozen->isColumnHidden(0));
    QVERIFY(!frozen->isColumnHidden(1));
    QVERIFY(!history.table()->isColumnHidden(0));
    QVERIFY(frozen->columnWidth(0) > 0);
  }
};

QTEST_MAIN(TestHistoryModel)
#include "test_history_model.moc"
