// Tests core/engine/atomic_file.h: a file appears under its name only complete; every failure
// (a full device, a file-size limit standing in for a full disk, a missing folder) throws
// FileWriteError naming the file and the reason, and leaves no temporary file behind.
#include <QtTest>

#include <sys/resource.h>
#include <unistd.h>

#include <csignal>
#include <filesystem>
#include <fstream>

#include "core/engine/atomic_file.h"

namespace fs = std::filesystem;

namespace {

std::string readAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

size_t filesIn(const std::string& folder) {
  size_t n = 0;
  for ([[maybe_unused]] const auto& entry : fs::directory_iterator(folder)) ++n;
  return n;
}

// Limits the size of any file this process writes, as a full disk would (EFBIG instead of
// ENOSPC, through the same write calls); restores the limit when destroyed.
class FileSizeLimit {
 public:
  explicit FileSizeLimit(rlim_t bytes) {
    getrlimit(RLIMIT_FSIZE, &m_previous);
    m_handler = std::signal(SIGXFSZ, SIG_IGN);  // fail the write instead of killing us
    rlimit limit = m_previous;
    limit.rlim_cur = bytes;
    setrlimit(RLIMIT_FSIZE, &limit);
  }
  ~FileSizeLimit() {
    setrlimit(RLIMIT_FSIZE, &m_previous);
    std::signal(SIGXFSZ, m_handler);
  }

 private:
  rlimit m_previous{};
  void (*m_handler)(int);
};

}  // namespace

class TestAtomicFile : public QObject {
  Q_OBJECT

  QTemporaryDir m_dir;
  std::string path(const std::string& name) const {
    return m_dir.path().toStdString() + "/" + name;
  }

 private slots:
  void init() {
    for (const auto& entry : fs::directory_iterator(m_dir.path().toStdString()))
      fs::remove_all(entry);
  }

  void aCommittedFileHoldsEverythingAndNothingElseIsLeft() {
    fl::AtomicFile file(path("out.csv"));
    QVERIFY(!fs::exists(path("out.csv")));  // not under its name before the commit
    file.stream() << "a,b\n";
    const std::string big(300000, 'x');  // larger than the buffer: written straight through
    file.write(big.data(), big.size());
    file.stream() << "\nend\n";
    file.commit();
    QCOMPARE(readAll(path("out.csv")), "a,b\n" + big + "\nend\n");
    QCOMPARE(filesIn(m_dir.path().toStdString()), size_t(1));
  }

  // A symbolic link is written through: its target holds the bytes and the link stays. The
  // rename had replaced the link with a file, the target never written (`runs export --out`).
  // A chain of links, each relative to its own folder, and a link to a file not there yet.
  void aLinkIsWrittenThroughToItsTarget() {
    fs::create_directories(path("real"));
    fs::create_directories(path("links"));
    fs::create_symlink("../real/target.json", path("links/first.json"));
    fs::create_symlink("first.json", path("links/second.json"));
    for (const char* text : {"one", "two"}) {  // a new target, then one replaced
      fl::AtomicFile file(path("links/second.json"));
      file.stream() << text;
      file.commit();
      QCOMPARE(readAll(path("real/target.json")), std::string(text));
      QVERIFY(fs::is_symlink(path("links/second.json")) &&
              fs::is_symlink(path("links/first.json")));
      QCOMPARE(filesIn(path("real")), size_t(1));
      QCOMPARE(filesIn(path("links")), size_t(2));
    }
  }

  // A link to what is no file is written through as given: /dev/stdout into a pipe had been
  // followed to "/proc/self/fd/pipe:[N]", a path no one can open (`runs export --out
  // /dev/stdout | ...` exited 3).
  void aLinkToAPipeIsWrittenThrough() {
    int fds[2];
    QCOMPARE(::pipe(fds), 0);
    const std::string link = path("to-pipe");
    fs::create_symlink("/proc/self/fd/" + std::to_string(fds[1]), link);
    {
      fl::AtomicFile file(link);
      file.stream() << "through";
      file.commit();
    }
    char buffer[16] = {};
    QCOMPARE(::read(fds[0], buffer, sizeof buffer), ssize_t(7));
    QCOMPARE(std::string(buffer, 7), std::string("through"));
    ::close(fds[0]);
    ::close(fds[1]);
    QVERIFY(fs::is_symlink(link));
  }

