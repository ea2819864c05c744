// Tests core/engine/group_runner.h: a batched group's members are ordinary runs. With a
// scripted group (members step, fail and checkpoint as told), each member's events equal its
// single Runner's; a NaN member fails alone at its step with the single run's message; a member
// cancelled alone keeps a checkpoint while the others finish; a checkpoint the disk refuses
// fails that member only; a cancelled group resumes from its members' checkpoints; a probe of
// one member is answered by that member alone, between two steps.
#include <QtTest>

#include <cerrno>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <thread>

#include <torch/types.h>

#include "core/engine/atomic_file.h"
#include "core/engine/event_queue.h"
#include "core/engine/group_runner.h"
#include "core/engine/registry.h"
#include "core/engine/runner.h"
#include "core/engine/system_metrics.h"

namespace fs = std::filesystem;

namespace {

// One run's script, from its config: `steps` steps, loss 1/(step+1) or NaN at step `nan_at`.
struct Script {
  int64_t steps = 20;
  int64_t nanAt = -1;
  bool failCheckpoint = false;
  int stepMillis = 0;

  static Script of(const nlohmann::json& c) {
    return {c.at("steps").get<int64_t>(), c.at("nan_at").get<int64_t>(),
            c.at("fail_checkpoint").get<int64_t>() != 0, c.at("step_millis").get<int>()};
  }
  double loss(int64_t step) const {
    return step == nanAt ? std::nan("") : 1.0 / static_cast<double>(step + 1);
  }
  fl::TrialPlan plan() const { return {steps, 5, 5, 5}; }
  void evaluate(int64_t stepsDone, fl::EvalReport& out) const {
    out.metric("test/steps", static_cast<double>(stepsDone));
    out.metric("test/inverse", 1.0 / static_cast<double>(stepsDone + 1));
  }
  void save(const std::string& path, int64_t stepsDone) const {
    if (failCheckpoint) throw fl::FileWriteError(path, "No space left on device", ENOSPC);
    std::ofstream(path) << stepsDone;
  }
};

class ScriptedTrial : public fl::Trial {
 public:
  explicit ScriptedTrial(Script s) : m_script(s) {}
  fl::TrialPlan plan() const override { return m_script.plan(); }
  fl::StepLoss trainStep(int64_t step) override {
    m_stepsDone = step + 1;
    return m_script.loss(step);
  }
  void evaluate(int64_t stepsDone, bool, fl::EvalReport& out) override {
    m_script.evaluate(stepsDone, out);
  }
  bool supportsCheckpoints() const override { return true; }
  void saveCheckpoint(const std::string& path) const override { m_script.save(path, m_stepsDone); }
  void loadCheckpoint(const std::string&) override {}

