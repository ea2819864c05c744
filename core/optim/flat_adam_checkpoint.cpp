#include "core/optim/flat_adam_checkpoint.h"

#include <sstream>
#include <stdexcept>

#include <ATen/EmptyTensor.h>
#include <torch/torch.h>

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

void checkLoadedTensor(const torch::Tensor& tensor, const std::string& key) {
  const auto damaged = [&](const std::string& why) {
    return std::runtime_error("checkpoint entry '" + key + "' is damaged: " + why);
  };
  if (!tensor.defined()) throw damaged("it holds no tensor");
  if (tensor.layout() != torch::kStrided || tensor.is_quantized())
    throw damaged("it is not a dense tensor");
  if (tensor.storage_offset() < 0) throw damaged("a negative storage offset");
  for (const int64_t size : tensor.sizes())
    if (size < 0) throw damaged("a negative size");
  for (const int64_t stride : tensor.strides())
    if (stride < 0) throw damaged("a negative stride");
  // Throws c10::Error itself when the sizes overflow.
  const size_t needed =
      at::detail::computeStorageNbytes(tensor.sizes(), tensor.strides(), tensor.dtype().itemsize(),
                                       static_cast<size_t>(tensor.storage_offset()));
  const size_t held = tensor.storage().nbytes();
  if (tensor.numel() > 0 && needed > held)
    throw damaged("its shape needs " + std::to_string(needed) + " bytes, its storage holds " +
                  std::to_string(held));
}

FlatAdam::State readOptimizerState(torch::serialize::InputArchive& archive) {
  FlatAdam::State state;
  torch::Tensor step;
  archive.read("parameters", state.parameters);
  archive.read("adam.first_moment", state.firstMoment);
  archive.read("adam.second_moment", state.secondMoment);
  archive.read("adam.step", step);
  checkLoadedTensor(state.parameters, "parameters");
  checkLoadedTensor(state.firstMoment, "adam.first_moment");
  checkLoadedTensor(state.secondMoment, "adam.second_moment");
  checkLoadedTensor(step, "adam.step");
  state.stepCount = step.item<int64_t>();
  if (state.stepCount < 0)
    throw std::runtime_error("checkpoint entry 'adam.step' is damaged: a negative step count");
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
  std::mt19937_64 read;
  // A failed read would leave a half-overwritten state: the run would resume on another order.
  if (!(in >> read))
    throw std::runtime_error("checkpoint entry '" + key +
                             "' is damaged: not a random stream's state");
  stream = read;
}

void writeGeneratorState(torch::serialize::OutputArchive& archive, const std::string& key,
                         const at::Generator& generator) {
  archive.write(key, generator.get_state());
}

void readGeneratorState(torch::serialize::InputArchive& archive, const std::string& key,
                        at::Generator& generator) {
  torch::Tensor state;
  // Archives load onto the trial's device; a CPU generator takes its state on the CPU.
  if (!archive.try_read(key, state)) return;
  checkLoadedTensor(state, key);
  generator.set_state(state.to(torch::kCPU));
}

}  // namespace fl::optim
