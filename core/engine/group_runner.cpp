#include "core/engine/group_runner.h"

#include <stdexcept>

#include <ATen/Parallel.h>
#include <c10/util/Exception.h>

#include "core/engine/allocator_tuning.h"
#include "core/engine/atomic_file.h"
#include "core/engine/checkpoint_load.h"
#include "core/engine/config.h"
#include "core/engine/device.h"

namespace fl {

namespace {

// One member of the group seen as a Trial, so the RunReporter evaluates and checkpoints it
// exactly as it does a single run. Its steps are the group's: trainStep is never called.
class MemberTrial : public Trial {
 public:
  MemberTrial(BatchedTrial& group, int64_t member) : m_group(group), m_member(member) {}
  TrialPlan plan() const override { return m_group.plan(m_member); }
  StepLoss trainStep(int64_t) override {
    throw std::logic_error("a group member steps with its group");
  }
  void evaluate(int64_t, bool final, EvalReport& out) override {
    m_group.evaluate(m_member, final, out);
  }
  std::vector<Snapshot> probe(const std::map<std::string, double>& inputs) override {
    return m_group.probe(m_member, inputs);
  }
  bool supportsCheckpoints() const override { return m_group.supportsCheckpoints(); }
  void saveCheckpoint(const std::string& path) const override {
    m_group.saveCheckpoint(m_member, path);
  }
  void loadCheckpoint(const std::string& path) override { m_group.loadCheckpoint(m_member, path); }

 private:
  BatchedTrial& m_group;
  int64_t m_member;
};

std::string messageOf(const std::exception& e) {
  // LibTorch's messages carry a C++ backtrace after the first line; keep the first line.
  if (auto* torchError = dynamic_cast<const c10::Error*>(&e))
    return torchError->what_without_backtrace();
  return e.what();
}

}  // namespace

struct GroupRunner::Member {
  Member(std::shared_ptr<const Experiment> experiment, GroupMemberSpec s)
      : spec(std::move(s)), reporter(std::move(experiment), *spec.sink) {}