 private:
  Script m_script;
  int64_t m_stepsDone = 0;
};

// With deferred_losses the group hands its losses out unread, as one tensor per step
// (GroupStepLosses, as a GPU group does) and leaves a member with a non-finite loss to whoever
// reads it.
class ScriptedGroup : public fl::BatchedTrial {
 public:
  explicit ScriptedGroup(const std::vector<fl::TrialContext>& members) {
    for (const auto& c : members) m_members.push_back({Script::of(c.config)});
    m_deferred = members.front().config.at("deferred_losses").get<int64_t>() != 0;
  }
  int64_t memberCount() const override { return static_cast<int64_t>(m_members.size()); }
  fl::TrialPlan plan(int64_t i) const override { return m_members[i].script.plan(); }
  int64_t stepsDone(int64_t i) const override { return m_members[i].stepsDone; }
  void setActive(int64_t i, bool active) override { m_members[i].active = active; }
  std::vector<std::optional<fl::StepLoss>> trainStep() override {
    std::vector<std::optional<fl::StepLoss>> losses(m_members.size());
    int millis = 0;
    for (size_t i = 0; i < m_members.size(); ++i) {
      auto& m = m_members[i];
      if (!m.active || m.stepsDone >= m.script.steps) continue;
      const double loss = m.script.loss(m.stepsDone++);
      losses[i] = loss;
      if (!std::isfinite(loss) && !m_deferred) m.active = false;
      millis = std::max(millis, m.script.stepMillis);
    }
    if (millis) std::this_thread::sleep_for(std::chrono::milliseconds(millis));
    if (m_deferred) {
      std::vector<double> values(m_members.size(), 0.0);
      for (size_t i = 0; i < losses.size(); ++i)
        if (losses[i]) values[i] = losses[i]->read();
      const auto shared = std::make_shared<const fl::GroupStepLosses>(torch::tensor(values));
      for (size_t i = 0; i < losses.size(); ++i)
        if (losses[i]) losses[i] = fl::StepLoss(shared, static_cast<int64_t>(i));
    }
    return losses;
  }
  void evaluate(int64_t i, bool, fl::EvalReport& out) override {
    m_members[i].script.evaluate(m_members[i].stepsDone, out);
  }
  bool supportsCheckpoints() const override { return true; }
  std::string stepDescription() const override {
    return m_deferred ? "losses left unread" : "losses read at once";
  }
  void saveCheckpoint(int64_t i, const std::string& path) const override {
    m_members[i].script.save(path, m_members[i].stepsDone);
  }
  void loadCheckpoint(int64_t i, const std::string& path) override {
    std::ifstream(path) >> m_members[i].stepsDone;
  }
  // The member's answer: its number, the probed x and its steps done.
  std::vector<fl::Snapshot> probe(int64_t i, const std::map<std::string, double>& in) override {
    fl::Snapshot s;
    s.name = "probe/echo";
    s.shape = {3};
    s.data = {float(i), float(in.at("x")), float(m_members[i].stepsDone)};
    s.axes = {{"field", "", {}}};
    return {s};
  }

 private:
  struct Member {
    Script script;
    int64_t stepsDone = 0;
    bool active = true;
  };
  std::vector<Member> m_members;
  bool m_deferred = false;
};

class ScriptedExperiment : public fl::Experiment {
 public:
  std::string name() const override { return "scripted-group"; }
  std::string title() const override { return name(); }
  std::string description() const override { return ""; }
  std::vector<fl::ParamSpec> params() const override {
    using P = fl::ParamSpec;
    return {P::integer("steps", 20, 0, 100000, ""), P::integer("nan_at", -1, -1, 100000, ""),
            P::integer("fail_checkpoint", 0, 0, 1, ""), P::integer("step_millis", 0, 0, 1000, ""),
            P::integer("deferred_losses", 0, 0, 1, "")};
  }
  std::vector<fl::PanelSpec> panels() const override { return {}; }
  std::vector<fl::Preset> presets() const override { return {}; }
  std::optional<fl::SelectionMetric> selectionMetric() const override {
    return fl::SelectionMetric{"test/inverse", true};
  }
  std::unique_ptr<fl::Trial> createTrial(const fl::TrialContext& c) const override {
    return std::make_unique<ScriptedTrial>(Script::of(c.config));
  }
  std::string groupDifference(const nlohmann::json&, const nlohmann::json&) const override {
    return "";
  }
  std::unique_ptr<fl::BatchedTrial> createGroup(
      const std::vector<fl::TrialContext>& members) const override {
    return std::make_unique<ScriptedGroup>(members);
  }
};

nlohmann::json configOf(const fl::Experiment& e, nlohmann::json overrides) {
  overrides["device"] = "cpu";
  const auto validated = fl::validateRunConfig(e, overrides);
  if (!validated.ok()) throw std::runtime_error(validated.summary());
  return validated.values;
}

// A run's events without wall times, device words and the process's "system/" figures (sampled
// on the clock): what must not depend on batching.
struct Recorded {
  std::vector<std::string> lines;
  std::optional<fl::StatusEvent> terminal;
  std::vector<fl::CheckpointEvent> checkpoints;
  std::string running;  // the last "running ..." status message
};

Recorded record(std::vector<fl::Event> events) {
  Recorded r;
  for (const auto& event : events) {
    if (auto* m = std::get_if<fl::MetricEvent>(&event)) {
      if (fl::isSystemMetric(m->key)) continue;
      r.lines.push_back("metric " + m->key + " " + std::to_string(m->step) + " " +
                        std::to_string(m->value));
    } else if (auto* p = std::get_if<fl::ProgressEvent>(&event))
      r.lines.push_back("progress " + std::to_string(p->step) + "/" +
                        std::to_string(p->totalSteps) + " " + std::to_string(p->evaluated));
    else if (auto* c = std::get_if<fl::CheckpointEvent>(&event)) {
      r.lines.push_back("checkpoint " + std::to_string(c->step) + " " +
                        fs::path(c->path).filename().string() + (c->removed ? " removed" : ""));
      r.checkpoints.push_back(*c);
    } else if (auto* s = std::get_if<fl::StatusEvent>(&event)) {
      if (fl::isTerminal(s->status)) r.terminal = *s;
      if (s->status == fl::RunStatus::Running) r.running = s->message;
    }
  }
  return r;
}

}  // namespace

