// Tests core/text and core/lm: corpus loading with clear errors, UTF-8, the vocabulary, the
// built-in structured text's periods, the passkey task, and the train/validation split.
#include <QtTest>

#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <random>

#include <torch/torch.h>

#include "core/lm/char_lm_data.h"
#include "core/text/char_corpus.h"
#include "core/text/passkey.h"
#include "core/text/structured_text.h"
#include "core/text/utf8.h"

using namespace fl::text;

namespace {
std::string writeFile(const QTemporaryDir& dir, const char* name, const std::string& bytes) {
  const std::string path = dir.filePath(name).toStdString();
  std::ofstream(path, std::ios::binary) << bytes;
  return path;
}

QString errorOf(const std::string& path) {
  try {
    loadTextFile(path);
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return {};
}
}  // namespace

class TestCharText : public QObject {
  Q_OBJECT

 private slots:
  void badCorporaAreRejectedNamingThePath() {
    QTemporaryDir dir;
    const auto missing = dir.filePath("missing.txt").toStdString();
    QCOMPARE(errorOf(missing), QString::fromStdString("corpus '" + missing + "': no such file"));
    const auto empty = writeFile(dir, "empty.txt", "");
    QCOMPARE(errorOf(empty), QString::fromStdString("corpus '" + empty + "': is empty"));
    const auto binary = writeFile(dir, "binary.bin", std::string("ab\0cd", 5));
    QCOMPARE(errorOf(binary),
             QString::fromStdString("corpus '" + binary +
                                    "': is binary, not text (a NUL byte at offset 2)"));
    const auto latin1 = writeFile(dir, "latin1.txt", "caf\xe9 au lait");
    QCOMPARE(errorOf(latin1),
             QString::fromStdString("corpus '" + latin1 +
                                    "': is not UTF-8 text (invalid byte at offset 3)"));
    const auto folder = dir.path().toStdString();
    QVERIFY(errorOf(folder).contains("is a folder"));
    // UTF-16 (either byte order) and UTF-32 are named, with the iconv command that converts
    // them (iconv reads the byte order from the mark), not called binary.
    const std::pair<std::string, std::string> marks[] = {
        {"\xff\xfe", "UTF-16"},
        {"\xfe\xff", "UTF-16"},
        {std::string("\xff\xfe\0\0", 4), "UTF-32"},
        {std::string("\0\0\xfe\xff", 4), "UTF-32"}};
    for (const auto& [bom, encoding] : marks) {
      const auto wide = writeFile(dir, "wide.txt", bom + std::string("a\0b\0", 4));
      QCOMPARE(errorOf(wide),
               QString::fromStdString("corpus '" + wide + "': is " + encoding +
                                      " text (its byte-order mark says so); FourierLab reads "
                                      "UTF-8: convert it with iconv -f " +
                                      encoding + " -t UTF-8 '" + wide + "' > corpus-utf8.txt"));
    }
    // A UTF-8 byte-order mark is not a character of the text; alone, the file is empty.
    const auto marked = writeFile(dir, "marked.txt",
                                  "\xef\xbb\xbf"
                                  "ab");
    QCOMPARE(loadTextFile(marked), std::u32string(U"ab"));
    const auto onlyMark = writeFile(dir, "mark.txt", "\xef\xbb\xbf");
    QCOMPARE(errorOf(onlyMark), QString::fromStdString("corpus '" + onlyMark + "': is empty"));
    // A bad byte after the mark is named at its offset in the file.
    const auto markedLatin1 = writeFile(dir, "marked-latin1.txt",
                                        "\xef\xbb\xbf"
                                        "caf\xe9");
    QCOMPARE(errorOf(markedLatin1),
             QString::fromStdString("corpus '" + markedLatin1 +
                                    "': is not UTF-8 text (invalid byte at offset 6)"));
  }

