// Tests core/engine/device*: the device picker's list with and without CUDA, a device the
// machine lacks refused with the devices it has, and the label of a GPU.
#include <QtTest>

#include <caffe2/serialize/inline_container.h>
#include <torch/cuda.h>
#include <torch/torch.h>

#include "core/engine/captured_step.h"
#include "core/engine/cuda_devices.h"
#include "core/engine/device.h"
#include "experiments/fourier_head/toy_checkpoint.h"

using namespace fl;

namespace {

// Copies a checkpoint archive, rewriting the device its tensors were saved from ("cpu" in the
// pickled storage locations) to `device`: what a checkpoint written on a GPU holds. The
// writer adds its own version records, so the reader's are not copied.
void claimDevice(const std::string& from, const std::string& to, const std::string& device) {
  caffe2::serialize::PyTorchStreamReader reader(from);
  caffe2::serialize::PyTorchStreamWriter writer(to);
  // BINUNICODE: 'X', the length as 4 bytes little-endian, the UTF-8 text.
  auto pickled = [](const std::string& text) {
    std::string out = "X";
    for (int shift = 0; shift < 32; shift += 8) out += char((text.size() >> shift) & 0xff);
    return out + text;
  };
  const std::string cpu = pickled("cpu");
  const std::string claimed = pickled(device);
  int rewritten = 0;
  for (const auto& name : reader.getAllRecords()) {
    if (name == "version" || name == ".data/version" || name == ".data/serialization_id" ||
        name == "byteorder")
      continue;
    auto [data, size] = reader.getRecord(name);
    std::string bytes(static_cast<const char*>(data.get()), size);
    if (name == "data.pkl") {
      for (size_t at = bytes.find(cpu); at != std::string::npos; at = bytes.find(cpu, at)) {
        bytes.replace(at, cpu.size(), claimed);
        at += claimed.size();
        ++rewritten;
      }
    }
    writer.writeRecord(name, bytes.data(), bytes.size());
  }
  writer.writeEndOfFile();
  QVERIFY2(rewritten > 0, "no storage location found to rewrite");
}

}  // namespace

class TestDevice : public QObject {
  Q_OBJECT