class TestGroupRunner : public QObject {
  Q_OBJECT

  QTemporaryDir m_dir;
  std::shared_ptr<ScriptedExperiment> m_experiment = std::make_shared<ScriptedExperiment>();

  std::string folder(const std::string& name) { return (m_dir.path() + "/").toStdString() + name; }

  Recorded single(const nlohmann::json& config, const std::string& dir) {
    fl::EventQueue events;
    fl::RunnerOptions options;
    options.checkpointDir = dir;
    fl::Runner runner(m_experiment, config, events, options);
    runner.start();
    runner.join();
    return record(events.takeAll());
  }

 private slots:
  void membersReportAsTheirSingleRunsAndANanMemberFailsAlone_data() {
    QTest::addColumn<int>("deferred");
    QTest::newRow("losses read at each step") << 0;
    // As on a GPU: read when a member reports, every 5 steps; the NaN at step 8 fails its member
    // at step 8 all the same, with the single run's events.
    QTest::newRow("losses left on the device") << 1;
  }
  void membersReportAsTheirSingleRunsAndANanMemberFailsAlone() {
    QFETCH(int, deferred);
    const std::vector<nlohmann::json> configs = {
        configOf(*m_experiment, {{"steps", 23}, {"seed", 1}, {"deferred_losses", deferred}}),
        configOf(*m_experiment,
                 {{"steps", 23}, {"nan_at", 7}, {"seed", 2}, {"deferred_losses", deferred}}),
        configOf(
            *m_experiment,
            {{"steps", 17}, {"seed", 3}, {"checkpoint_every", 1}, {"deferred_losses", deferred}})};
    std::vector<fl::EventQueue> queues(configs.size());
    std::vector<fl::GroupMemberSpec> specs;
    for (size_t i = 0; i < configs.size(); ++i)
      specs.push_back({configs[i],
                       &queues[i],
                       folder("group-" + std::to_string(deferred) + std::to_string(i)),
                       {}});
    fl::GroupRunner group(m_experiment, specs);
    group.start();
    group.join();
    QVERIFY(group.isDone());
    for (size_t i = 0; i < configs.size(); ++i) {
      const Recorded member = record(queues[i].takeAll());
      const Recorded alone =
          single(configs[i], folder("single-" + std::to_string(deferred) + std::to_string(i)));
      QCOMPARE(member.lines, alone.lines);
      QVERIFY(member.terminal && alone.terminal);
      QCOMPARE(int(member.terminal->status), int(alone.terminal->status));
      QCOMPARE(member.terminal->step, alone.terminal->step);
      QCOMPARE(member.terminal->message, alone.terminal->message);
      QCOMPARE(int(group.finalStatus(i)), int(member.terminal->status));
      // Its status says how the group steps, as the group describes it.
      const std::string how = deferred ? "losses left unread" : "losses read at once";
      QVERIFY2(member.running.find("in a batched group of 3 runs, " + how) != std::string::npos,
               member.running.c_str());
    }
    QCOMPARE(int(group.finalStatus(0)), int(fl::RunStatus::Finished));
    QCOMPARE(int(group.finalStatus(1)), int(fl::RunStatus::Failed));
    QCOMPARE(int(group.finalStatus(2)), int(fl::RunStatus::Finished));
  }

