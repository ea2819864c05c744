#include "core/engine/system_usage.h"

#include <dlfcn.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <map>
#include <mutex>
#include <sstream>
#include <thread>

#include <c10/core/CachingDeviceAllocator.h>

#include "core/engine/cuda_devices.h"

namespace fl {

namespace {

constexpr double kMiB = 1024.0 * 1024.0;

std::atomic<int> g_runsTraining{0};
std::atomic<int64_t> g_gpuUsageQueries{0};

// NVML's few entry points we use, with their documented C signatures (nvml.h); 0 is
// NVML_SUCCESS. A device handle is an opaque pointer.
using NvmlDevice = struct NvmlDeviceOpaque*;
struct NvmlUtilization {
  unsigned int gpu;
  unsigned int memory;
};
struct NvmlMemory {
  unsigned long long total;
  unsigned long long free;
  unsigned long long used;
};

struct Nvml {
  int (*getCount)(unsigned int*) = nullptr;
  int (*byIndex)(unsigned int, NvmlDevice*) = nullptr;
  int (*byPciBusId)(const char*, NvmlDevice*) = nullptr;
  int (*utilization)(NvmlDevice, NvmlUtilization*) = nullptr;
  int (*memory)(NvmlDevice, NvmlMemory*) = nullptr;
  bool ok = false;

  std::mutex mutex;                   // guards handles: runs on several threads ask
  std::map<int, NvmlDevice> handles;  // by CUDA index; null: no device found for it
};

Nvml& nvml() {
  static Nvml* loaded = [] {
    auto* n = new Nvml;  // never freed: NVML stays initialised for the process
    void* lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib) return n;
    auto init = reinterpret_cast<int (*)()>(dlsym(lib, "nvmlInit_v2"));
    n->getCount = reinterpret_cast<decltype(n->getCount)>(dlsym(lib, "nvmlDeviceGetCount_v2"));
    n->byIndex =
        reinterpret_cast<decltype(n->byIndex)>(dlsym(lib, "nvmlDeviceGetHandleByIndex_v2"));
    n->byPciBusId =
        reinterpret_cast<decltype(n->byPciBusId)>(dlsym(lib, "nvmlDeviceGetHandleByPciBusId_v2"));
    n->utilization =
        reinterpret_cast<decltype(n->utilization)>(dlsym(lib, "nvmlDeviceGetUtilizationRates"));
    n->memory = reinterpret_cast<decltype(n->memory)>(dlsym(lib, "nvmlDeviceGetMemoryInfo"));
    n->ok = init && n->getCount && n->byIndex && n->utilization && n->memory && init() == 0;
    return n;
  }();
  return *loaded;
}

// The PCI bus id of the device CUDA calls `cudaIndex` in this process, as cudaDevices() read it
// from the driver's library.
std::optional<std::string> pciBusIdOf(int cudaIndex) {
  for (const auto& device : cudaDevices().devices)
    if (device.index == cudaIndex && !device.pciBusId.empty()) return device.pciBusId;
  return std::nullopt;
}

NvmlDevice nvmlDeviceFor(Nvml& n, int cudaIndex) {
  std::lock_guard<std::mutex> lock(n.mutex);
  auto it = n.handles.find(cudaIndex);
  if (it != n.handles.end()) return it->second;
  NvmlDevice handle = nullptr;
  const auto busId = pciBusIdOf(cudaIndex);
  if (busId && n.byPciBusId && n.byPciBusId(busId->c_str(), &handle) != 0) handle = nullptr;
  // Without the driver's answer, an index means the same device to both only when nothing
  // renumbers CUDA's devices and there is one to choose.
  unsigned int count = 0;
  if (!handle && !busId && !std::getenv("CUDA_VISIBLE_DEVICES") && n.getCount(&count) == 0 &&
      count == 1 && cudaIndex == 0 && n.byIndex(0, &handle) != 0)
    handle = nullptr;
  n.handles.emplace(cudaIndex, handle);
  return handle;
}

}  // namespace

std::optional<double> cpuPercent(const CpuTimes& before, const CpuTimes& after, int cores) {
  const double wall = after.wallSeconds - before.wallSeconds;
  const double cpu = after.cpuSeconds - before.cpuSeconds;
  if (!(wall > 0) || !(cpu >= 0)) return std::nullopt;  // NaN: a time that was not read
  return std::min(100.0 * cpu / wall, 100.0 * std::max(cores, 1));
}

std::optional<int64_t> parseStatmResidentPages(const std::string& text) {
  std::istringstream in(text);
  long long size = 0, resident = 0;
  if (!(in >> size >> resident) || size < 0 || resident < 0) return std::nullopt;
  return static_cast<int64_t>(resident);
}

CpuTimes processCpuTimes() {
  CpuTimes t;
  t.wallSeconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
  // The process CPU clock: the kernel's own sum over every thread, in nanoseconds. getrusage
  // gives the same sum split into user and system time by the tick's samples, in microseconds;
  // /proc/self/stat in clock ticks (10 ms), which is most of a short first interval.
  timespec cpu{};
  t.cpuSeconds = clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &cpu) == 0
                     ? static_cast<double>(cpu.tv_sec) + static_cast<double>(cpu.tv_nsec) * 1e-9
                     : std::numeric_limits<double>::quiet_NaN();
  return t;
}

