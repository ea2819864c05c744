// Runner: runs one Trial on its own thread and reports through an EventSink.
//
//   EventQueue events;
//   Runner runner(experiment, config.values, events);
//   runner.start();
//   ... drain `events` on your thread; runner.cancel() at any time ...
//   runner.join();
//
// Threading: start/cancel/setPaused/requestProbe/join may be called from any one controlling
// thread. The Trial (and so the model) is touched only by the Runner's thread: requests reach
// it through a small queue and are answered between steps with ordinary events. Cancel is
// honoured within one step. The engine never prints or exits: every outcome is an event, and
// the last event is always a StatusEvent with a terminal status.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include <nlohmann/json.hpp>

#include "core/engine/events.h"
#include "core/engine/experiment.h"
#include "core/engine/reference_check.h"
#include "core/engine/run_reporter.h"

namespace fl {

struct RunnerOptions {
  int threads = 0;  // intra-op threads for this run; 0 keeps LibTorch's default
  // Where checkpoints go (created when needed); empty: no checkpoints. How often is the
  // config's `checkpoint_every` (evaluations) and `checkpoint_seconds` (a time bound, see
  // CheckpointSchedule); the last and the best are kept.
  std::string checkpointDir;
  std::optional<ResumePoint> resume;
  // With `resume`: load the checkpoint, then only answer probe requests until cancelled (the
  // probe of a finished run). No training, no evaluation; ends as cancelled.
  bool serveProbesOnly = false;
};

class Runner {
 public:
  Runner(std::shared_ptr<const Experiment> experiment, nlohmann::json config, EventSink& sink,
         RunnerOptions options = {});
  ~Runner();  // cancels and joins
  Runner(const Runner&) = delete;
  Runner& operator=(const Runner&) = delete;

  void start();
  void cancel();
  void setPaused(bool paused);
  // Queues a probe; the answer arrives as SnapshotEvents carrying the returned id.
  int64_t requestProbe(std::map<std::string, double> inputs);
  void join();

  bool isDone() const { return m_done.load(); }
  RunStatus finalStatus() const { return m_finalStatus.load(); }
  // A finished run against the published figures of every preset it matches (empty for other
  // runs); read after join(). The status message carries the same as text.
  const std::vector<ReferenceVerdict>& paperVerdicts() const { return m_reporter.paperVerdicts(); }
  // Every verdict of a finished run (the experiment's, then the paper's), as its terminal
  // StatusEvent carries them; read after join().
  const std::vector<Verdict>& verdicts() const { return m_reporter.verdicts(); }

 private:
  struct ProbeRequest {
    int64_t id;
    std::map<std::string, double> inputs;
  };

  void run();
  RunStatus trainLoop(Trial& trial, const nlohmann::json& config, std::string& message);
  // The failed run's message for a step that ran out of memory; keeps the work done before it.
  std::string outOfMemory(Trial& trial, int64_t step, const std::string& what);
  RunStatus serveProbes(Trial& trial, std::string& message);
  void answerRequests(Trial& trial, int64_t stepsDone);
  // Blocks while paused (still answering probes); returns false once cancelled.
  bool waitWhilePaused(Trial& trial, int64_t stepsDone);

  std::shared_ptr<const Experiment> m_experiment;
  nlohmann::json m_config;
  std::string m_deviceDescription;  // "cuda:0 (NVIDIA H200, 141 GB)", once resolved
  EventSink& m_sink;
  RunnerOptions m_options;
  // The run's logging, evaluations, checkpoints and verdicts (shared with GroupRunner).
  RunReporter m_reporter;

  std::thread m_thread;
  std::atomic<bool> m_cancel{false};
  std::atomic<bool> m_paused{false};
  std::atomic<bool> m_done{false};
  std::atomic<RunStatus> m_finalStatus{RunStatus::Queued};

  std::mutex m_requestMutex;
  std::condition_variable m_wake;
  std::deque<ProbeRequest> m_requests;
  int64_t m_nextRequestId = 1;
};

}  // namespace fl