  void membersFailOrStopAloneAndResumeFromTheirCheckpoints() {
    // Member 0 is cancelled alone, member 1's disk is full, member 2 trains on; then the whole
    // group is cancelled, and a new group resumes members 0 and 2 from their checkpoints.
    const std::vector<nlohmann::json> configs = {
        configOf(*m_experiment, {{"steps", 400}, {"step_millis", 2}, {"seed", 1}}),
        configOf(*m_experiment,
                 {{"steps", 400}, {"fail_checkpoint", 1}, {"checkpoint_every", 1}, {"seed", 2}}),
        configOf(*m_experiment, {{"steps", 400}, {"step_millis", 2}, {"seed", 3}})};
    std::vector<fl::EventQueue> queues(configs.size());
    std::vector<fl::GroupMemberSpec> specs;
    for (size_t i = 0; i < configs.size(); ++i)
      specs.push_back({configs[i], &queues[i], folder("stop-" + std::to_string(i)), {}});
    fl::GroupRunner group(m_experiment, specs);
    group.start();
    QTRY_VERIFY_WITH_TIMEOUT(group.isMemberDone(1), 10000);  // its first checkpoint fails
    QTest::qWait(50);
    group.cancel(0);
    QTRY_VERIFY_WITH_TIMEOUT(group.isMemberDone(0), 10000);
    QTest::qWait(50);
    QVERIFY(!group.isMemberDone(2));
    group.cancel();
    group.join();

    const Recorded stopped = record(queues[0].takeAll());
    const Recorded full = record(queues[1].takeAll());
    const Recorded last = record(queues[2].takeAll());
    QCOMPARE(int(stopped.terminal->status), int(fl::RunStatus::Cancelled));
    QVERIFY2(stopped.terminal->message.find("checkpoint saved") != std::string::npos,
             stopped.terminal->message.c_str());
    QCOMPARE(stopped.checkpoints.back().step, stopped.terminal->step);
    QCOMPARE(int(full.terminal->status), int(fl::RunStatus::Failed));
    QVERIFY(full.terminal->fileWriteFailed);
    QCOMPARE(full.terminal->step, int64_t(5));  // the first evaluation's checkpoint
    QCOMPARE(int(last.terminal->status), int(fl::RunStatus::Cancelled));
    QVERIFY(last.terminal->step > stopped.terminal->step);
    QCOMPARE(last.checkpoints.back().step, last.terminal->step);

    // Resumed together, each from its own step, both finish all 400 steps.
    std::vector<fl::EventQueue> again(2);
    std::vector<fl::GroupMemberSpec> resumed;
    const Recorded* before[] = {&stopped, &last};
    for (int i = 0; i < 2; ++i) {
      fl::ResumePoint point;
      point.checkpointPath = before[i]->checkpoints.back().path;
      point.step = before[i]->checkpoints.back().step;
      nlohmann::json config = configs[i == 0 ? 0 : 2];  // the same runs, now without delay
      config["step_millis"] = 0;
      resumed.push_back({config, &again[i], folder("resumed-" + std::to_string(i)), point});
    }
    fl::GroupRunner second(m_experiment, resumed);
    second.start();
    second.join();
    for (int i = 0; i < 2; ++i) {
      const Recorded r = record(again[i].takeAll());
      QCOMPARE(int(r.terminal->status), int(fl::RunStatus::Finished));
      QCOMPARE(r.terminal->step, int64_t(400));
      QVERIFY(!r.lines.empty());
      // The first metric after the resume is the next logging step after the checkpoint.
      const int64_t next = (before[i]->checkpoints.back().step / 5 + 1) * 5;
      const std::string first = "metric train/loss " + std::to_string(next) + " ";
      QVERIFY2(r.lines.front().rfind(first, 0) == 0, r.lines.front().c_str());
    }
  }

