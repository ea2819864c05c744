#include "app/gui/group_session.h"

#include <chrono>
#include <thread>

#include "core/engine/event_queue.h"
#include "core/engine/group_runner.h"
#include "core/store/store_sink.h"

namespace fl::gui {

namespace {

// The group all member sessions share: its GroupRunner and each member's sinks. Owned jointly
// by the sessions, so a member's sink outlives every event the group thread may still send it.
class SharedGroup {
 public:
  SharedGroup(std::shared_ptr<const Experiment> experiment, const std::string& storePath,
              std::vector<GroupMemberLaunch> launches, int threads)
      : m_threads(threads) {
    std::vector<GroupMemberSpec> specs;
    for (auto& launch : launches) {
      auto member = std::make_unique<Member>();
      member->store = std::make_unique<store::StoreSink>(storePath, launch.runId);
      member->sinks = std::make_unique<FanOutSink>(
          std::vector<EventSink*>{member->store.get(), &member->queue});
      specs.push_back({std::move(launch.config), member->sinks.get(),
                       storePath + ".files/run-" + std::to_string(launch.runId),
                       std::move(launch.resume)});
      m_members.push_back(std::move(member));
    }
    m_runner = std::make_unique<GroupRunner>(std::move(experiment), std::move(specs), threads);
    m_runner->start();
  }

  ~SharedGroup() {
    m_runner.reset();  // cancels and joins: no member gets an event after this
    for (auto& member : m_members) member->store->close();
  }

  int threads() const { return m_threads; }
  GroupRunner& runner() { return *m_runner; }
  EventQueue& queue(int64_t i) { return m_members[static_cast<size_t>(i)]->queue; }

  // Stops the member if it still trains (within one of the group's steps), then flushes its
  // store: the others train on.
  void closeMember(int64_t i) {
    m_runner->cancel(i);
    while (!m_runner->isMemberDone(i)) std::this_thread::sleep_for(std::chrono::milliseconds(2));
    m_members[static_cast<size_t>(i)]->store->close();
  }

 private:
  struct Member {
    std::unique_ptr<store::StoreSink> store;
    EventQueue queue;
    std::unique_ptr<FanOutSink> sinks;
  };
  int m_threads;
  std::vector<std::unique_ptr<Member>> m_members;
  std::unique_ptr<GroupRunner> m_runner;  // last: it sends to the members' sinks
};

class GroupMemberSession : public TrainingSession {
 public:
  GroupMemberSession(std::shared_ptr<SharedGroup> group, int64_t member)
      : m_group(std::move(group)), m_member(member) {}
  ~GroupMemberSession() override { m_group->closeMember(m_member); }

  void cancel() override { m_group->runner().cancel(m_member); }
  bool finished() const override { return m_group->runner().isMemberDone(m_member); }
  int threads() const override { return m_group->threads(); }
  int64_t requestProbe(const std::map<std::string, double>& inputs) override {
    return finished() ? 0 : m_group->runner().requestProbe(m_member, inputs);
  }
  std::vector<Event> takeEvents() override { return m_group->queue(m_member).takeAll(); }
  const void* worker() const override { return m_group.get(); }

 private:
  std::shared_ptr<SharedGroup> m_group;
  int64_t m_member;
};

}  // namespace

std::vector<std::unique_ptr<TrainingSession>> startGroupSessions(
    std::shared_ptr<const Experiment> experiment, const std::string& storePath,
    std::vector<GroupMemberLaunch> members, int threads) {
  const auto count = static_cast<int64_t>(members.size());
  auto group =
      std::make_shared<SharedGroup>(std::move(experiment), storePath, std::move(members), threads);
  std::vector<std::unique_ptr<TrainingSession>> sessions;
  for (int64_t i = 0; i < count; ++i)
    sessions.push_back(std::make_unique<GroupMemberSession>(group, i));
  return sessions;
}

}  // namespace fl::gui
