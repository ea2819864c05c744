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
  std::string verdict;  // once finished: the metrics against the preset's published figures
  // The experiment's own judgement from its latest snapshot with a "verdict" (e.g. "LEAKS").
  std::string judgement;
  bool judgementOk = true;

  // What the Runs table says of a run: the judgement beside the validation loss, the paper
  // verdict, or the status message.
  std::string summary() const;
};

// New data since the previous drain, in arrival order.
struct RunDelta {
  std::map<std::string, std::pair<std::vector<double>, std::vector<double>>> metrics;
  std::vector<SnapshotEvent> snapshots;
  bool statusChanged = false;
  bool empty() const { return metrics.empty() && snapshots.empty() && !statusChanged; }
};

class RunSession : public QObject {
  Q_OBJECT

 public:
  RunSession(std::shared_ptr<const Experiment> experiment, nlohmann::json config,
             std::string storePath, int64_t runId, std::string name, QObject* parent = nullptr);
  ~RunSession() override;

  // Published figures to compare with when the run finishes (Preset::reference).
  void setReference(nlohmann::json reference) { m_reference = std::move(reference); }
  // Continue from a checkpoint instead of starting fresh (see store::prepareResume).
  void setResume(ResumePoint point) { m_resume = std::move(point); }
  void start();
  void cancel();
  int64_t requestProbe(const std::map<std::string, double>& inputs);
  RunDelta drain();

  const LiveRun& live() const { return m_live; }
  bool started() const { return m_started; }
  bool done() const { return isTerminal(m_live.status); }
  const std::shared_ptr<const Experiment>& experiment() const { return m_experiment; }

 private:
  std::shared_ptr<const Experiment> m_experiment;
  nlohmann::json m_config;
  std::string m_storePath;
  LiveRun m_live;
  nlohmann::json m_reference;
  std::optional<ResumePoint> m_resume;
  EventQueue m_queue;
  std::unique_ptr<store::StoreSink> m_storeSink;
  std::unique_ptr<FanOutSink> m_sinks;
  std::unique_ptr<Runner> m_runner;
  bool m_started = false;
};

}  // namespace fl::gui
