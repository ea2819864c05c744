// CapturedStep: a step of device work, recorded once as a CUDA graph and then replayed, so
// that a step of a small model costs one graph launch instead of a hundred kernel launches and
// the autograd engine's bookkeeping on the host (a toy model's step is otherwise bound by the
// host, not the GPU). The step must read and write only tensors that exist before it is
// recorded (its outputs are written into them in place) and must not wait for the device.
//
// On CUDA the object also owns a stream of its own (no other step's) and makes it the calling
// thread's current stream for its lifetime, so everything the thread does on the device afterwards
// (uploads, reading a loss, copying state back) is ordered after the steps without a device-wide
// wait. Create and destroy it on the same thread. Where no graph can be made (the CPU, a build
// without the CUDA runtime's headers, a capture CUDA refused, FOURIERLAB_CUDA_GRAPHS=0 in the
// environment to compare with eager steps) run() calls the step itself and reason() says why.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include <c10/core/Device.h>

namespace fl {

class CapturedStep {
 public:
  explicit CapturedStep(c10::Device device);
  ~CapturedStep();
  CapturedStep(const CapturedStep&) = delete;
  CapturedStep& operator=(const CapturedStep&) = delete;

  // Sets the step and, on CUDA, records it: `warmUps` eager runs first (CUDA graphs need
  // cuBLAS and the autograd engine initialised on the stream), whose effects the caller undoes.
  // True when run() replays a graph. Called again, it records the step anew (what the former
  // graph read has moved), into the former graph's memory. One capture at a time in the
  // process: other threads' steps wait while one records.
  bool record(std::function<void()> step, int warmUps = 2);
  void run();

  bool isGraph() const;
  // Whether this build can make CUDA graphs at all (it found the CUDA runtime's headers).
  static bool graphsBuiltIn();
  // True where recording again cannot give a graph either: CUDA refused the capture, or the
  // environment turned graphs off (on the CPU a record is free and changes nothing).
  bool refused() const { return m_refused; }
  const std::string& reason() const { return m_reason; }

 private:
  struct Cuda;
  std::unique_ptr<Cuda> m_cuda;  // null on the CPU
  std::function<void()> m_step;
  std::string m_reason;
  bool m_refused = false;
};

}  // namespace fl