  GroupMemberSpec spec;
  RunReporter reporter;
  nlohmann::json config;  // validated
  std::unique_ptr<MemberTrial> trial;
  bool training = false;  // begun and not ended
  std::atomic<bool> cancel{false};
  std::atomic<bool> done{false};
  std::atomic<RunStatus> status{RunStatus::Queued};
};

GroupRunner::GroupRunner(std::shared_ptr<const Experiment> experiment,
                         std::vector<GroupMemberSpec> members, int threads)
    : m_experiment(std::move(experiment)), m_threads(threads) {
  for (auto& spec : members) {
    if (!spec.sink) throw std::invalid_argument("a group member needs a sink");
    m_members.push_back(std::make_unique<Member>(m_experiment, std::move(spec)));
  }
}

GroupRunner::~GroupRunner() {
  cancel();
  join();
}

void GroupRunner::start() {
  keepLargeAllocationsInHeap();
  for (auto& m : m_members) m->reporter.startClock();
  m_thread = std::thread([this] { run(); });
}

void GroupRunner::cancel() {
  for (auto& m : m_members) m->cancel = true;
}

void GroupRunner::cancel(int64_t member) { m_members.at(member)->cancel = true; }

int64_t GroupRunner::requestProbe(int64_t member, std::map<std::string, double> inputs) {
  if (member < 0 || member >= memberCount()) throw std::out_of_range("no such group member");
  std::lock_guard<std::mutex> lock(m_requestMutex);
  const int64_t id = m_nextRequestId++;
  m_requests.push_back({member, id, std::move(inputs)});
  return id;
}

void GroupRunner::answerProbes(BatchedTrial& group) {
  std::deque<ProbeRequest> pending;
  {
    std::lock_guard<std::mutex> lock(m_requestMutex);
    pending.swap(m_requests);
  }
  for (auto& request : pending) {
    Member& m = *m_members[static_cast<size_t>(request.member)];
    if (!m.training) continue;  // ended: its sink takes nothing more
    const int64_t step = group.stepsDone(request.member);
    try {
      for (auto& snapshot : group.probe(request.member, request.inputs))
        m.spec.sink->onEvent(
            SnapshotEvent{step, m.reporter.elapsed(), std::move(snapshot), request.id});
    } catch (const std::exception& e) {  // as a single run's probe would, it ends the run
      group.setActive(request.member, false);
      end(m, RunStatus::Failed, "the probe failed: " + messageOf(e));
    }
  }
}

void GroupRunner::join() {
  if (m_thread.joinable()) m_thread.join();
}

bool GroupRunner::isMemberDone(int64_t member) const { return m_members.at(member)->done.load(); }

RunStatus GroupRunner::finalStatus(int64_t member) const {
  return m_members.at(member)->status.load();
}

const std::vector<Verdict>& GroupRunner::verdicts(int64_t member) const {
  return m_members.at(member)->reporter.verdicts();
}

void GroupRunner::end(Member& m, RunStatus status, std::string message, bool fileWriteFailed) {
  if (m.done) return;
  m.training = false;
  m.status = status;
  m.reporter.emitStatus(status, std::move(message), m.reporter.lastStep(), fileWriteFailed);
  m.done = true;
}

void GroupRunner::run() {
  try {
    if (m_threads > 0) at::set_num_threads(m_threads);
    std::vector<TrialContext> contexts;
    std::vector<std::string> devices;  // "CPU (16 threads)", as a single run says it
    for (auto& m : m_members) {
      const ValidatedConfig config = validateConfig(m_experiment->allParams(), m->spec.config);
      if (!config.ok()) throw std::runtime_error("invalid config: " + config.summary());
      const ResolvedDevice device = resolveDevice(config.values.at("device").get<std::string>());
      m->config = config.values;
      m->reporter.setDevice(device.name);
      m->reporter.setBatchSize(static_cast<int>(m_members.size()));
      devices.push_back(device.description);
      TrialContext context;
      context.config = config.values;
      context.device = device.device;
      context.seed = config.values.at("seed").get<uint64_t>();
      contexts.push_back(std::move(context));
    }
    const std::string size = std::to_string(m_members.size());
    auto announce = [&](const std::string& how) {
      for (size_t i = 0; i < m_members.size(); ++i)
        m_members[i]->reporter.emitStatus(
            RunStatus::Running,
            "running on " + devices[i] + " in a batched group of " + size + " runs" + how, 0);
    };
    announce("");
    // Each member is seeded by the group as its single run: no SeededScope here.
    const std::unique_ptr<BatchedTrial> group = m_experiment->createGroup(contexts);
    // How it steps is known once it is built (on a GPU: whether a CUDA graph could be made).
    if (const std::string how = group->stepDescription(); !how.empty()) announce(", " + how);
    trainGroup(*group);
  } catch (const std::exception& e) {
    const bool fileWriteFailed = dynamic_cast<const FileWriteError*>(&e) != nullptr;
    for (auto& m : m_members) end(*m, RunStatus::Failed, messageOf(e), fileWriteFailed);
  }
  for (auto& m : m_members) end(*m, RunStatus::Failed, "ended without a status");
  m_done = true;
}

void GroupRunner::trainGroup(BatchedTrial& group) {
  if (group.memberCount() != memberCount())
    throw std::logic_error("the group built " + std::to_string(group.memberCount()) +
                           " members of " + std::to_string(memberCount()));
  // A member's own failure (its checkpoint, its evaluation) ends it alone.
  auto guarded = [&](Member& m, int64_t i, auto&& work) {
    try {
      work();
    } catch (const std::exception& e) {
      group.setActive(i, false);
      end(m, RunStatus::Failed, messageOf(e), dynamic_cast<const FileWriteError*>(&e) != nullptr);
    }
  };
  auto finishIfDone = [&](Member& m, int64_t i) {
    if (group.stepsDone(i) < group.plan(i).totalSteps) return;
    group.setActive(i, false);
    m.reporter.finishTraining(*m.trial);
    end(m, RunStatus::Finished, m.reporter.finishedSummary(m.config));
  };

  for (int64_t i = 0; i < memberCount(); ++i) {
    Member& m = *m_members[i];
    m.trial = std::make_unique<MemberTrial>(group, i);
    guarded(m, i, [&] {
      const auto& resume = m.spec.resume;
      if (resume) {
        loadForResume([&] { group.loadCheckpoint(i, resume->checkpointPath); });
        m.reporter.resumed(*resume);
      }
      group.setActive(i, true);
      m.reporter.begin(group.plan(i), m.config, m.spec.checkpointDir, group.supportsCheckpoints(),
                       group.stepsDone(i),
                       resume ? std::optional<std::string>(resume->checkpointPath) : std::nullopt);
      m.training = true;
      finishIfDone(m, i);
    });
  }

  while (true) {
    bool anyTraining = false;
    for (int64_t i = 0; i < memberCount(); ++i) {
      Member& m = *m_members[i];
      if (!m.training) continue;
      if (m.cancel) {
        group.setActive(i, false);
        guarded(m, i, [&] {
          end(m, RunStatus::Cancelled, m.reporter.cancel(*m.trial, group.stepsDone(i)));
        });
        continue;
      }
      m.reporter.setLastStep(group.stepsDone(i));
      anyTraining = true;
    }
    if (!anyTraining) return;
    answerProbes(group);

    std::vector<std::optional<StepLoss>> losses;
    try {
      losses = group.trainStep();
    } catch (const std::exception& e) {
      for (auto& m : m_members)
        if (m->training) end(*m, RunStatus::Failed, "the group's step failed: " + messageOf(e));
      return;
    }
    bool stepped = false;
    for (int64_t i = 0; i < memberCount(); ++i) {
      Member& m = *m_members[i];
      if (!m.training || i >= static_cast<int64_t>(losses.size()) || !losses[i]) continue;
      stepped = true;
      guarded(m, i, [&] {
        std::string message;
        if (!m.reporter.afterStep(*m.trial, group.stepsDone(i), *losses[i], message)) {
          group.setActive(i, false);
          end(m, RunStatus::Failed, message);
          return;
        }
        finishIfDone(m, i);
      });
    }
    if (!stepped)
      for (auto& m : m_members)
        if (m->training) end(*m, RunStatus::Failed, "its group took no step");
  }
}

}  // namespace fl
