// Events: what a Runner reports, as plain C++ values (no torch, no Qt), so that the run store,
// the GUI's view model and the CLI's console all consume the same stream.
//
// Steps count completed optimisation steps (the first step reported is 1). Wall times are
// seconds since the run started.
#pragma once

#include <cstdint>
#include <string>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/engine/verdict.h"

namespace fl {

enum class RunStatus { Queued, Running, Finished, Cancelled, Failed, Interrupted };

std::string toString(RunStatus status);
bool isTerminal(RunStatus status);  // finished, cancelled, failed, interrupted

struct MetricEvent {
  std::string key;  // "train/loss", "test/kl", ...
  int64_t step = 0;
  double wallSeconds = 0;
  double value = 0;
};

// One labelled axis of a snapshot. `ticks`, when given, holds the coordinate of each index
// (e.g. the bin centres), so a plot needs nothing else to draw the array.
struct SnapshotAxis {
  std::string label;
  std::string unit;
  std::vector<float> ticks;
};

// What a snapshot is to a reader, declared by the experiment so that widgets never guess from
// its name: a prediction of the model (drawn in the run's colour and overlaid in comparisons),
// the truth it is measured against (drawn once, neutral), or any other series.
enum class SnapshotRole { Series, Truth, Prediction };

std::string toString(SnapshotRole role);                  // "series", "truth", "prediction"
SnapshotRole parseSnapshotRole(const std::string& text);  // unknown text: Series

// What the run store keeps of a snapshot, declared by the experiment: every step (a series a
// heatmap draws over training), only the latest step (a panel that shows the latest, such as
// the learned PDF: a run's store would otherwise grow by megabytes of curves nobody reads back),
// or nothing, when the experiment rebuilds it for a reader from the run's config and a stored
// snapshot (Experiment::rebuiltSnapshots: the toy's true densities). Live events carry all.
enum class SnapshotKeep { EveryStep, LatestStep, NotStored };

// A named array at one step: `pdf/pred` (test input x bin), `spectrum/abs_c` (frequency), ...
// Row-major float32, shape.size() == axes.size().
struct Snapshot {
  std::string name;
  SnapshotRole role = SnapshotRole::Series;
  SnapshotKeep keep = SnapshotKeep::EveryStep;
  std::vector<int64_t> shape;
  std::vector<float> data;
  std::vector<SnapshotAxis> axes;
  std::string valueLabel;  // what a value means: "probability", "density", "|c_k|"
  nlohmann::json meta = nlohmann::json::object();  // e.g. the inputs each row belongs to

  int64_t numel() const;
};

struct SnapshotEvent {
  int64_t step = 0;
  double wallSeconds = 0;
  Snapshot snapshot;
  int64_t requestId = 0;  // non-zero when it answers a probe request
};

struct ProgressEvent {
  int64_t step = 0;
  int64_t totalSteps = 0;
  int64_t epoch = 0;  // completed epochs
  int64_t totalEpochs = 0;
  double wallSeconds = 0;
  double lastLoss = 0;     // mean training loss over the last logging interval
  bool evaluated = false;  // an evaluation's metrics and snapshots precede this event
};

// A checkpoint file was written (or, when `removed`, dropped by the keep policy: the run store
// deletes the file once it has committed the removal, so a crash never leaves a row pointing
// at a deleted file).
struct CheckpointEvent {
  int64_t step = 0;
  std::string path;
  bool removed = false;
};

struct StatusEvent {
  RunStatus status = RunStatus::Queued;
  std::string message;  // why a run failed, which device `auto` chose, ...
  std::string device;   // "cpu", "cuda:0" once known
  int64_t step = 0;
  double wallSeconds = 0;
  // A finished run's verdicts (the experiment's judgement, the comparison with the paper);
  // `message` says the same in words for people.
  std::vector<Verdict> verdicts;
  // How many runs trained in one batch with it, itself included, on a Running status: 1 alone,
  // 4 in a batched group of 4 (whose products add in another order: the same config and seed
  // can end elsewhere than alone); 0 where the sender does not say.
  int batchSize = 0;
  // A failed run that failed writing a file (a checkpoint onto a full disk, a read-only folder):
  // the message names the file and the reason; the CLI exits with its store-error code.
  bool fileWriteFailed = false;
};

enum class LogLevel { Info, Warning, Error };

struct LogEvent {
  LogLevel level = LogLevel::Info;
  std::string text;
  double wallSeconds = 0;
};

using Event =
    std::variant<MetricEvent, SnapshotEvent, ProgressEvent, StatusEvent, LogEvent, CheckpointEvent>;

// Consumes events. Called on the Runner's thread: implementations must be quick and thread-safe
// (queue the event and return) so that a step never waits on a consumer.
class EventSink {
 public:
  virtual ~EventSink() = default;
  virtual void onEvent(const Event& event) = 0;
};

}  // namespace fl
