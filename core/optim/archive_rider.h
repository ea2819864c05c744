// Entries of a run's own bookkeeping that ride along in whatever checkpoint its trial writes.
// The trial knows its model and optimizer; the run's reporter knows what it has not logged yet
// (the training losses since the last logged mean). Without them a run resumed mid-interval
// logged the mean of the steps after the resume alone, a value the uninterrupted run never had.
//
//   { optim::ArchiveRider rider({{"run.loss", t}});  trial.saveCheckpoint(path); }
//   trial.loadCheckpoint(path);  auto t = optim::riddenEntry(path, "run.loss");
//
// Like LibTorch's NoGradGuard the rider holds for this thread while it lives: every archive
// saveArchive writes here meanwhile holds its entries, whichever trial writes it.
#pragma once

#include <map>
#include <optional>
#include <string>

#include <torch/serialize/input-archive.h>
#include <torch/serialize/output-archive.h>

namespace fl::optim {

class ArchiveRider {
 public:
  // Keys start with "rider." (added where missing), apart from every trial's own entries.
  explicit ArchiveRider(const std::map<std::string, torch::Tensor>& entries);
  ~ArchiveRider();
  ArchiveRider(const ArchiveRider&) = delete;
  ArchiveRider& operator=(const ArchiveRider&) = delete;

 private:
  std::map<std::string, torch::Tensor> m_outer;  // the riders of an enclosing scope
};

// The entry `key` of the archive loadArchive loaded last on this thread, on the CPU, when that
// archive was `path` and carried it (a checkpoint written before riders were, or none: empty).
// Taken: asked again, it is empty until the file is loaded again.
std::optional<torch::Tensor> riddenEntry(const std::string& path, const std::string& key);

// For saveArchive and loadArchive: writes this thread's riders into `archive`; keeps what a
// loaded archive carried, for riddenEntry.
void writeRiders(torch::serialize::OutputArchive& archive);
void keepRidersOf(torch::serialize::InputArchive& archive, const std::string& path);

}  // namespace fl::optim