  // A file replaced keeps its permissions: an export over a 600 file came back 644.
  void aReplacedFileKeepsItsPermissions() {
    { std::ofstream(path("private.csv")) << "old"; }
    fs::permissions(path("private.csv"), fs::perms::owner_read | fs::perms::owner_write);
    fl::AtomicFile file(path("private.csv"));
    file.stream() << "new";
    file.commit();
    QCOMPARE(readAll(path("private.csv")), std::string("new"));
    QCOMPARE(fs::status(path("private.csv")).permissions(),
             fs::perms::owner_read | fs::perms::owner_write);
  }

  void anAbandonedFileLeavesNothing() {
    {
      fl::AtomicFile file(path("gone.json"));
      file.stream() << "{\"half\": ";
    }
    QCOMPARE(filesIn(m_dir.path().toStdString()), size_t(0));
  }

  void theFixedTemporaryNameIsPathDotPartial() {
    fl::AtomicFile file(path("step-8.pt"), fl::AtomicFile::TemporaryName::Fixed);
    QCOMPARE(file.temporaryPath(), path("step-8.pt") + ".partial");
    file.stream() << "checkpoint";
    file.commit();
    QCOMPARE(readAll(path("step-8.pt")), std::string("checkpoint"));
  }

  // An export stopped at the disk's end used to be reported written and left truncated; a kill
  // left a 0-byte file under the final name. The old file stays, the partial one goes.
  void aFailedWriteLeavesTheOldFileAndNoTemporary() {
    std::ofstream(path("e.json")) << "the previous export";
    bool threw = false;
    {
      FileSizeLimit limit(64 * 1024);
      fl::AtomicFile file(path("e.json"));
      const std::string chunk(16 * 1024, 'x');
      for (int i = 0; i < 8; ++i) file.write(chunk.data(), chunk.size());
      try {
        file.commit();
      } catch (const fl::FileWriteError& e) {
        threw = true;
        QCOMPARE(e.path(), path("e.json"));
        QCOMPARE(e.errorNumber(), EFBIG);
        QVERIFY2(std::string(e.what()).rfind("cannot write " + path("e.json") + ": ", 0) == 0,
                 e.what());
      }
    }
    QVERIFY(threw);
    QCOMPARE(readAll(path("e.json")), std::string("the previous export"));
    QCOMPARE(filesIn(m_dir.path().toStdString()), size_t(1));
  }

  void aFullDeviceIsDiskFull() {
    fl::AtomicFile file("/dev/full");  // not a regular file: written in place
    file.stream() << std::string(100000, 'x');
    try {
      file.commit();
      QFAIL("a write to /dev/full succeeded");
    } catch (const fl::FileWriteError& e) {
      QVERIFY(e.diskFull());
      QCOMPARE(std::string(e.what()),
               std::string("cannot write /dev/full: disk full (No space left on device)"));
    }
  }

  // "cannot write PATH" used to say nothing of why.
  void aMissingFolderIsNamed() {
    try {
      fl::AtomicFile file(path("nowhere/e.csv"));
      QFAIL("opened a file in a missing folder");
    } catch (const fl::FileWriteError& e) {
      QCOMPARE(std::string(e.what()), "cannot write " + path("nowhere/e.csv") + ": its folder " +
                                          path("nowhere") + " does not exist");
    }
    QVERIFY(!fs::exists(path("nowhere")));
  }
};

QTEST_APPLESS_MAIN(TestAtomicFile)
#include "test_atomic_file.moc"
