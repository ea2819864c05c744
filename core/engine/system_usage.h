// Reading the machine for a run's "system/" series (core/engine/system_metrics.h): the process's
// CPU time (its CPU clock: every thread, nanoseconds) and resident memory (/proc/self/statm), made
// into CPU percent and MiB between successive samples; and, for a run on cuda:N, that GPU's
// utilisation and memory from NVML, loaded at run time (dlopen "libnvidia-ml.so.1", as
// cuda_devices.cpp loads the driver), so nothing links against it and a machine without an
// NVIDIA driver simply has no GPU figures; plus what LibTorch's caching allocator of this
// process holds on the device. A figure that cannot be read is absent, never a zero.
//
//   SystemSampler sampler;  sampler.begin("cuda:0");       // counted as training from here
//   each step: if (sampler.due(isLastStep)) for (auto& [key, value] : sampler.sample()) emit;
//   sampler.end();                                          // no longer training
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/engine/system_metrics.h"

namespace fl {

// The process's CPU time (NaN where it could not be read) and a wall clock at one instant, both
// in seconds.
struct CpuTimes {
  double cpuSeconds = 0;
  double wallSeconds = 0;
};

// CPU time used over wall time between two instants, in percent of one core (two cores busy
// read 200), at most `cores` x 100: over a short interval the process clock, which adds what
// threads running on other cores have used up to their last scheduler tick, can say more than
// the cores can give. None when no wall time passed or the CPU time went back (not the same
// process).
std::optional<double> cpuPercent(const CpuTimes& before, const CpuTimes& after, int cores);

// The resident pages in /proc/<pid>/statm's text ("size resident shared text lib data dt"):
// its second field. None for text that is not that.
std::optional<int64_t> parseStatmResidentPages(const std::string& text);

// This process now: user + system CPU time of all its threads, and the steady clock.
CpuTimes processCpuTimes();
// This process's resident memory in MiB; none where /proc/self/statm cannot be read.
std::optional<double> processResidentMiB();

struct GpuUsage {
  std::optional<double> utilPercent;  // share of the last sample period a kernel ran
  std::optional<double> memUsedMiB;   // in use on the device, every process's
};
// NVML's figures for the CUDA device this process calls `cudaIndex` (found by its PCI bus id,
// since NVML numbers devices its own way and ignores CUDA_VISIBLE_DEVICES); empty where NVML,
// the driver or the device does not answer.
GpuUsage gpuUsage(int cudaIndex);
// gpuUsage(cudaIndex) as asked at most `maxAge` ago by any run of this process, or asked now:
// the figures are the device's, the same for every run on it, and one NVML query costs
// milliseconds (a group of 240 runs, each sampling once a second, spent most of its thread on
// them). Thread-safe.
GpuUsage sharedGpuUsage(int cudaIndex, std::chrono::steady_clock::duration maxAge);
// How many times sharedGpuUsage has asked NVML in this process.
int64_t gpuUsageQueries();
// NVML loads and sees at least one GPU: worth showing GPU panels. Asked once per process.
bool gpuUsageReadable();
// What LibTorch's CUDA caching allocator holds on `cudaIndex` (reserved: in use or cached), in
// MiB; none where this LibTorch has no CUDA allocator or it has not touched the device.
std::optional<double> torchReservedMiB(int cudaIndex);

// How many runs are training in this process now (each between SystemSampler::begin and end).
int runsTrainingInProcess();

// One run's samples. Not thread-safe: used by the thread that trains the run.
class SystemSampler {
 public:
  SystemSampler() = default;
  SystemSampler(const SystemSampler&) = delete;
  SystemSampler& operator=(const SystemSampler&) = delete;
  ~SystemSampler() { end(); }

  // The run (on device "cpu" or "cuda:N") starts training: the first CPU interval starts here
  // and the run counts in runsTrainingInProcess() until end().
  void begin(const std::string& device);
  void end();
  // A sample is due at the first step after begin, at the run's last step, when the number of
  // runs training in the process has changed since the previous one (drawn as held from sample
  // to sample, a comparison's second arm read as starting a second after it did), and otherwise
  // once kMinInterval has passed: often enough to follow a run, too rarely for reading /proc and
  // NVML to cost its steps anything.
  bool due(bool lastStep) const;
  // Reads every figure there is now: keys and values, in a fixed order. The CPU share is
  // given over at least kMinCpuInterval (since the share last given, or begin), except at the
  // run's last step: the first sample, at the first step, came 13 ms after begin and read 317%
  // on two cores, most of it the process clock's lag.
  std::vector<std::pair<std::string, double>> sample(bool lastStep = false);

  static constexpr std::chrono::milliseconds kMinInterval{1000};
  static constexpr double kMinCpuIntervalSeconds = 0.5;

 private:
  bool m_counted = false;
  bool m_sampled = false;
  int m_runsSampled = 0;  // runsTrainingInProcess() at the previous sample
  int m_cudaIndex = -1;   // -1: not on a GPU
  CpuTimes m_previous;
  std::chrono::steady_clock::time_point m_lastSample;
};

}  // namespace fl