  // What is not a file is refused before it is opened: a pipe would block the open for ever,
  // /dev/zero never ends. A file past the size limit is refused by its size (a sparse one here:
  // nothing is read), and a NUL byte is found where it is, across the chunks the file is read in.
  void devicesPipesHugeFilesAndLateNulBytesAreRefused() {
    QTemporaryDir dir;
    const auto fifo = dir.filePath("fifo").toStdString();
    QCOMPARE(::mkfifo(fifo.c_str(), 0600), 0);
    QCOMPARE(errorOf(fifo), QString::fromStdString("corpus '" + fifo +
                                                   "': is not a regular file (a device, a pipe "
                                                   "or a socket)"));
    QVERIFY(errorOf("/dev/zero").contains("is not a regular file"));
    const auto huge = writeFile(dir, "huge.txt", "a");
    std::filesystem::resize_file(huge, kMaxCorpusBytes + 1);
    QCOMPARE(errorOf(huge), QString::fromStdString("corpus '" + huge +
                                                   "': is 257 MiB; a character-level corpus may "
                                                   "have at most 256 MiB (it is held in memory, "
                                                   "4 bytes a character)"));
    for (const size_t offset :
         {size_t(0), size_t(1 << 20) - 1, size_t(1 << 20), size_t(3 << 20) + 5}) {
      std::string bytes(offset + 10, 'x');
      bytes[offset] = '\0';
      const auto late = writeFile(dir, "late.bin", bytes);
      QCOMPARE(errorOf(late), QString::fromStdString("corpus '" + late +
                                                     "': is binary, not text (a NUL byte at "
                                                     "offset " +
                                                     std::to_string(offset) + ")"));
    }
    // Text that spans several chunks is read whole.
    const auto text = writeFile(dir, "long.txt", std::string((5 << 20) / 2 + 3, 'q'));
    QCOMPARE(loadTextFile(text).size(), size_t((5 << 20) / 2 + 3));
  }

  void utf8RoundTripsAndRejectsMalformedSequences() {
    const std::string text = "h\xc3\xa9llo \xe2\x82\xac \xf0\x9f\x98\x80";  // é, €, 😀
    auto decoded = decodeUtf8(text);
    QVERIFY(decoded);
    QCOMPARE(decoded->size(), size_t(9));
    QCOMPARE((*decoded)[1], char32_t(0xE9));
    QCOMPARE((*decoded)[8], char32_t(0x1F600));
    QCOMPARE(encodeUtf8(*decoded), text);
    size_t bad = 99;
    QVERIFY(!decodeUtf8("ab\xc0\xaf", &bad));  // overlong '/'
    QCOMPARE(bad, size_t(2));
    QVERIFY(!decodeUtf8("\xed\xa0\x80"));     // a surrogate
    QVERIFY(!decodeUtf8("x\xe2\x82", &bad));  // truncated
    QCOMPARE(bad, size_t(1));
  }

  // Text that shows nothing is blank, Unicode's spaces too: a name of non-breaking spaces had
  // passed as a name and listed as a blank. One visible character anywhere makes it not blank,
  // checked over many random mixes.
  void blankTextIsSpacesAloneUnicodesToo() {
    using fl::text::encodeUtf8;
    using fl::text::isBlank;
    const std::u32string spaces = U" \t\n\u00a0\u2003\u200b\u3000\ufeff";
    QVERIFY(isBlank(""));
    QVERIFY(isBlank(encodeUtf8(spaces)));
    QVERIFY(!isBlank("a"));
    QVERIFY(!isBlank("\xff "));  // not UTF-8: said so by its own check, not as a blank
    std::mt19937 rng(11);
    const std::u32string visible = U"a\u00e9\u4e2d.-_0";
    for (int trial = 0; trial < 300; ++trial) {
      std::u32string text;
      const int length = static_cast<int>(rng() % 8);
      for (int i = 0; i < length; ++i) text += spaces[rng() % spaces.size()];
      QVERIFY(isBlank(encodeUtf8(text)));
      text.insert(text.begin() + static_cast<long>(rng() % (text.size() + 1)),
                  visible[rng() % visible.size()]);
      QVERIFY(!isBlank(encodeUtf8(text)));
    }
  }

  void vocabularyIsSortedAndRoundTrips() {
    CharVocabulary v(U"hello world", U"01");
    QCOMPARE(v.size(), int64_t(10));  // " 01dehlorw"
    QCOMPARE(v.id(U' '), 0);
    QCOMPARE(v.id(U'0'), 1);
    QVERIFY(v.decode(v.encode(U"hello 10")) == U"hello 10");
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, v.id(U'z'));
  }

