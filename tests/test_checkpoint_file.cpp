// Tests core/optim/checkpoint_file.h: a checkpoint carries the CRC-32 of its bytes in its zip
// comment, LibTorch still reads it, and a checkpoint with any byte changed, or cut short, is
// refused before it is loaded, naming the file. The CRC is checked against a bitwise CRC-32
// written out here, not the zlib routine the code uses. And archive_rider.h: the entries a
// rider adds to the checkpoints saved while it lives.
#include <QtTest>

#include <QTemporaryDir>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include <torch/torch.h>

#include "core/optim/archive_rider.h"
#include "core/optim/checkpoint_file.h"

namespace {

std::vector<uint8_t> readBytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void writeBytes(const std::string& path, const std::vector<uint8_t>& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(bytes.data()),
            static_cast<std::streamsize>(bytes.size()));
}

// The reflected CRC-32 of zip and PNG (polynomial 0xEDB88320), one bit at a time.
uint32_t bitwiseCrc32(const uint8_t* data, size_t size) {
  uint32_t crc = 0xffffffffu;
  for (size_t i = 0; i < size; ++i) {
    crc ^= data[i];
    for (int bit = 0; bit < 8; ++bit) crc = (crc >> 1) ^ (0xedb88320u & (0u - (crc & 1u)));
  }
  return ~crc;
}

torch::serialize::OutputArchive sampleArchive() {
  torch::serialize::OutputArchive archive;
  archive.write("weights", torch::arange(1000, torch::kFloat).reshape({10, 100}));
  archive.write("step", torch::tensor({int64_t{365}}));
  return archive;
}

std::string errorOf(const std::string& path) {
  try {
    fl::optim::verifyCheckpointFile(path);
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return {};
}

}  // namespace

class TestCheckpointFile : public QObject {
  Q_OBJECT

  QTemporaryDir m_dir;
  std::string path(const char* name) const { return (m_dir.path() + "/" + name).toStdString(); }

 private slots:
  void aCheckpointCarriesTheCrcOfItsBytesAndLoadsAsBefore() {
    const auto file = path("whole.pt");
    auto archive = sampleArchive();
    fl::optim::saveArchive(archive, file);
    const auto bytes = readBytes(file);
    // The comment ends the file; the end record (22 bytes) before it says how long it is.
    const std::string tag = "fourierlab-crc32 ";
    const size_t commentLength = tag.size() + 8;
    const size_t endRecord = bytes.size() - commentLength - 22;
    QCOMPARE(bytes[endRecord], uint8_t{0x50});
    QCOMPARE(bytes[endRecord + 3], uint8_t{0x06});
    QCOMPARE(bytes[endRecord + 20] | (bytes[endRecord + 21] << 8), int(commentLength));
    const std::string comment(bytes.end() - static_cast<std::ptrdiff_t>(commentLength),
                              bytes.end());
    char expected[9];
    std::snprintf(expected, sizeof expected, "%08x", bitwiseCrc32(bytes.data(), endRecord));
    QCOMPARE(comment, tag + expected);

    QCOMPARE(errorOf(file), std::string());
    torch::serialize::InputArchive in;
    fl::optim::loadArchive(in, file, torch::kCPU);
    torch::Tensor weights;
    in.read("weights", weights);
    QVERIFY(torch::equal(weights, torch::arange(1000, torch::kFloat).reshape({10, 100})));
  }

  // A rider's entries go into every archive saved while it lives on this thread and come back
  // from the archive loaded last, for that file only; the trial's own entries are untouched.
  void aRidersEntriesTravelInTheCheckpointSavedWhileItLives() {
    const auto ridden = path("ridden.pt");
    const auto plain = path("plain.pt");
    {
      fl::optim::ArchiveRider rider({{"run.loss", torch::tensor({2.5, 3.0}, torch::kDouble)}});
      auto archive = sampleArchive();
      fl::optim::saveArchive(archive, ridden);
    }
    auto after = sampleArchive();
    fl::optim::saveArchive(after, plain);  // the rider has gone: nothing rides
    torch::serialize::InputArchive in;
    fl::optim::loadArchive(in, ridden, torch::kCPU);
    torch::Tensor weights;
    in.read("weights", weights);  // the trial's entries as written
    QVERIFY(torch::equal(weights, torch::arange(1000, torch::kFloat).reshape({10, 100})));
    const auto loss = fl::optim::riddenEntry(ridden, "run.loss");
    QVERIFY(loss.has_value());
    QVERIFY(torch::equal(*loss, torch::tensor({2.5, 3.0}, torch::kDouble)));
    QVERIFY(!fl::optim::riddenEntry(ridden, "run.other"));
    QVERIFY(!fl::optim::riddenEntry(ridden, "run.loss"));  // taken once
    {
      torch::serialize::InputArchive reread;
      fl::optim::loadArchive(reread, ridden, torch::kCPU);
    }
    QVERIFY(fl::optim::riddenEntry(ridden, "run.loss"));  // there again once loaded again
    QVERIFY(!fl::optim::riddenEntry(plain, "run.loss"));  // not the file loaded last
    torch::serialize::InputArchive again;
    fl::optim::loadArchive(again, plain, torch::kCPU);
    QVERIFY(!fl::optim::riddenEntry(plain, "run.loss"));
    QVERIFY(!fl::optim::riddenEntry(ridden, "run.loss"));  // forgotten once another loads
    // An inner rider adds to the outer one's entries while it lives, and they come back after.
    const auto nested = path("nested.pt");
    const auto outerOnly = path("outer.pt");
    {
      fl::optim::ArchiveRider outer({{"run.a", torch::tensor({1.0})}});
      {
        fl::optim::ArchiveRider inner({{"run.b", torch::tensor({2.0})}});
        auto archive = sampleArchive();
        fl::optim::saveArchive(archive, nested);
      }
      auto archive = sampleArchive();
      fl::optim::saveArchive(archive, outerOnly);
    }
    torch::serialize::InputArchive n;
    fl::optim::loadArchive(n, nested, torch::kCPU);
    QVERIFY(fl::optim::riddenEntry(nested, "run.a") && fl::optim::riddenEntry(nested, "run.b"));
    torch::serialize::InputArchive o;
    fl::optim::loadArchive(o, outerOnly, torch::kCPU);
    QVERIFY(fl::optim::riddenEntry(outerOnly, "run.a"));
    QVERIFY(!fl::optim::riddenEntry(outerOnly, "run.b"));
  }