  // A run resumed at its last step takes no step, yet still tells its sink (the store) how
  // long it is: an earlier attempt's progress may never have been written (a full disk).
  void aRunResumedAtItsLastStepStillReportsItsLength() {
    const auto config = configOf(*m_experiment, {{"steps", 23}, {"seed", 1}});
    const std::string checkpoint = folder("at-the-end.pt");
    std::ofstream(checkpoint) << 23;
    fl::ResumePoint point;
    point.checkpointPath = checkpoint;
    point.step = 23;
    std::vector<fl::EventQueue> queues(2);
    fl::GroupRunner group(m_experiment, {{config, &queues[0], folder("end-0"), point},
                                         {config, &queues[1], folder("end-1"), point}});
    group.start();
    group.join();
    for (auto& queue : queues) {
      std::vector<fl::ProgressEvent> progress;
      for (const auto& event : queue.takeAll())
        if (auto* p = std::get_if<fl::ProgressEvent>(&event)) progress.push_back(*p);
      QCOMPARE(progress.size(), size_t(1));
      QCOMPARE(progress.front().step, int64_t(23));
      QCOMPARE(progress.front().totalSteps, int64_t(23));
      QCOMPARE(int(group.finalStatus(0)), int(fl::RunStatus::Finished));
    }
  }

  void aProbeIsAnsweredByItsMemberAloneBetweenSteps() {
    const std::vector<nlohmann::json> configs = {
        configOf(*m_experiment, {{"steps", 100000}, {"step_millis", 1}, {"seed", 1}}),
        configOf(*m_experiment, {{"steps", 100000}, {"step_millis", 1}, {"seed", 2}})};
    std::vector<fl::EventQueue> queues(configs.size());
    std::vector<fl::GroupMemberSpec> specs;
    for (size_t i = 0; i < configs.size(); ++i) specs.push_back({configs[i], &queues[i], "", {}});
    fl::GroupRunner group(m_experiment, specs);
    group.start();
    const int64_t id = group.requestProbe(1, {{"x", 0.25}});
    QVERIFY(id > 0);
    std::vector<fl::SnapshotEvent> answers[2];
    auto answered = [&] {
      for (int i = 0; i < 2; ++i)
        for (auto& e : queues[i].takeAll())
          if (auto* s = std::get_if<fl::SnapshotEvent>(&e))
            if (s->requestId != 0) answers[i].push_back(*s);
      return !answers[1].empty();
    };
    QTRY_VERIFY_WITH_TIMEOUT(answered(), 10000);
    group.cancel();
    group.join();
    QVERIFY(answers[0].empty());
    QCOMPARE(answers[1].size(), size_t(1));
    const fl::SnapshotEvent& answer = answers[1].front();
    QCOMPARE(answer.requestId, id);
    QCOMPARE(answer.snapshot.data[0], 1.0f);
    QCOMPARE(answer.snapshot.data[1], 0.25f);
    QCOMPARE(double(answer.snapshot.data[2]), double(answer.step));  // asked between steps
    QVERIFY_THROWS_EXCEPTION(std::out_of_range, group.requestProbe(2, {{"x", 0.0}}));
  }
};

QTEST_GUILESS_MAIN(TestGroupRunner)
#include "test_group_runner.moc"
