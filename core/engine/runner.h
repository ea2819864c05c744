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

#include "core/engine/checkpoint_schedule.h"
#include "core/engine/events.h"
#include "core/engine/experiment.h"
#include "core/engine/loss_divergence.h"
#include "core/engine/reference_check.h"

namespace fl {

struct ResumePoint {
  std::string checkpointPath;
  int64_t step = 0;  // the checkpoint's step: training continues at step + 1
  // Each metric's lowest value up to `step` (the run's past, from the store): a comparison with
  // a paper's best value must see the evaluations before the interruption too.
  std::map<std::string, double> lowestBefore;
};

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
  const std::vector<ReferenceVerdict>& paperVerdicts() const { return m_paperVerdicts; }
  // Every verdict of a finished run (the experiment's, then the paper's), as its terminal
  // StatusEvent carries them; read after join().
  const std::vector<Verdict>& verdicts() const { return m_verdicts; }

 private:
  struct ProbeRequest {
    int64_t id;
    std::map<std::string, double> inputs;
  };

  void run();
  RunStatus trainLoop(Trial& trial, CheckpointSchedule schedule, std::string& message);
  RunStatus serveProbes(Trial& trial, std::string& message);
  // Evaluates, emits the results and returns the selection metric's value, if any.
  std::optional<double> evaluateAndReport(Trial& trial, int64_t stepsDone, bool final);
  void saveCheckpoint(Trial& trial, int64_t stepsDone, std::optional<double> score,
                      class CheckpointKeeper& keeper);
  void answerRequests(Trial& trial, int64_t stepsDone);
  // Blocks while paused (still answering probes); returns false once cancelled.
  bool waitWhilePaused(Trial& trial, int64_t stepsDone);
  double elapsed() const;
  // A finished run's status message: the experiment's judgement (e.g. "LEAKS -- ...") and how
  // its metrics compare with the published figures of every preset it matches.
  std::string finishedSummary(const nlohmann::json& config);
  void emitStatus(RunStatus status, std::string message, int64_t step,
                  bool fileWriteFailed = false);

  std::shared_ptr<const Experiment> m_experiment;
  nlohmann::json m_config;
  EventSink& m_sink;
  RunnerOptions m_options;
  std::string m_deviceName;

  std::thread m_thread;
  std::atomic<bool> m_cancel{false};
  std::atomic<bool> m_paused{false};
  std::atomic<bool> m_done{false};
  std::atomic<RunStatus> m_finalStatus{RunStatus::Queued};
  // The latest verdict an evaluation gave (a snapshot whose meta states one): part of a
  // finished run's verdicts and, as "VERDICT -- detail", of its status message.
  std::optional<Verdict> m_verdict;
  std::optional<Verdict> m_divergenceVerdict;  // a finite loss far above its start (DivergenceWatch)
  std::vector<Verdict> m_verdicts;  // a finished run's, attached to its terminal status
  // Every evaluated metric's last and lowest value, for the comparison with published figures.
  std::map<std::string, double> m_lastEval;
  std::map<std::string, double> m_lowestEval;
  std::vector<ReferenceVerdict> m_paperVerdicts;
  LossDivergence m_divergence;  // a finite but exploding training loss
  int64_t m_lastStep = 0;  // the status events' step: where a run failed or was cancelled

  std::mutex m_requestMutex;
  std::condition_variable m_wake;
  std::deque<ProbeRequest> m_requests;
  int64_t m_nextRequestId = 1;

  std::chrono::steady_clock::time_point m_startTime;
};

}  // namespace fl