  void structuredTextHasItsDeclaredPeriods() {
    const auto text = generateStructuredText(5000, 7);
    QVERIFY(text.size() >= 5000);
    QCOMPARE(static_cast<int64_t>(text.size()) % StructuredTextPeriods::kStanza, int64_t(0));
    for (size_t s = 0; s + StructuredTextPeriods::kStanza <= text.size();
         s += StructuredTextPeriods::kStanza) {
      const auto stanza = text.substr(s, StructuredTextPeriods::kStanza);
      for (int line = 0; line < 4; ++line)
        for (int w = 0; w < 6; ++w) {
          const size_t sep =
              line * StructuredTextPeriods::kLine + w * StructuredTextPeriods::kWord + 4;
          QCOMPARE(stanza[sep], w == 5 ? U'\n' : U' ');
          for (int c = 0; c < 4; ++c)
            QVERIFY(stanza[sep - 4 + c] >= U'a' && stanza[sep - 4 + c] <= U'z');
        }
      QCOMPARE(stanza.back(), U'\n');
      QVERIFY(stanza.substr(0, 30) == stanza.substr(90, 30));  // the closing line repeats the first
    }
    // The seed draws the words; the same seed the same text.
    QVERIFY(generateStructuredText(1000, 7) == generateStructuredText(1000, 7));
    QVERIFY(generateStructuredText(1000, 7) != generateStructuredText(1000, 8));
  }

  void passkeyGenerationPutsTheKeyWhereItSays() {
    std::mt19937_64 rng(11);
    for (int i = 0; i < 300; ++i) {
      const int64_t digits = 1 + i % 6;
      const int64_t length = minimumPasskeyLength(digits) + static_cast<int64_t>(rng() % 500);
      const auto s = makePasskeySample(length, digits, rng);
      QCOMPARE(static_cast<int64_t>(s.text.size()), length);
      QCOMPARE(static_cast<int64_t>(s.key.size()), digits);
      for (char32_t c : s.key) QVERIFY(c >= U'0' && c <= U'9');
      QVERIFY(s.text.substr(static_cast<size_t>(s.keyAt), static_cast<size_t>(digits)) == s.key);
      QVERIFY(s.text.substr(static_cast<size_t>(s.keyAt) - 11, 11) == U"the key is ");
      QCOMPARE(s.answerAt, length - digits);  // the answer ends the text
      QVERIFY(s.text.substr(static_cast<size_t>(s.answerAt)) == s.key);
      QVERIFY(s.text.substr(static_cast<size_t>(s.answerAt) - 28, 28) ==
              U"what is the key? the key is ");
      for (char32_t c : s.text) QVERIFY(passkeyAlphabet().find(c) != std::u32string::npos);
    }
    // Depths vary: the key is not always in the same place.
    std::set<int64_t> depths;
    for (int i = 0; i < 50; ++i) depths.insert(makePasskeySample(400, 4, rng).keyAt);
    QVERIFY(depths.size() > 20);
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument,
                             makePasskeySample(minimumPasskeyLength(4) - 1, 4, rng));
  }

  void dataSplitsNinetyTenAndSamplesShiftedTargets() {
    fl::lm::CharLmDataOptions o;
    o.syntheticCharacters = 20000;
    fl::lm::CharLmData data(o, 3);
    const int64_t total = data.train().numel() + data.validation().numel();
    QCOMPARE(data.validation().numel(), total / 10);
    std::mt19937_64 rng(1);
    auto [x, y] = data.sampleTrainBatch(4, 32, rng);
    QCOMPARE(x.sizes().vec(), (std::vector<int64_t>{4, 32}));
    QVERIFY(torch::equal(x.narrow(1, 1, 31), y.narrow(1, 0, 31)));
    auto [vx, vy] = data.validationWindows(3, 100);
    QVERIFY(torch::equal(vx[0], data.validation().narrow(0, 0, 100)));
    QVERIFY(torch::equal(vy[2], data.validation().narrow(0, data.validation().numel() - 100, 100)));
    try {
      data.validationWindows(1, data.validation().numel());
      QFAIL("expected an error");
    } catch (const std::runtime_error& e) {
      QVERIFY(QString(e.what()).contains("too few for windows of"));
    }
  }

  void tinyShakespeareLoadsWhenPresent() {
    const std::string path = FOURIERLAB_SHARED_DATA "/tinyshakespeare.txt";
    if (!QFile::exists(QString::fromStdString(path)))
      QSKIP("../shared/data/tinyshakespeare.txt not present");
    fl::lm::CharLmDataOptions o;
    o.corpusPath = path;
    fl::lm::CharLmData data(o, 1);
    QCOMPARE(data.train().numel() + data.validation().numel(), int64_t(1115394));
    CharVocabulary plain(loadTextFile(path));
    QCOMPARE(plain.size(), int64_t(65));
  }
};

QTEST_APPLESS_MAIN(TestCharText)
#include "test_char_text.moc"
