#include "core/engine/captured_step.h"

#include <cstdlib>
#include <mutex>
#include <optional>
#include <stdexcept>

#ifdef FOURIERLAB_CUDA_GRAPHS
#include <ATen/cuda/CUDAGraph.h>
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>
#endif

namespace fl {

#ifdef FOURIERLAB_CUDA_GRAPHS

namespace {

// The pool's streams do not wait for the default stream: work the thread queued before (a
// model's parameters copied into an optimiser's buffer, a checkpoint loaded) finishes before
// anything runs on the new stream.
c10::cuda::CUDAStream afterQueuedWork(c10::Device device) {
  c10::cuda::getCurrentCUDAStream(device.index()).synchronize();
  return c10::cuda::getStreamFromPool(/*isHighPriority=*/false, device.index());
}

}  // namespace

struct CapturedStep::Cuda {
  explicit Cuda(c10::Device device) : stream(afterQueuedWork(device)), current(stream) {}
  // Work still queued on the stream finishes before the thread's stream is restored: a loss
  // read afterwards, on another stream, then reads what the steps wrote.
  ~Cuda() { stream.synchronize(); }
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
  if (const char* graphs = std::getenv("FOURIERLAB_CUDA_GRAPHS");
      graphs && graphs == std::string("0")) {
    m_reason = "CUDA graphs turned off (FOURIERLAB_CUDA_GRAPHS=0)";
    m_refused = true;
    return false;
  }
  for (int i = 0; i < warmUps; ++i) m_step();
  m_cuda->stream.synchronize();
  // One capture at a time in the process, each in thread-local mode: other threads' groups go
  // on allocating and copying while this one records.
  static std::mutex capturing;
  std::lock_guard<std::mutex> lock(capturing);
  auto graph = std::make_unique<at::cuda::CUDAGraph>();
  try {
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
    return false;
  }
  m_cuda->graph = std::move(graph);
  return true;
}

void CapturedStep::run() {
  if (m_cuda && m_cuda->graph)
    m_cuda->graph->replay();
  else
    m_step();
}

bool CapturedStep::isGraph() const { return m_cuda && m_cuda->graph; }

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

#endif

CapturedStep::~CapturedStep() = default;

}  // namespace fl
