// A checkpoint file that says when it is damaged. LibTorch's loader reads a zip archive without
// checking its CRCs: a checkpoint with bytes flipped inside a tensor (a bad disk, a partial
// overwrite, a copy cut short and padded) loads "successfully" and the run resumes from garbage.
// So every checkpoint carries the CRC-32 of its bytes, in the zip's own comment field (the end
// of central directory record: any zip reader, PyTorch's included, still reads the file), and
// is checked before it is loaded.
//
//   optim::saveArchive(archive, path);          // step-N.pt, complete or absent, with its CRC
//   optim::loadArchive(archive, path, device);  // throws, naming the file, when it is damaged
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <c10/core/Device.h>
#include <torch/serialize/input-archive.h>
#include <torch/serialize/output-archive.h>

namespace fl::optim {

// Writes `archive` to `path` through AtomicFile: the file appears only complete, and a failure
// (a full disk) throws fl::FileWriteError naming it, with no `.partial` file left behind.
// Use it instead of archive.save_to(path): LibTorch's zip writer, failing to write, throws
// again from its destructor, which aborts the process.
void saveArchive(torch::serialize::OutputArchive& archive, const std::string& path);

// Checks `path` (verifyCheckpointFile) and loads it onto `device`.
void loadArchive(torch::serialize::InputArchive& archive, const std::string& path,
                 c10::Device device);

// Throws std::runtime_error naming `path` when the file is not a whole zip archive or its bytes
// do not match the CRC-32 its comment holds. A checkpoint written before checkpoints carried
// one passes unchecked.
void verifyCheckpointFile(const std::string& path);

// The writer's half, on its own for the tests: passes a zip archive's bytes to `sink` as they
// come, holding back the last 22 (the end of central directory record) until finish(), which
// gives that record the comment "fourierlab-crc32 XXXXXXXX" (the CRC-32 of every byte before
// it) and writes it. Throws std::logic_error from finish() when the bytes did not end in such
// a record without a comment (LibTorch's writer always ends so).
class ChecksummedZipWriter {
 public:
  explicit ChecksummedZipWriter(std::function<void(const void*, size_t)> sink)
      : m_sink(std::move(sink)) {}
  void write(const void* data, size_t size);
  void finish();

 private:
  void pass(const uint8_t* data, size_t size);  // to the sink, into the CRC
  std::function<void(const void*, size_t)> m_sink;
  std::vector<uint8_t> m_held;
  unsigned long m_crc = 0;
};

}  // namespace fl::optim
