// Tests typed verdicts end to end: core/engine/verdict.h (headline, passed), the
// Runner attaching a finished run's verdicts to its terminal status, and core/store/
// run_verdicts.h (the run_verdicts table written by the store sink and read with the run; a
// version-3 store upgraded with the verdicts its runs stated before they were typed, and its
// Fourier-head snapshots given their roles).
#include <QtTest>

#include <sqlite3.h>

#include <type_traits>

#include "core/engine/event_queue.h"
#include "core/engine/paper_verdict_restate.h"
#include "core/engine/registry.h"
#include "core/engine/runner.h"
#include "core/store/run_store.h"
#include "core/store/run_verdicts.h"
#include "core/store/schema.h"
#include "core/store/store_sink.h"
#include "tests/sqlite_probe.h"

using fl::Verdict;
using fl::VerdictSource;

namespace {

// An experiment with a paper preset (row "a": test/m 0.5 ± 0.1) whose evaluations judge
// themselves "fine".
class JudgedTrial : public fl::Trial {
 public:
  fl::TrialPlan plan() const override { return {2, 1, 1, 1}; }
  fl::StepLoss trainStep(int64_t) override { return 1.0; }
  void evaluate(int64_t stepsDone, bool, fl::EvalReport& out) override {
    out.metric("test/m", 0.55);
    fl::Snapshot s;
    s.name = "judge";
    s.shape = {1};
    s.data = {static_cast<float>(stepsDone)};
    s.meta[fl::kVerdictMetaLabel] = "fine";
    s.meta[fl::kVerdictMetaPassed] = true;
    s.meta[fl::kVerdictMetaDetail] = "it judged itself";
    out.snapshot(s);
  }
};

class JudgedExperiment : public fl::Experiment {
 public:
  std::string name() const override { return "judged"; }
  std::string title() const override { return "judged"; }
  std::string description() const override { return ""; }
  std::vector<fl::ParamSpec> params() const override {
    return {fl::ParamSpec::choice("dataset", "a", {"a", "b"}, "")};
  }
  std::vector<fl::PanelSpec> panels() const override { return {}; }
  std::vector<fl::Preset> presets() const override {
    return {
        {"paper",
         "",
         nlohmann::json::object(),
         {{"source", "test"}, {"by", "dataset"}, {"values", {{"a", {{"test/m", {0.5, 0.1}}}}}}}}};
  }
  std::unique_ptr<fl::Trial> createTrial(const fl::TrialContext&) const override {
    return std::make_unique<JudgedTrial>();
  }
};

// What an experiment says of its own run ("LEAKS", "fine").
Verdict experimentVerdict(const std::string& subject, const std::string& label, bool passed,
                          const std::string& detail) {
  Verdict v;
  v.source = VerdictSource::Experiment;
  v.subject = subject;
  v.label = label;
  v.passed = passed;
  v.detail = detail;
  return v;
}

Verdict paperVerdict(std::optional<bool> passed) {
  Verdict v;
  v.source = VerdictSource::Paper;
  v.subject = "test/kl";
  v.passed = passed;
  v.label = !passed ? fl::kVersusPaper : *passed ? fl::kWithinPaper : fl::kOutsidePaper;
  v.value = 0.16;
  v.paperMean = 0.146;
  if (passed) v.paperStd = 0.033;
  v.preset = "paper-fourier";
  v.detail = "test/kl 0.160 vs paper 0.146 ± 0.033: within the paper's spread";
  return v;
}

}  // namespace

class TestRunVerdicts : public QObject {
  Q_OBJECT

  QTemporaryDir m_dir;
  std::string path(const char* name) const { return (m_dir.path() + "/" + name).toStdString(); }