 private slots:
  void aGpuIsLabelledByNameAndMemory() {
    // The H200 lent to these sessions: nvidia-smi's 143,771 MiB.
    QCOMPARE(describeCudaDevice({0, "NVIDIA H200", 143'771ull << 20}),
             std::string("cuda:0 \u2014 NVIDIA H200, 140 GiB"));
    QCOMPARE(describeCudaDevice({3, "", 0}), std::string("cuda:3"));
    QCOMPARE(describeCudaDevice({1, "", 24ull << 30}),
             std::string("cuda:1 \u2014 CUDA device, 24 GiB"));
  }

  void thePickerListsAutoCpuAndEveryCudaDevice() {
    const auto choices = deviceChoices();
    QVERIFY(choices.size() >= 3);
    QCOMPARE(choices[0].value, std::string("auto"));
    QCOMPARE(choices[1].value, std::string("cpu"));
    QVERIFY(choices[0].unavailableReason.empty() && choices[1].unavailableReason.empty());
    const auto& cuda = cudaDevices().devices;
    if (cuda.empty()) {
      // Without CUDA the choice is still there, greyed, saying why.
      QCOMPARE(choices.size(), size_t(3));
      QCOMPARE(choices[2].value, std::string("cuda"));
      QVERIFY2(choices[2].unavailableReason.find("no CUDA device") != std::string::npos,
               choices[2].unavailableReason.c_str());
      QVERIFY(choices[0].label.find("cpu") != std::string::npos);
      QVERIFY(!torch::cuda::is_available());
    } else {
      QCOMPARE(choices.size(), 2 + cuda.size());
      for (size_t i = 0; i < cuda.size(); ++i) {
        QCOMPARE(choices[2 + i].value, "cuda:" + std::to_string(i));
        QCOMPARE(choices[2 + i].label, describeCudaDevice(cuda[i]));
        QVERIFY(choices[2 + i].unavailableReason.empty());
      }
      QCOMPARE(static_cast<size_t>(torch::cuda::device_count()), cuda.size());
    }
  }

  void autoTakesTheFirstCudaDeviceWhenThereIsOne() {
    const auto resolved = resolveDevice("auto");
    if (cudaDevices().devices.empty()) {
      QVERIFY(resolved.device.is_cpu());
      QCOMPARE(resolved.name, std::string("cpu"));
    } else {
      QVERIFY(resolved.device.is_cuda());
      QCOMPARE(resolved.name, std::string("cuda:0"));
    }
  }

  void aDeviceTheMachineLacksIsRefusedNamingTheDevicesItHas() {
    const int count = static_cast<int>(cudaDevices().devices.size());
    const std::string missing = "cuda:" + std::to_string(count);
    try {
      resolveDevice(missing);
      QFAIL("a missing device was accepted");
    } catch (const std::runtime_error& e) {
      const std::string text = e.what();
      QVERIFY2(text.find("'" + missing + "'") != std::string::npos, e.what());
      QVERIFY2(text.find("this machine has: cpu") != std::string::npos, e.what());
      for (const auto& d : cudaDevices().devices)
        QVERIFY2(text.find(describeCudaDevice(d)) != std::string::npos, e.what());
    }
    if (count == 0) QVERIFY_THROWS_EXCEPTION(std::runtime_error, resolveDevice("cuda"));
  }

  // A checkpoint written on a GPU resumes on the CPU: the archive's tensors say "cuda:0", and
  // loading onto the CPU maps them there without asking CUDA for anything (this machine may
  // have none). The values come back exactly.
  void aCheckpointSavedOnTheGpuLoadsOntoTheCpu() {
    QTemporaryDir dir;
    fourier_head::ToyCheckpoint saved;
    torch::manual_seed(3);
    saved.optimizer = {torch::randn({37}), torch::randn({37}), torch::rand({37}), 12};
    saved.shuffleRng.seed(99);
    saved.permutation = torch::randperm(20);
    const std::string cpuPath = dir.filePath("cpu.pt").toStdString();
    const std::string gpuPath = dir.filePath("gpu.pt").toStdString();
    fourier_head::saveToyCheckpoint(saved, cpuPath);
    claimDevice(cpuPath, gpuPath, "cuda:0");

    const auto loaded = fourier_head::loadToyCheckpoint(gpuPath, torch::kCPU);
    QVERIFY(loaded.optimizer.parameters.device().is_cpu());
    QVERIFY(torch::equal(loaded.optimizer.parameters, saved.optimizer.parameters));
    QVERIFY(torch::equal(loaded.optimizer.firstMoment, saved.optimizer.firstMoment));
    QVERIFY(torch::equal(loaded.optimizer.secondMoment, saved.optimizer.secondMoment));
    QCOMPARE(loaded.optimizer.stepCount, int64_t(12));
    QVERIFY(torch::equal(loaded.permutation, saved.permutation));
    QVERIFY(loaded.shuffleRng == saved.shuffleRng);
    if (!torch::cuda::is_available()) return;
    // And the other way: the CPU's checkpoint onto the GPU.
    const auto onGpu = fourier_head::loadToyCheckpoint(cpuPath, torch::Device(torch::kCUDA, 0));
    QVERIFY(onGpu.optimizer.parameters.device().is_cuda());
    QVERIFY(torch::equal(onGpu.optimizer.parameters.cpu(), saved.optimizer.parameters));
  }

  // A step that cannot be a CUDA graph (on the CPU) runs as itself, once per run, and says why;
  // on a GPU it is recorded after its warm-ups and each replay does its work again.
  void aStepIsReplayedAsAGraphOnlyOnCuda() {
    auto counter = torch::zeros({1});
    {
      CapturedStep step(torch::kCPU);
      QVERIFY(!step.record([&] { counter.add_(1); }));
      QCOMPARE(counter.item<float>(), 0.0f);  // no warm-up runs where nothing is recorded
      for (int i = 0; i < 3; ++i) step.run();
      QCOMPARE(counter.item<float>(), 3.0f);
      QVERIFY(!step.isGraph());
      QCOMPARE(step.reason(), std::string("runs on cpu, not CUDA"));
    }
    if (!torch::cuda::is_available()) return;
    const torch::Device gpu(torch::kCUDA, 0);
    CapturedStep step(gpu);
    auto onGpu = torch::zeros({1}, torch::TensorOptions().device(gpu));
    const bool graph = step.record([&] { onGpu.add_(1); }, /*warmUps=*/2);
    // A build without the CUDA runtime's headers has no graphs; any other refusal is a failure.
    QVERIFY2(graph || step.reason().rfind("built without", 0) == 0, step.reason().c_str());
    for (int i = 0; i < 3; ++i) step.run();
    QCOMPARE(onGpu.item<float>(), graph ? 5.0f : 3.0f);  // two warm-ups, then three replays
  }
};

QTEST_APPLESS_MAIN(TestDevice)
#include "test_device.moc"