std::optional<double> processResidentMiB() {
  std::ifstream file("/proc/self/statm");
  std::string line;
  if (!file || !std::getline(file, line)) return std::nullopt;
  const auto pages = parseStatmResidentPages(line);
  const long pageSize = sysconf(_SC_PAGESIZE);
  if (!pages || pageSize <= 0) return std::nullopt;
  return static_cast<double>(*pages) * static_cast<double>(pageSize) / kMiB;
}

GpuUsage gpuUsage(int cudaIndex) {
  GpuUsage out;
  Nvml& n = nvml();
  if (!n.ok || cudaIndex < 0) return out;
  NvmlDevice device = nvmlDeviceFor(n, cudaIndex);
  if (!device) return out;
  NvmlUtilization util{};
  if (n.utilization(device, &util) == 0) out.utilPercent = util.gpu;
  NvmlMemory memory{};
  if (n.memory(device, &memory) == 0) out.memUsedMiB = static_cast<double>(memory.used) / kMiB;
  return out;
}

bool gpuUsageReadable() {
  static const bool readable = [] {
    Nvml& n = nvml();
    unsigned int count = 0;
    return n.ok && n.getCount(&count) == 0 && count > 0;
  }();
  return readable;
}

std::optional<double> torchReservedMiB(int cudaIndex) {
  if (cudaIndex < 0) return std::nullopt;
  try {
    c10::DeviceAllocator* allocator = c10::getDeviceAllocator(c10::DeviceType::CUDA);
    if (!allocator->initialized()) return std::nullopt;
    const auto stats = allocator->getDeviceStats(static_cast<c10::DeviceIndex>(cudaIndex));
    const auto aggregate = static_cast<size_t>(c10::CachingAllocator::StatType::AGGREGATE);
    return static_cast<double>(stats.reserved_bytes[aggregate].current) / kMiB;
  } catch (const std::exception&) {  // a LibTorch without CUDA, a device it never used
    return std::nullopt;
  }
}

GpuUsage sharedGpuUsage(int cudaIndex, std::chrono::steady_clock::duration maxAge) {
  struct Answer {
    GpuUsage usage;
    std::chrono::steady_clock::time_point at;
  };
  static std::mutex mutex;
  static std::map<int, Answer> answers;
  std::lock_guard<std::mutex> lock(mutex);
  const auto now = std::chrono::steady_clock::now();
  auto it = answers.find(cudaIndex);
  if (it != answers.end() && now - it->second.at <= maxAge) return it->second.usage;
  ++g_gpuUsageQueries;
  answers[cudaIndex] = {gpuUsage(cudaIndex), now};
  return answers[cudaIndex].usage;
}

int64_t gpuUsageQueries() { return g_gpuUsageQueries.load(); }

int runsTrainingInProcess() { return g_runsTraining.load(); }

void SystemSampler::begin(const std::string& device) {
  end();
  m_cudaIndex = -1;
  if (device.rfind("cuda:", 0) == 0) {
    try {
      m_cudaIndex = std::stoi(device.substr(5));
    } catch (const std::exception&) {
      m_cudaIndex = -1;
    }
  }
  ++g_runsTraining;
  m_counted = true;
  m_sampled = false;
  m_previous = processCpuTimes();
}

void SystemSampler::end() {
  if (!m_counted) return;
  --g_runsTraining;
  m_counted = false;
}

bool SystemSampler::due(bool lastStep) const {
  if (!m_counted) return false;
  if (!m_sampled || lastStep || runsTrainingInProcess() != m_runsSampled) return true;
  return std::chrono::steady_clock::now() - m_lastSample >= kMinInterval;
}

std::vector<std::pair<std::string, double>> SystemSampler::sample(bool lastStep) {
  std::vector<std::pair<std::string, double>> out;
  const CpuTimes now = processCpuTimes();
  if (lastStep || now.wallSeconds - m_previous.wallSeconds >= kMinCpuIntervalSeconds) {
    static const int cores = static_cast<int>(std::thread::hardware_concurrency());
    if (auto percent = cpuPercent(m_previous, now, cores))
      out.emplace_back(kSystemCpuPercent, *percent);
    m_previous = now;
  }
  if (auto rss = processResidentMiB()) out.emplace_back(kSystemRssMib, *rss);
  m_runsSampled = runsTrainingInProcess();
  out.emplace_back(kSystemRunsInProcess, static_cast<double>(m_runsSampled));
  if (m_cudaIndex >= 0) {
    // Half the interval: every run on the device still sees figures of its own sampling period.
    const GpuUsage gpu = sharedGpuUsage(m_cudaIndex, kMinInterval / 2);
    if (gpu.utilPercent) out.emplace_back(kSystemGpuUtilPercent, *gpu.utilPercent);
    if (gpu.memUsedMiB) out.emplace_back(kSystemGpuMemMib, *gpu.memUsedMiB);
    if (auto reserved = torchReservedMiB(m_cudaIndex))
      out.emplace_back(kSystemGpuTorchReservedMib, *reserved);
  }
  m_sampled = true;
  m_lastSample = std::chrono::steady_clock::now();
  return out;
}

}  // namespace fl
