#include "core/optim/archive_rider.h"

#include <torch/torch.h>

namespace fl::optim {

namespace {

const std::string kPrefix = "rider.";

std::string riderKey(const std::string& key) {
  return key.rfind(kPrefix, 0) == 0 ? key : kPrefix + key;
}

thread_local std::map<std::string, torch::Tensor> t_riding;

struct Loaded {
  std::string path;
  std::map<std::string, torch::Tensor> entries;
};
thread_local Loaded t_loaded;

}  // namespace

ArchiveRider::ArchiveRider(const std::map<std::string, torch::Tensor>& entries)
    : m_outer(t_riding) {
  // Made whole first: a throw here leaves this thread's riders as they were.
  std::map<std::string, torch::Tensor> riding = t_riding;
  for (const auto& [key, value] : entries) riding[riderKey(key)] = value.detach().to(torch::kCPU);
  t_riding = std::move(riding);
}

ArchiveRider::~ArchiveRider() { t_riding = std::move(m_outer); }

std::optional<torch::Tensor> riddenEntry(const std::string& path, const std::string& key) {
  if (t_loaded.path != path) return std::nullopt;
  auto it = t_loaded.entries.find(riderKey(key));
  if (it == t_loaded.entries.end()) return std::nullopt;
  // Read once: a later resume from the same file that loads it some other way finds nothing
  // stale here.
  torch::Tensor value = std::move(it->second);
  t_loaded.entries.erase(it);
  return value;
}

void writeRiders(torch::serialize::OutputArchive& archive) {
  for (const auto& [key, value] : t_riding) archive.write(key, value);
}

void keepRidersOf(torch::serialize::InputArchive& archive, const std::string& path) {
  t_loaded = Loaded{path, {}};
  for (const auto& key : archive.keys()) {
    if (key.rfind(kPrefix, 0) != 0) continue;
    torch::Tensor value;
    if (archive.try_read(key, value)) t_loaded.entries[key] = value.to(torch::kCPU);
  }
}

}  // namespace fl::optim