 private slots:
  void headlinesSayTheExperimentsWordsThenOneForThePaper() {
    Verdict leaks;
    leaks.source = VerdictSource::Experiment;
    leaks.label = "LEAKS";
    leaks.passed = false;
    QCOMPARE(fl::verdictHeadline(std::vector<fl::Verdict>{}), std::string());
    QCOMPARE(fl::verdictHeadline({paperVerdict(true)}), std::string("within paper"));
    QCOMPARE(fl::verdictHeadline({leaks, paperVerdict(true), paperVerdict(false)}),
             std::string("LEAKS, outside paper (1 of 2 metrics)"));  // mixed: how many were outside
    QCOMPARE(fl::verdictHeadline({paperVerdict(false), paperVerdict(false)}),
             std::string("outside paper"));
    QCOMPARE(fl::verdictHeadline({paperVerdict(std::nullopt)}),
             std::string());  // nothing to judge by
    QCOMPARE(fl::verdictsPassed({paperVerdict(true), paperVerdict(std::nullopt)}),
             std::optional<bool>(true));
    QCOMPARE(fl::verdictsPassed({paperVerdict(true), leaks}), std::optional<bool>(false));
    QCOMPARE(fl::verdictsPassed({paperVerdict(std::nullopt)}), std::optional<bool>());
  }

  void theRunnerAttachesAFinishedRunsVerdictsToItsLastStatus() {
    auto experiment = std::make_shared<JudgedExperiment>();
    fl::EventQueue events;
    fl::Runner runner(experiment, nlohmann::json::object(), events);
    runner.start();
    runner.join();
    std::optional<fl::StatusEvent> last;
    for (auto& e : events.takeAll())
      if (auto* s = std::get_if<fl::StatusEvent>(&e)) last = *s;
    QVERIFY(last && last->status == fl::RunStatus::Finished);
    QCOMPARE(last->verdicts.size(), size_t(2));
    const Verdict& own = last->verdicts[0];
    QCOMPARE(fl::toString(own.source), fl::toString(VerdictSource::Experiment));
    QCOMPARE(own.label, std::string("fine"));
    QCOMPARE(own.passed, std::optional<bool>(true));
    QCOMPARE(own.detail, std::string("fine -- it judged itself"));
    const Verdict& paper = last->verdicts[1];
    QCOMPARE(fl::toString(paper.source), fl::toString(VerdictSource::Paper));
    QCOMPARE(paper.subject, std::string("test/m"));
    QCOMPARE(paper.passed, std::optional<bool>(true));  // |0.55 - 0.5| <= 0.1
    QCOMPARE(paper.label, std::string(fl::kWithinPaper));
    QCOMPARE(paper.value, 0.55);
    QCOMPARE(paper.paperMean, 0.5);
    QCOMPARE(paper.paperStd, std::optional<double>(0.1));
    QCOMPARE(paper.preset, std::string("paper"));
    QCOMPARE(runner.verdicts().size(), size_t(2));
    // The message says the same in words, as before.
    QVERIFY(last->message.find("fine -- it judged itself; test/m 0.550 vs paper 0.500") == 0);
  }

