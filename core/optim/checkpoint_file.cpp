#include "core/optim/checkpoint_file.h"

#include <zlib.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <stdexcept>

#include "core/engine/atomic_file.h"
#include "core/optim/archive_rider.h"

namespace fl::optim {

namespace {

// The zip format's end of central directory record: 22 bytes, then a comment of up to 65535.
constexpr size_t kEndRecordSize = 22;
constexpr size_t kCommentLengthAt = 20;
constexpr std::array<uint8_t, 4> kEndSignature{0x50, 0x4b, 0x05, 0x06};
const std::string kCrcTag = "fourierlab-crc32 ";

std::string hex8(unsigned long value) {
  char text[9];
  std::snprintf(text, sizeof text, "%08lx", value & 0xffffffffUL);
  return text;
}

unsigned readLittle16(const uint8_t* p) { return p[0] | (p[1] << 8); }

}  // namespace

void ChecksummedZipWriter::pass(const uint8_t* data, size_t size) {
  if (size == 0) return;
  m_crc = crc32(m_crc, data, static_cast<uInt>(size));
  m_sink(data, size);
}

void ChecksummedZipWriter::write(const void* data, size_t size) {
  const auto* bytes = static_cast<const uint8_t*>(data);
  if (size >= kEndRecordSize) {
    // Everything held and all but the last 22 of these bytes can go.
    pass(m_held.data(), m_held.size());
    pass(bytes, size - kEndRecordSize);
    m_held.assign(bytes + size - kEndRecordSize, bytes + size);
    return;
  }
  m_held.insert(m_held.end(), bytes, bytes + size);
  if (m_held.size() > kEndRecordSize) {
    const size_t extra = m_held.size() - kEndRecordSize;
    pass(m_held.data(), extra);
    m_held.erase(m_held.begin(), m_held.begin() + static_cast<std::ptrdiff_t>(extra));
  }
}

void ChecksummedZipWriter::finish() {
  if (m_held.size() != kEndRecordSize ||
      !std::equal(kEndSignature.begin(), kEndSignature.end(), m_held.begin()) ||
      readLittle16(m_held.data() + kCommentLengthAt) != 0)
    throw std::logic_error("the checkpoint writer did not end in a zip end record");
  const std::string comment = kCrcTag + hex8(m_crc);
  m_held[kCommentLengthAt] = static_cast<uint8_t>(comment.size() & 0xff);
  m_held[kCommentLengthAt + 1] = static_cast<uint8_t>(comment.size() >> 8);
  m_sink(m_held.data(), m_held.size());
  m_sink(comment.data(), comment.size());
  m_held.clear();
}

void saveArchive(torch::serialize::OutputArchive& archive, const std::string& path) {
  writeRiders(archive);
  AtomicFile file(path, AtomicFile::TemporaryName::Fixed);
  ChecksummedZipWriter writer([&file](const void* data, size_t size) { file.write(data, size); });
  // Always "all written": the zip writer never sees a failure (see the header); AtomicFile
  // keeps the first one and commit() reports it.
  archive.save_to([&writer](const void* data, size_t size) -> size_t {
    writer.write(data, size);
    return size;
  });
  writer.finish();
  file.commit();
}

void verifyCheckpointFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) {
    // Why, in words: a store copied or moved without its .files folder has no checkpoints.
    const int error = errno;
    std::error_code ec;
    if (!std::filesystem::exists(path, ec))
      throw std::runtime_error("checkpoint " + path +
                               " is missing (was the store copied or moved without the .files "
                               "folder beside it?)");
    throw std::runtime_error("checkpoint " + path + " cannot be read (" + std::strerror(error) +
                             ")");
  }
  const auto size = static_cast<size_t>(in.tellg());
  // The end record lies in the last 22 + 65535 bytes: found from the end, where its comment
  // reaches exactly the end of the file.
  const size_t tailSize = std::min(size, kEndRecordSize + 0xffff);
  std::vector<uint8_t> tail(tailSize);
  in.seekg(static_cast<std::streamoff>(size - tailSize));
  in.read(reinterpret_cast<char*>(tail.data()), static_cast<std::streamsize>(tailSize));
  std::optional<size_t> endRecord;  // offset in tail
  for (size_t at = tailSize >= kEndRecordSize ? tailSize - kEndRecordSize + 1 : 0; at-- > 0;) {
    if (std::equal(kEndSignature.begin(), kEndSignature.end(), tail.begin() + at) &&
        at + kEndRecordSize + readLittle16(tail.data() + at + kCommentLengthAt) == tailSize) {
      endRecord = at;
      break;
    }
  }
  if (!in || !endRecord)
    throw std::runtime_error("checkpoint " + path + " is damaged: it does not end as a whole " +
                             "archive does (" + std::to_string(size) + " bytes; cut short?)");
  const std::string comment(tail.begin() + static_cast<std::ptrdiff_t>(*endRecord + kEndRecordSize),
                            tail.end());
  if (comment.rfind(kCrcTag, 0) != 0) return;  // written before checkpoints carried a CRC
  const std::string written = comment.substr(kCrcTag.size());
  // The CRC of every byte before the end record, read again in blocks.
  const size_t covered = size - tailSize + *endRecord;
  unsigned long crc = 0;
  std::vector<char> block(1 << 20);
  in.seekg(0);
  for (size_t done = 0; done < covered;) {
    const size_t n = std::min(block.size(), covered - done);
    if (!in.read(block.data(), static_cast<std::streamsize>(n)))
      throw std::runtime_error("checkpoint " + path + " cannot be read to its end");
    crc = crc32(crc, reinterpret_cast<const Bytef*>(block.data()), static_cast<uInt>(n));
    done += n;
  }
  if (hex8(crc) != written)
    throw std::runtime_error("checkpoint " + path + " is damaged: its bytes do not match the " +
                             "CRC-32 it was written with (" + written + ", now " + hex8(crc) +
                             "); it cannot be resumed from");
}

void loadArchive(torch::serialize::InputArchive& archive, const std::string& path,
                 c10::Device device) {
  verifyCheckpointFile(path);
  archive.load_from(path, device);
  keepRidersOf(archive, path);
}

}  // namespace fl::optim
