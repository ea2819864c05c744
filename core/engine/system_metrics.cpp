#include "core/engine/system_metrics.h"

namespace fl {

namespace {

constexpr const char* kShared =
    " Runs training in one process (the window's parallel runs, a batched group) read the same "
    "process, so they show the same figure: 'Runs in process' says when that was so. In the "
    "window the process is the window too: its drawing counts.";

PanelSpec curve(std::string id, std::string title, std::vector<std::string> series,
                std::string yLabel, std::string help) {
  PanelSpec p;
  p.id = std::move(id);
  p.title = std::move(title);
  p.kind = PanelKind::MetricLines;
  p.series = std::move(series);
  p.xLabel = "step";
  p.yLabel = std::move(yLabel);
  p.help = std::move(help);
  p.yFloor = 0;  // none of these can be negative: an idle stretch reads as 0, not mid-axis
  return p;
}

}  // namespace

bool isSystemMetric(const std::string& key) { return key.rfind(kSystemPrefix, 0) == 0; }

std::vector<PanelSpec> systemPanels(bool gpu) {
  std::vector<PanelSpec> panels = {
      curve("system_cpu", "CPU (process, % of one core)", {kSystemCpuPercent}, "% of one core",
            std::string("CPU time the training process used over the wall time since the "
                        "previous sample, sampled at most once a second: 100 is one core busy, "
                        "200 two.") +
                kShared),
      curve("system_memory", "Memory (process, MiB)", {kSystemRssMib}, "resident MiB",
            std::string("The training process's resident memory (RAM it holds, not what it "
                        "reserved).") +
                kShared),
      curve("system_runs", "Runs in process", {kSystemRunsInProcess}, "runs training",
            "How many runs were training in this run's process at each sample: above 1, the "
            "process's CPU, memory and GPU figures were shared with the others and are not "
            "this run's alone."),
  };
  panels.back().stepwise = true;
  if (gpu) {
    panels.push_back(curve("system_gpu_util", "GPU utilisation (whole device, %)",
                           {kSystemGpuUtilPercent}, "% of the time busy",
                           "NVML's utilisation of the run's GPU: the share of the last sample "
                           "period in which a kernel ran on it, from any process on the "
                           "device. Only a run on a GPU records it."));
    panels.back().yCeiling = 100;
    panels.push_back(curve(
        "system_gpu_memory", "GPU memory (MiB)", {kSystemGpuMemMib, kSystemGpuTorchReservedMib},
        "MiB",
        "gpu_mem_mib: memory in use on the run's GPU by every process (NVML); "
        "gpu_torch_reserved_mib: what LibTorch's caching allocator of this process holds there "
        "(in use or cached for reuse). Only a run on a GPU records them."));
  }
  return panels;
}

std::vector<PanelSpec> withSystemPanels(std::vector<PanelSpec> panels, bool gpu) {
  for (auto& p : systemPanels(gpu)) panels.push_back(std::move(p));
  return panels;
}

}  // namespace fl
