// GroupRunner: trains the members of one BatchedTrial on its own thread, each member an
// ordinary run: its own sink (in a study, its own StoreSink and run id), its own events through
// the same RunReporter a Runner uses (metrics, snapshots, verdicts, checkpoints on its schedule
// and on cancel, its terminal StatusEvent), its own resume point and checkpoint folder.
//
//   GroupRunner group(experiment, {{config, &sinkA, dirA, resumeA}, {config, &sinkB, ...}});
//   group.start();
//   ... group.cancel(i) stops member i alone (checkpoint, cancelled); group.cancel() every one
//   ... group.requestProbe(i, inputs): member i's answer comes to its sink between two steps
//   ... group.isMemberDone(i) once its terminal status is out; group.isDone() when all are
//   group.join();
//
// A member whose loss is not finite fails alone at that step, as its single run would; a
// member whose evaluation or checkpoint throws (a full disk) fails alone; a failure of the
// group's shared step fails every member still training. Members that train alone are better
// served by a Runner: the group adds nothing for one member (StudyScheduler uses a Runner then).
#pragma once

#include <atomic>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/engine/events.h"
#include "core/engine/experiment.h"
#include "core/engine/run_reporter.h"

namespace fl {

struct GroupMemberSpec {
  nlohmann::json config;  // the member's run config (validated again by the group)
  EventSink* sink = nullptr;
  std::string checkpointDir;  // empty: no checkpoints
  std::optional<ResumePoint> resume;
};

class GroupRunner {
 public:
  GroupRunner(std::shared_ptr<const Experiment> experiment, std::vector<GroupMemberSpec> members,
              int threads = 0);
  ~GroupRunner();  // cancels and joins
  GroupRunner(const GroupRunner&) = delete;
  GroupRunner& operator=(const GroupRunner&) = delete;

  void start();
  void cancel();                // every member
  void cancel(int64_t member);  // this member alone, within one step
  // Queues a probe of a member still training; its answer arrives at the member's sink as
  // SnapshotEvents carrying the returned id, between two of the group's steps (as a Runner's).
  // A member that ends first never answers.
  int64_t requestProbe(int64_t member, std::map<std::string, double> inputs);
  void join();

  int64_t memberCount() const { return static_cast<int64_t>(m_members.size()); }
  bool isDone() const { return m_done.load(); }
  // True once the member's terminal StatusEvent is out: its sink gets nothing more.
  bool isMemberDone(int64_t member) const;
  RunStatus finalStatus(int64_t member) const;
  // A finished member's verdicts (read once isMemberDone).
  const std::vector<Verdict>& verdicts(int64_t member) const;

 private:
  struct Member;
  void run();
  void trainGroup(BatchedTrial& group);
  void end(Member& member, RunStatus status, std::string message, bool fileWriteFailed = false);
  void answerProbes(BatchedTrial& group);

  struct ProbeRequest {
    int64_t member;
    int64_t id;
    std::map<std::string, double> inputs;
  };

  std::shared_ptr<const Experiment> m_experiment;
  std::vector<std::unique_ptr<Member>> m_members;
  int m_threads;
  std::thread m_thread;
  std::atomic<bool> m_done{false};

  std::mutex m_requestMutex;
  std::deque<ProbeRequest> m_requests;
  int64_t m_nextRequestId = 1;
};

}  // namespace fl