  // A run an older build judged by its rule (within mean ± std alone: 0.55 against 0.5 ± 0.1,
  // by a mistaken spread, "outside") showed that verdict in every list while this build's
  // rule and a fresh run said within. The first writable open by a build of another stamp
  // judges it again from its stored metrics, message and verdicts, once; a read-only open
  // leaves it.
  void aStoreJudgedByAnOlderRuleIsJudgedAgainOnce() {
    const std::string p = path("restate.db");
    const Verdict own = experimentVerdict("judge", "fine", true, "fine -- it judged itself");
    const Verdict old{.source = VerdictSource::Paper,
                      .subject = "test/m",
                      .label = fl::kOutsidePaper,
                      .passed = false,
                      .detail = "test/m 0.550 vs paper 0.500 ± 0.100: outside the paper's spread",
                      .value = 0.55,
                      .paperMean = 0.5,
                      .paperStd = 0.1,
                      .preset = "paper"};
    int64_t id = 0;
    {
      fl::store::RunStore store(p);
      id = store.createRun({"judged", "", {{"dataset", "a"}}, {}, {}});
      fl::StatusEvent finished{
          fl::RunStatus::Finished, own.detail + "; " + old.detail, "cpu", 2, 1.0, {}};
      finished.verdicts = {own, old};
      store.writeEvents(id, {fl::MetricEvent{"test/m", 1, 0.5, 0.7},
                             fl::MetricEvent{"test/m", 2, 1.0, 0.55}, finished});
    }
    fl::ExperimentRegistry registry;
    registry.add(std::make_shared<JudgedExperiment>());
    {
      fl::store::RunStore readOnly(p, /*readOnly=*/true);
      const auto untouched = fl::restatePaperVerdicts(readOnly, registry);
      QCOMPARE(untouched.changed, 0);
      QCOMPARE(untouched.note(p), std::string());
      QCOMPARE(readOnly.run(id)->verdicts.at(1).passed, std::optional<bool>(false));
    }
    fl::store::RunStore store(p);
    const auto restated = fl::restatePaperVerdicts(store, registry);
    QCOMPARE(restated.changed, 1);
    QVERIFY2(restated.note(p).find(": 1 run's verdicts against the paper judged again") !=
                 std::string::npos,
             restated.note(p).c_str());
    const auto run = store.run(id).value();
    const std::string within =
        "test/m 0.550 vs paper 0.500 ± 0.100: within the paper's spread (|Δ| 0.050 <= 0.200 = 2 "
        "std)";
    QCOMPARE(run.verdicts.size(), size_t(2));
    QCOMPARE(run.verdicts[0].detail, own.detail);  // the experiment's own verdict stays
    QCOMPARE(run.verdicts[1].passed, std::optional<bool>(true));
    QCOMPARE(run.verdicts[1].label, std::string(fl::kWithinPaper));
    QCOMPARE(run.verdicts[1].detail, within);
    QCOMPARE(run.verdicts[1].preset, std::string("paper"));
    QCOMPARE(run.message, own.detail + "; " + within);
    QCOMPARE(store.metaValue(fl::kPaperVerdictStampKey), fl::paperVerdictStamp(registry));
    // Once per stamp: a second open judges nothing again.
    QCOMPARE(fl::testing::writeSql(p, "UPDATE run_verdicts SET passed = 0 WHERE position = 1"),
             std::string());
    QCOMPARE(fl::restatePaperVerdicts(store, registry).changed, 0);
    QCOMPARE(store.run(id)->verdicts.at(1).passed, std::optional<bool>(false));
    // A newer build's rule is left as it judged: this build would judge its verdicts back.
    const std::string newer = "rule " + std::to_string(fl::kPaperVerdictRuleVersion + 1) + ", x";
    QCOMPARE(fl::testing::writeSql(
                 p, "UPDATE meta SET value = '" + newer + "' WHERE key = 'paper_verdicts'"),
             std::string());
    QCOMPARE(fl::restatePaperVerdicts(store, registry).changed, 0);
    QCOMPARE(store.metaValue(fl::kPaperVerdictStampKey), newer);
    QCOMPARE(store.run(id)->verdicts.at(1).passed, std::optional<bool>(false));
    // A store with no verdict against the paper is not written to by being read: no stamp.
    fl::store::RunStore plain(path("plain.db"));
    plain.createRun({"judged", "", {{"dataset", "b"}}, {}, {}});
    QCOMPARE(fl::restatePaperVerdicts(plain, registry).changed, 0);
    QCOMPARE(plain.metaValue(fl::kPaperVerdictStampKey), std::string());
    // Another preset's figures are another stamp.
    fl::ExperimentRegistry none;
    QVERIFY(fl::paperVerdictStamp(none) != fl::paperVerdictStamp(registry));
  }

