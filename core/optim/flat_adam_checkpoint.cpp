#include "core/optim/flat_adam_checkpoint.h"

#include <sstream>

#include <torch/torch.h>

#include "core/engine/atomic_file.h"

namespace fl::optim {

void writeOptimizerState(torch::serialize::OutputArchive& archive, const FlatAdam& optimizer) {
  writeOptimizerState(archive, optimizer.state());
}

void readOptimizerState(torch::serialize::InputArchive& archive, FlatAdam& optimizer) {
  optimizer.loadState(readOptimizerState(archive));
}

void writeOptimizerState(torch::serialize::OutputArchive& archive, const FlatAdam::State& state) {
  archive.write("parameters", state.parameters);  // every model parameter, flat
  archive.write("adam.first_moment", state.firstMoment);
  archive.write("adam.second_moment", state.secondMoment);
  archive.write("adam.step", torch::tensor(state.stepCount, torch::kLong));
}

FlatAdam::State readOptimizerState(torch::serialize::InputArchive& archive) {
  FlatAdam::State state;
  torch::Tensor step;
  archive.read("parameters", state.parameters);
  archive.read("adam.first_moment", state.firstMoment);
  archive.read("adam.second_moment", state.secondMoment);
  archive.read("adam.step", step);
  state.stepCount = step.item<int64_t>();
  return state;
}

void writeStreamState(torch::serialize::OutputArchive& archive, const std::string& key,
                      const std::mt19937_64& stream) {
  std::ostringstream text;
  text << stream;
  archive.write(key, c10::IValue(text.str()));
}

void readStreamState(torch::serialize::InputArchive& archive, const std::string& key,
                     std::mt19937_64& stream) {
  c10::IValue text;
  archive.read(key, text);
  std::istringstream in(text.toStringRef());
  in >> stream;
}

void writeGeneratorState(torch::serialize::OutputArchive& archive, const std::string& key,
                         const at::Generator& generator) {
  archive.write(key, generator.get_state());
}

void readGeneratorState(torch::serialize::InputArchive& archive, const std::string& key,
                        at::Generator& generator) {
  torch::Tensor state;
  // Archives load onto the trial's device; a CPU generator takes its state on the CPU.
  if (archive.try_read(key, state)) generator.set_state(state.to(torch::kCPU));
}

void saveArchive(torch::serialize::OutputArchive& archive, const std::string& path) {
  AtomicFile file(path, AtomicFile::TemporaryName::Fixed);
  // Always "all written": the zip writer never sees a failure (see the header); AtomicFile
  // keeps the first one and commit() reports it.
  archive.save_to([&file](const void* data, size_t size) -> size_t {
    file.write(data, size);
    return size;
  });
  file.commit();
}

}  // namespace fl::optim