  // However the zip writer cuts its bytes, the file is the same.
  void theBytesDoNotDependOnHowTheyArrive() {
    std::vector<uint8_t> zip;
    sampleArchive().save_to([&zip](const void* data, size_t size) -> size_t {
      const auto* b = static_cast<const uint8_t*>(data);
      zip.insert(zip.end(), b, b + size);
      return size;
    });
    auto written = [&](const std::vector<size_t>& cuts) {
      std::vector<uint8_t> out;
      fl::optim::ChecksummedZipWriter writer([&out](const void* data, size_t size) {
        const auto* b = static_cast<const uint8_t*>(data);
        out.insert(out.end(), b, b + size);
      });
      size_t at = 0;
      for (size_t cut : cuts) {
        writer.write(zip.data() + at, cut);
        at += cut;
      }
      writer.write(zip.data() + at, zip.size() - at);
      writer.finish();
      return out;
    };
    const auto whole = written({});
    std::mt19937 rng(7);
    for (int trial = 0; trial < 50; ++trial) {
      std::vector<size_t> cuts;
      for (size_t left = zip.size(); left > 0;) {
        const size_t cut =
            std::min<size_t>(left, std::uniform_int_distribution<size_t>(0, 40)(rng));
        cuts.push_back(cut);
        left -= cut;
      }
      cuts.pop_back();  // the rest goes in the last write
      QVERIFY(written(cuts) == whole);
    }
    QVERIFY(written(std::vector<size_t>(zip.size() - 1, 1)) == whole);  // a byte at a time
  }

  // Any one byte before the end record changed: refused, naming the file, before LibTorch sees
  // it (which would load flipped tensor bytes without a word).
  void anyChangedByteIsRefusedNamingTheFile() {
    const auto file = path("damaged.pt");
    auto archive = sampleArchive();
    fl::optim::saveArchive(archive, file);
    const auto good = readBytes(file);
    const size_t covered = good.size() - 22 - 25;
    std::mt19937 rng(11);
    for (int trial = 0; trial < 60; ++trial) {
      auto bad = good;
      const size_t at = std::uniform_int_distribution<size_t>(0, covered - 1)(rng);
      bad[at] ^= static_cast<uint8_t>(1u << (trial % 8));
      writeBytes(file, bad);
      const auto error = errorOf(file);
      QVERIFY2(error.find("checkpoint " + file + " is damaged") == 0,
               qPrintable(QString("byte %1: %2").arg(at).arg(QString::fromStdString(error))));
      torch::serialize::InputArchive in;
      QVERIFY_THROWS_EXCEPTION(std::runtime_error, fl::optim::loadArchive(in, file, torch::kCPU));
    }
  }

  void aFileCutShortIsRefused() {
    const auto file = path("short.pt");
    auto archive = sampleArchive();
    fl::optim::saveArchive(archive, file);
    auto bytes = readBytes(file);
    for (size_t keep :
         {bytes.size() - 1, bytes.size() - 30, bytes.size() / 2, size_t{10}, size_t{0}}) {
      writeBytes(file, std::vector<uint8_t>(bytes.begin(), bytes.begin() + keep));
      const auto error = errorOf(file);
      QVERIFY2(error.find("is damaged: it does not end as a whole archive does (" +
                          std::to_string(keep) + " bytes") != std::string::npos,
               error.c_str());
    }
    // A missing file says so, and the likely cause (it said only "cannot be read").
    const auto missing = errorOf(path("missing.pt"));
    QVERIFY2(missing.find("missing.pt is missing (was the store copied or moved without the "
                          ".files folder") != std::string::npos,
             missing.c_str());
  }

  // Checkpoints written before they carried a CRC still resume.
  void aCheckpointWithoutACrcStillLoads() {
    const auto file = path("old.pt");
    sampleArchive().save_to(file);
    QCOMPARE(errorOf(file), std::string());
    torch::serialize::InputArchive in;
    fl::optim::loadArchive(in, file, torch::kCPU);
    torch::Tensor step;
    in.read("step", step);
    QCOMPARE(step.item<int64_t>(), int64_t{365});
  }
};

QTEST_GUILESS_MAIN(TestCheckpointFile)
#include "test_checkpoint_file.moc"