  void theStoreKeepsTypedVerdictsAndATerminalStatusReplacesThem() {
    const std::string p = path("typed.db");
    int64_t id = 0;
    const Verdict leaks =
        experimentVerdict("leak/verdict", "LEAKS", false, "LEAKS -- reads the future");
    {
      fl::store::RunStore store(p);
      id = store.createRun({"fourier-qk", "", nlohmann::json::object(), {}, {}});
      fl::store::StoreSink sink(p, id);
      fl::StatusEvent finished{fl::RunStatus::Finished, "words", "cpu", 10, 1.0, {}};
      finished.verdicts = {leaks, paperVerdict(false), paperVerdict(std::nullopt)};
      sink.onEvent(finished);
      sink.close();
    }
    fl::store::RunStore store(p);
    const auto run = store.run(id).value();
    QCOMPARE(run.verdicts.size(), size_t(3));
    QCOMPARE(fl::toString(run.verdicts[0].source), fl::toString(VerdictSource::Experiment));
    QCOMPARE(run.verdicts[0].label, std::string("LEAKS"));
    QCOMPARE(run.verdicts[0].passed, std::optional<bool>(false));
    QVERIFY(std::isnan(run.verdicts[0].value));
    QCOMPARE(run.verdicts[1].passed, std::optional<bool>(false));
    QCOMPARE(run.verdicts[1].paperStd, std::optional<double>(0.033));
    QCOMPARE(run.verdicts[1].preset, std::string("paper-fourier"));
    QCOMPARE(run.verdicts[2].passed, std::optional<bool>());
    QCOMPARE(run.verdicts[2].paperStd, std::optional<double>());
    QCOMPARE(store.listRuns().front().verdicts.size(), size_t(3));
    // A later terminal status (the run resumed and cancelled) has none: none are kept.
    store.writeEvents(id, {fl::StatusEvent{fl::RunStatus::Cancelled, "", "cpu", 11, 2.0, {}}});
    QVERIFY(store.run(id)->verdicts.empty());
  }

  void paperSentencesOfOlderMessagesParse_data() {
    QTest::addColumn<QString>("sentence");
    QTest::addColumn<bool>("parses");
    QTest::addColumn<QString>("subject");
    QTest::addColumn<double>("value");
    QTest::addColumn<double>("mean");
    QTest::addColumn<double>("spread");  // -1: none
    QTest::addColumn<int>("passed");     // -1: cannot judge
    QTest::newRow("within") << "test/kl 0.143 vs paper 0.146 ± 0.033: within the paper's spread"
                            << true << "test/kl" << 0.143 << 0.146 << 0.033 << 1;
    QTest::newRow("outside") << "test/kl 0.260 vs paper 0.146 ± 0.033: outside the paper's spread"
                             << true << "test/kl" << 0.26 << 0.146 << 0.033 << 0;
    QTest::newRow("best, no spread")
        << "best val/loss 1.200 vs paper 1.100" << true << "val/loss" << 1.2 << 1.1 << -1.0 << -1;
    QTest::newRow("a judgement") << "LEAKS -- changing tokens moves earlier ones" << false << ""
                                 << 0.0 << 0.0 << -1.0 << -1;
    QTest::newRow("a value that is not a number")
        << "test/kl x vs paper 0.1" << false << "" << 0.0 << 0.0 << -1.0 << -1;
  }

  void paperSentencesOfOlderMessagesParse() {
    QFETCH(QString, sentence);
    QFETCH(bool, parses);
    Verdict v;
    QCOMPARE(fl::store::parsePaperSentence(sentence.toStdString(), v), parses);
    if (!parses) return;
    QFETCH(QString, subject);
    QFETCH(double, value);
    QFETCH(double, mean);
    QFETCH(double, spread);
    QFETCH(int, passed);
    QCOMPARE(QString::fromStdString(v.subject), subject);
    QCOMPARE(v.value, value);
    QCOMPARE(v.paperMean, mean);
    QCOMPARE(v.paperStd, spread < 0 ? std::optional<double>() : std::optional<double>(spread));
    QCOMPARE(v.passed, passed < 0 ? std::optional<bool>() : std::optional<bool>(passed == 1));
    QCOMPARE(v.detail, sentence.toStdString());
  }

