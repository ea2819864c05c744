// RunSession: one run launched from the GUI. Owns its Runner (training thread), the StoreSink
// (writer thread) and the queue between the Runner and the GUI thread, which drain() empties
// on the window's ~30 Hz timer: the GUI thread never waits on training or on disk.
#pragma once

#include <QObject>
#include <QString>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/engine/event_queue.h"
#include "core/engine/events.h"
#include "core/engine/experiment.h"
#include "core/engine/runner.h"

namespace fl {
class Runner;
namespace store {
class StoreSink;
}
}  // namespace fl

namespace fl::gui {

// What the GUI knows of a run, updated by drain().
struct LiveRun {
  int64_t id = 0;
  std::string experiment;
  std::string name;
  RunStatus status = RunStatus::Queued;
  std::string message;
  std::string device;
  ProgressEvent progress;
  std::map<std::string, double> lastMetrics;
  // The experiment's own judgement from its latest snapshot with a "verdict" (e.g. "LEAKS").
  std::string judgement;
  bool judgementOk = true;

  // What the Runs table says of a run: the judgement beside the validation loss, then the
  // status message (a finished run's says how it compares with the paper's figures).
  std::string summary() const;
  // Judged at all (a judgement, or a comparison with published figures), and badly (LEAKS, or
  // outside the paper's spread)?
  bool judged() const;
  bool judgedBad() const;
};

// New data since the previous drain, in arrival order.
struct RunDelta {
  std::map<std::string, std::pair<std::vector<double>, std::vector<double>>> metrics;
  std::vector<SnapshotEvent> snapshots;
  bool statusChanged = false;
  bool empty() const { return metrics.empty() && snapshots.empty() && !statusChanged; }
};

// Everything this session's Runner reported (metrics and evaluation snapshots). The window
// draws a live run from it rather than from the store: the store writer flushes about once a
// second, so reading the store would miss what was drained but not yet written.
struct RunHistory {
  std::map<std::string, std::pair<std::vector<double>, std::vector<double>>> metrics;
  std::vector<SnapshotEvent> snapshots;
};

class RunSession : public QObject {
  Q_OBJECT

 public:
  RunSession(std::shared_ptr<const Experiment> experiment, nlohmann::json config,
             std::string storePath, int64_t runId, std::string name, QObject* parent = nullptr);
  ~RunSession() override;

  // Continue from a checkpoint instead of starting fresh (see store::prepareResume).
  void setResume(ResumePoint point) { m_resume = std::move(point); }
  void start();
  void cancel();
  int64_t requestProbe(const std::map<std::string, double>& inputs);
  RunDelta drain();

  const LiveRun& live() const { return m_live; }
  const RunHistory& history() const { return m_history; }
  // The step this session starts from: 0, or a resumed run's checkpoint (the store holds the
  // curves up to it).
  int64_t firstStep() const { return m_resume ? m_resume->step : 0; }
  bool started() const { return m_started; }
  bool done() const { return isTerminal(m_live.status); }
  const std::shared_ptr<const Experiment>& experiment() const { return m_experiment; }

 private:
  std::shared_ptr<const Experiment> m_experiment;
  nlohmann::json m_config;
  std::string m_storePath;
  LiveRun m_live;
  RunHistory m_history;
  std::optional<ResumePoint> m_resume;
  EventQueue m_queue;
  std::unique_ptr<store::StoreSink> m_storeSink;
  std::unique_ptr<FanOutSink> m_sinks;
  std::unique_ptr<Runner> m_runner;
  bool m_started = false;
};

}  // namespace fl::gui
