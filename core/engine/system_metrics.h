// What a run records of the machine it trains on, beside its own metrics: the process's CPU use
// and resident memory, and for a run on a GPU that device's utilisation and memory, as ordinary
// metric series under "system/" (so the store, exports, `runs show` and comparisons carry them
// as they carry the loss), and the dashboard panels that draw them for every experiment.
//
// The figures are the process's, not the run's: runs trained in one process (the window's
// parallel runs, a batched group in one thread) read the same process and say so through
// "system/runs_in_process". GPU figures are the whole device's (every process on it), except
// the caching allocator's, which is this process's on that device. Torch-free, so the widgets'
// side of the window may include it.
#pragma once

#include <string>
#include <vector>

#include "core/engine/panel_spec.h"

namespace fl {

inline constexpr const char* kSystemPrefix = "system/";
// Percent of one core: 100 is one core busy for the whole interval, 200 two.
inline constexpr const char* kSystemCpuPercent = "system/cpu_percent";
inline constexpr const char* kSystemRssMib = "system/rss_mib";  // resident set, MiB
// Runs training in this process when the sample was taken: above 1, the CPU and memory
// figures were shared with the others.
inline constexpr const char* kSystemRunsInProcess = "system/runs_in_process";
inline constexpr const char* kSystemGpuUtilPercent = "system/gpu_util_percent";  // NVML, device
inline constexpr const char* kSystemGpuMemMib = "system/gpu_mem_mib";  // NVML: device, used MiB
// Held by LibTorch's caching allocator of this process on the run's device (MiB): the part of
// the device's memory this process has taken.
inline constexpr const char* kSystemGpuTorchReservedMib = "system/gpu_torch_reserved_mib";

// A "system/" key: not a result of the run, and not deterministic (it depends on when the
// sample was taken and on whatever else the machine was doing).
bool isSystemMetric(const std::string& key);

// The dashboard's panels for the system series, the same for every experiment: CPU, memory
// and how many runs shared the process; with `gpu`, the GPU's utilisation and memory too
// (where no GPU can be read, empty GPU plots would only take room).
std::vector<PanelSpec> systemPanels(bool gpu);

// An experiment's panels followed by the system panels.
std::vector<PanelSpec> withSystemPanels(std::vector<PanelSpec> panels, bool gpu);

}  // namespace fl