  // A version-3 store (made by taking a fresh one back to version 3) gains the table, its
  // finished runs the verdicts their messages and judging snapshots stated, and its Fourier-head
  // densities their roles.
  void aVersion5StoreIsUpgradedWithTheVerdictsItsRunsStated() {
    const std::string p = path("v5.db");
    int64_t qk = 0, head = 0, failed = 0;
    {
      fl::store::RunStore store(p);
      qk = store.createRun({"fourier-qk", "", nlohmann::json::object(), {}, {}});
      head = store.createRun({"fourier-head", "", nlohmann::json::object(), {}, {}});
      failed = store.createRun({"fourier-head", "", nlohmann::json::object(), {}, {}});
      fl::Snapshot judge;
      judge.name = "leak/verdict";
      judge.shape = {1};
      judge.data = {1};
      judge.meta = {{"verdict", "LEAKS"}, {"ok", false}, {"detail", "reads ahead"}};
      fl::Snapshot truth;
      truth.name = "pdf/true";
      truth.shape = {1};
      truth.data = {1};
      store.writeEvents(qk, {fl::SnapshotEvent{5, 0.1, judge, 0}});
      store.writeEvents(head, {fl::SnapshotEvent{5, 0.1, truth, 0}});
      store.finishRun(qk, fl::RunStatus::Finished,
                      "LEAKS -- reads ahead; val/loss 1.200 vs paper 1.100 ± 0.050: outside the "
                      "paper's spread");
      store.finishRun(head, fl::RunStatus::Finished,
                      "test/kl 0.143 vs paper 0.146 ± 0.033: within the paper's spread");
      store.finishRun(failed, fl::RunStatus::Failed, "test/kl 0.1 vs paper 0.2: not a verdict");
    }
    QCOMPARE(
        fl::testing::writeSql(
            p,
            "DROP TABLE run_verdicts; ALTER TABLE snapshots DROP COLUMN role; "
            "ALTER TABLE studies DROP COLUMN batch; ALTER TABLE study_cells DROP COLUMN "
            "made_run; UPDATE meta SET value = '5' WHERE key = 'schema_version';"),  // the last
                                                                                     // before
                                                                                     // verdicts
        std::string());
    fl::store::RunStore store(p);
    QCOMPARE(store.schemaVersion(), fl::store::kSchemaVersion);
    const auto qkVerdicts = store.run(qk)->verdicts;
    QCOMPARE(qkVerdicts.size(), size_t(2));
    QCOMPARE(fl::toString(qkVerdicts[0].source), fl::toString(VerdictSource::Experiment));
    QCOMPARE(qkVerdicts[0].label, std::string("LEAKS"));
    QCOMPARE(qkVerdicts[0].passed, std::optional<bool>(false));
    QCOMPARE(qkVerdicts[1].subject, std::string("val/loss"));
    QCOMPARE(qkVerdicts[1].passed, std::optional<bool>(false));
    QCOMPARE(fl::verdictHeadline(qkVerdicts), std::string("LEAKS, outside paper"));
    QCOMPARE(fl::verdictHeadline(store.run(head)->verdicts), std::string("within paper"));
    QVERIFY(store.run(failed)->verdicts.empty());  // only finished runs were compared
    const auto truths = store.snapshots(head, "pdf/true");
    QCOMPARE(truths.size(), size_t(1));
    QCOMPARE(fl::toString(truths[0].snapshot.role), fl::toString(fl::SnapshotRole::Truth));
    QCOMPARE(fl::toString(store.snapshots(qk, "leak/verdict")[0].snapshot.role),
             fl::toString(fl::SnapshotRole::Series));
  }

  void declaredRolesAreStored() {
    const std::string p = path("roles.db");
    fl::store::RunStore store(p);
    const int64_t id = store.createRun({"x", "", nlohmann::json::object(), {}, {}});
    fl::Snapshot s;
    s.name = "any/name";  // not a name anything could guess a role from
    s.shape = {1};
    s.data = {1};
    s.role = fl::SnapshotRole::Prediction;
    store.writeEvents(id, {fl::SnapshotEvent{1, 0.0, s, 0}});
    QCOMPARE(fl::toString(store.snapshots(id, "any/name")[0].snapshot.role),
             fl::toString(fl::SnapshotRole::Prediction));
  }
};

QTEST_APPLESS_MAIN(TestRunVerdicts)
#include "test_run_verdicts.moc"
