#include "core/engine/captured_step.h"

#include <cstdlib>
#include <map>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <stdexcept>
#include <vector>

#ifdef FOURIERLAB_CUDA_GRAPHS
#include <ATen/cuda/CUDAGraph.h>
#include <c10/cuda/CUDAException.h>
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>
#endif

namespace fl {

#ifdef FOURIERLAB_CUDA_GRAPHS

namespace {

// A capture records whatever reaches its stream, from any thread, and (before per-capture
// generator state) no other thread may draw from the device's default generator while one
// captures: captures take this exclusively, every step and warm-up shares it.
std::shared_mutex& captureLock() {
  static std::shared_mutex lock;
  return lock;
}

// A failed capture can leave the allocator and the generator in capture mode (CUDA ends the
// capture before LibTorch tidies up): no further capture is tried in this process.
std::mutex failureLock;
std::string failure;  // empty while no capture failed

std::string earlierFailure() {
  std::lock_guard<std::mutex> lock(failureLock);
  return failure;
}

// Streams of the process's own, one per live step, lent and given back: the pool's streams
// are shared round-robin by every thread, so two runs could hold the same one and one run's
// capture would swallow the other's work. Never destroyed, so no handle is ever reused while
// the allocator still knows it.
class StreamLender {
 public:
  static StreamLender& instance() {
    static StreamLender lender;
    return lender;
  }
  cudaStream_t borrow(c10::DeviceIndex device) {
    {
      std::lock_guard<std::mutex> lock(m_lock);
      auto& free = m_free[device];
      if (!free.empty()) {
        const cudaStream_t stream = free.back();
        free.pop_back();
        return stream;
      }
    }
    c10::cuda::CUDAGuard onDevice(device);
    cudaStream_t stream = nullptr;
    C10_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    return stream;
  }
  void giveBack(c10::DeviceIndex device, cudaStream_t stream) {
    std::lock_guard<std::mutex> lock(m_lock);
    m_free[device].push_back(stream);
  }

 private:
  std::mutex m_lock;
  std::map<c10::DeviceIndex, std::vector<cudaStream_t>> m_free;
};

// A borrowed stream, given back when the step goes (its work done: ~Cuda waits for it).
struct LentStream {
  explicit LentStream(c10::Device device)
      : device(device.index()), raw(StreamLender::instance().borrow(device.index())) {}
  ~LentStream() { StreamLender::instance().giveBack(device, raw); }
  c10::DeviceIndex device;
  cudaStream_t raw;
};

// A new stream does not wait for the thread's current one: work queued there before (a
// model's parameters copied into an optimiser's buffer, a checkpoint loaded) finishes first.
c10::cuda::CUDAStream afterQueuedWork(const LentStream& lent) {
  c10::cuda::getCurrentCUDAStream(lent.device).synchronize();
  return c10::cuda::getStreamFromExternal(lent.raw, lent.device);
}

}  // namespace

struct CapturedStep::Cuda {
  explicit Cuda(c10::Device device)
      : lent(device), stream(afterQueuedWork(lent)), current(stream) {}
  // Work still queued on the stream finishes before the graph goes, the thread's stream is
  // restored and the stream is lent again.
  ~Cuda() {
    stream.synchronize();
    graph.reset();
  }
  LentStream lent;  // declared first: given back last
  c10::cuda::CUDAStream stream;
  c10::cuda::CUDAStreamGuard current;  // the thread's current stream until destruction
  std::unique_ptr<at::cuda::CUDAGraph> graph;
};

CapturedStep::CapturedStep(c10::Device device) {
  if (device.is_cuda())
    m_cuda = std::make_unique<Cuda>(device);
  else
    m_reason = "runs on " + device.str() + ", not CUDA";
}

bool CapturedStep::record(std::function<void()> step, int warmUps) {
  m_step = std::move(step);
  if (!m_cuda) return false;
  // The former graph (what it read has moved) lives until the new one is recorded, into the
  // same memory pool: a step recorded again reuses that memory rather than holding a second pool
  // until the allocator's cache is emptied.
  auto previous = std::move(m_cuda->graph);
  if (const char* graphs = std::getenv("FOURIERLAB_CUDA_GRAPHS");
      graphs && graphs == std::string("0")) {
    m_reason = "CUDA graphs turned off (FOURIERLAB_CUDA_GRAPHS=0)";
    m_refused = true;
    return false;
  }
  if (const auto earlier = earlierFailure(); !earlier.empty()) {
    m_reason = "an earlier CUDA graph capture in this process failed (" + earlier + ")";
    m_refused = true;
    return false;
  }
  {
    std::shared_lock<std::shared_mutex> shared(captureLock());
    for (int i = 0; i < warmUps; ++i) m_step();
  }
  m_cuda->stream.synchronize();
  std::unique_lock<std::shared_mutex> exclusive(captureLock());
  auto graph = std::make_unique<at::cuda::CUDAGraph>();
  try {
    if (previous)
      graph->capture_begin(previous->pool(), cudaStreamCaptureModeThreadLocal);
    else
      graph->capture_begin({0, 0}, cudaStreamCaptureModeThreadLocal);
    try {
      m_step();
    } catch (...) {
      try {
        graph->capture_end();
      } catch (...) {
      }
      throw;
    }
    graph->capture_end();
  } catch (const std::exception& e) {
    m_reason = std::string("CUDA graph capture failed: ") + e.what();
    m_refused = true;
    std::lock_guard<std::mutex> lock(failureLock);
    if (failure.empty()) failure = e.what();
    return false;
  }
  m_cuda->graph = std::move(graph);
  return true;
}

void CapturedStep::run() {
  if (!m_cuda) return m_step();
  std::shared_lock<std::shared_mutex> shared(captureLock());
  if (m_cuda->graph)
    m_cuda->graph->replay();
  else
    m_step();
}

bool CapturedStep::isGraph() const { return m_cuda && m_cuda->graph; }

bool CapturedStep::graphsBuiltIn() { return true; }

#else  // built without the CUDA runtime's headers: every step runs eagerly

struct CapturedStep::Cuda {};

CapturedStep::CapturedStep(c10::Device device) {
  m_reason = device.is_cuda() ? "built without the CUDA runtime's headers: no CUDA graphs"
                              : "runs on " + device.str() + ", not CUDA";
}

bool CapturedStep::record(std::function<void()> step, int) {
  m_step = std::move(step);
  return false;
}

void CapturedStep::run() { m_step(); }

bool CapturedStep::isGraph() const { return false; }

bool CapturedStep::graphsBuiltIn() { return false; }

#endif

CapturedStep::~CapturedStep() = default;

}  // namespace fl
