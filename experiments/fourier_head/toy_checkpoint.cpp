#include "experiments/fourier_head/toy_checkpoint.h"

#include <stdexcept>

#include <torch/torch.h>

#include "core/optim/checkpoint_file.h"
#include "core/optim/flat_adam_checkpoint.h"

namespace fl::fourier_head {

void saveToyCheckpoint(const ToyCheckpoint& checkpoint, const std::string& path) {
  torch::serialize::OutputArchive archive;
  optim::writeOptimizerState(archive, checkpoint.optimizer);
  // The data order: this epoch's permutation and the shuffle stream's state.
  optim::writeStreamState(archive, "shuffle.rng", checkpoint.shuffleRng);
  if (checkpoint.permutation.defined())
    archive.write("shuffle.permutation", checkpoint.permutation);
  optim::saveArchive(archive, path);
}

ToyCheckpoint loadToyCheckpoint(const std::string& path, c10::Device device) {
  torch::serialize::InputArchive archive;
  optim::loadArchive(archive, path, device);
  ToyCheckpoint checkpoint;
  checkpoint.optimizer = optim::readOptimizerState(archive);
  optim::readStreamState(archive, "shuffle.rng", checkpoint.shuffleRng);
  torch::Tensor permutation;
  if (archive.try_read("shuffle.permutation", permutation)) {
    // A batched group indexes its training rows with these values unchecked: they must be
    // 0..n-1, each once, as drawEpochOrder made them.
    optim::checkLoadedTensor(permutation, "shuffle.permutation");
    const auto cpu = permutation.to(torch::kCPU);
    if (cpu.dim() != 1 || cpu.scalar_type() != torch::kLong ||
        !torch::equal(std::get<0>(cpu.sort()), torch::arange(cpu.numel(), torch::kLong)))
      throw std::runtime_error(
          "checkpoint entry 'shuffle.permutation' is damaged: not an order of the training set");
    checkpoint.permutation = permutation.to(device);
  }
  return checkpoint;
}

}  // namespace fl::fourier_head
