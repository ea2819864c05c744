// Tests core/text/passkey_prompt (the paper's zero-shot passkey prompt, as YaRN builds it) and
// core/metrics/binomial_interval (the Wilson score interval its accuracies carry): the prompt
// word for word at an exact length, the key statement at a uniformly random point of the filler
// (every point reached, the histogram flat within a chi-square bound), YaRN's keys, the exact
// answer check, a length too short refused naming the minimum, and the interval's numbers.
#include <QtTest>

#include <cmath>
#include <random>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/metrics/binomial_interval.h"
#include "core/text/passkey_prompt.h"

using namespace fl;
using namespace fl::text;

namespace {

std::u32string u32(const std::string& ascii) { return {ascii.begin(), ascii.end()}; }

// YaRN's eval/passkey.py generate_prompt, transcribed on its own here (not through the code
// under test): "\n".join([task, garbage_inf[:p], information_line, garbage_inf[:n - p],
// final_question]) with garbage_inf = " ".join([garbage] * 10000); FourierLab appends " " and
// the key, the answer the model is scored on.
std::u32string yarnPrompt(const std::string& key, int64_t n, int64_t p) {
  const std::string garbage =
      "The grass is green. The sky is blue. The sun is yellow. Here we go. There and back again.";
  std::string inf;
  while (static_cast<int64_t>(inf.size()) < n) inf += (inf.empty() ? "" : " ") + garbage;
  const std::string lines[] = {
      "There is an important info hidden inside a lot of irrelevant text. Find it and memorize "
      "them. I will quiz you about the important information there.",
      inf.substr(0, static_cast<size_t>(p)),
      "The pass key is " + key + ". Remember it. " + key + " is the pass key.",
      inf.substr(0, static_cast<size_t>(n - p)), "What is the pass key? The pass key is"};
  std::string out;
  for (const auto& line : lines) out += (out.empty() ? "" : "\n") + line;
  return u32(out + " " + key);
}

// The chi-square quantile with k degrees of freedom at upper-tail z (Wilson-Hilferty: within a
// fraction of a percent of the exact value for k >= 10; 45.44 against 45.31 at k = 20, z 3.09).
double chiSquareQuantile(int k, double z) {
  const double a = 2.0 / (9.0 * k);
  return k * std::pow(1 - a + z * std::sqrt(a), 3);
}

}  // namespace

class TestPasskey : public QObject {
  Q_OBJECT

 private slots:
  void thePromptIsYarnsWordForWordAtTheExactLength() {
    std::mt19937_64 rng(7);
    for (const std::string key : {"71432", "9", "50000", "123"}) {
      const int64_t minimum = minimumZeroShotPasskeyLength(static_cast<int64_t>(key.size()));
      for (int64_t extra : {0, 1, 2, 89, 90, 91, 500, 3000}) {
        const int64_t length = minimum + extra;
        const auto s = makeZeroShotPasskey(length, u32(key), rng);
        QCOMPARE(static_cast<int64_t>(s.text.size()), length);
        QCOMPARE(s.filler, extra);
        QVERIFY(s.insertAt >= 0 && s.insertAt <= s.filler);
        QVERIFY(s.text == yarnPrompt(key, s.filler, s.insertAt));
        QVERIFY(s.key == u32(key));
        QCOMPARE(s.answerAt, length - static_cast<int64_t>(key.size()));
        QVERIFY(s.text.substr(static_cast<size_t>(s.answerAt)) == u32(key));
        QVERIFY(s.text.compare(static_cast<size_t>(s.statementAt), 16 + key.size(),
                               u32("The pass key is " + key)) == 0);
        QCOMPARE(s.statementAt, int64_t(148 + 1 + s.insertAt + 1));  // task line, \n, p, \n
      }
    }
    // 148 characters of task, 58 of statement with a 5-digit key, 37 of question, 4 newlines,
    // a space and the 5-digit answer.
    QCOMPARE(minimumZeroShotPasskeyLength(5), int64_t(148 + 58 + 37 + 4 + 1 + 5));
    for (char32_t c : yarnPrompt("0123456789", 300, 100))
      QVERIFY(zeroShotPromptCharacters().find(c) != std::u32string::npos ||
              passkeyDigitCharacters().find(c) != std::u32string::npos);
  }

  // The statement's point is uniform over the n + 1 insertion points: every point is drawn, and
  // the histogram's chi-square against the flat one stays below its 0.999 quantile.
  void theKeyStatementIsAtAUniformlyRandomPointOfTheFiller() {
    std::mt19937_64 rng(2024);
    for (int64_t n : {20, 57}) {
      const int64_t bins = n + 1;
      const int64_t draws = 400 * bins;
      std::vector<int64_t> histogram(static_cast<size_t>(bins), 0);
      const int64_t length = minimumZeroShotPasskeyLength(5) + n;
      for (int64_t i = 0; i < draws; ++i) {
        const auto s = makeZeroShotPasskey(length, U"71432", rng);
        QCOMPARE(s.filler, n);
        ++histogram[static_cast<size_t>(s.insertAt)];
      }
      const double expected = static_cast<double>(draws) / static_cast<double>(bins);
      double chiSquare = 0;
      for (int64_t count : histogram) {
        QVERIFY2(count > 0, "an insertion point was never drawn");
        chiSquare += (count - expected) * (count - expected) / expected;
      }
      const double bound = chiSquareQuantile(static_cast<int>(bins - 1), 3.090232);  // p 0.001
      QVERIFY2(chiSquare < bound,
               qPrintable(QString("n %1: chi-square %2 >= %3").arg(n).arg(chiSquare).arg(bound)));
      // And not a degenerate draw: the ends are reached as often as the middle, within 5 sd.
      const double sd = std::sqrt(expected * (1 - 1.0 / static_cast<double>(bins)));
      QVERIFY(std::abs(histogram.front() - expected) < 5 * sd);
      QVERIFY(std::abs(histogram.back() - expected) < 5 * sd);
    }
  }

  // YaRN's random.randint(1, 50000): whole numbers without leading zeros, 80% of them 5 digits.
  void keysAreDrawnAsYarnDrawsThem() {
    std::mt19937_64 rng(11);
    const int64_t draws = 20000;
    int64_t fiveDigits = 0, lowest = 1 << 30, highest = 0;
    double sum = 0;
    for (int64_t i = 0; i < draws; ++i) {
      const auto key = drawYarnKey(5, rng);
      QVERIFY(!key.empty() && key.size() <= 5 && key.front() != U'0');
      int64_t value = 0;
      for (char32_t c : key) {
        QVERIFY(c >= U'0' && c <= U'9');
        value = value * 10 + (c - U'0');
      }
      lowest = std::min(lowest, value);
      highest = std::max(highest, value);
      sum += static_cast<double>(value);
      fiveDigits += key.size() == 5 ? 1 : 0;
      // Any length holds any key: the filler takes up the difference.
      const auto s = makeZeroShotPasskey(minimumZeroShotPasskeyLength(5) + 40, key, rng);
      QCOMPARE(static_cast<int64_t>(s.text.size()), minimumZeroShotPasskeyLength(5) + 40);
      // The key is written three times (twice in the statement, once as the answer).
      QCOMPARE(s.filler, 40 + 3 * (5 - static_cast<int64_t>(key.size())));
    }
    QVERIFY(lowest >= 1 && highest <= 50000);
    QVERIFY(lowest < 500 && highest > 49500);
    const double share = static_cast<double>(fiveDigits) / draws;  // 40001 / 50000
    QVERIFY2(std::abs(share - 0.80002) < 5 * std::sqrt(0.8 * 0.2 / draws),
             qPrintable(QString::number(share)));
    // Uniform on 1..50000: mean 25000.5, sd 14434 / sqrt(draws).
    QVERIFY(std::abs(sum / draws - 25000.5) < 5 * 14434.0 / std::sqrt(static_cast<double>(draws)));
    QCOMPARE(drawYarnKey(1, rng).size(), size_t(1));
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, drawYarnKey(19, rng));
    const auto letters = drawKeyFrom(U"abc", 5, rng);
    QCOMPARE(letters.size(), size_t(5));
    for (char32_t c : letters) QVERIFY(c == U'a' || c == U'b' || c == U'c');
  }

  // A trial passes when every key character is the model's argmax and its next argmax is not a
  // key character: greedy decoding then reads exactly the key, as YaRN's first run of digits.
  void theAnswerIsCheckedExactly() {
    const std::u32string digits = passkeyDigitCharacters();
    QVERIFY(zeroShotAnswerIsExact(U"71432", U"71432.", digits));
    QVERIFY(zeroShotAnswerIsExact(U"71432", U"71432\n", digits));
    QVERIFY(!zeroShotAnswerIsExact(U"71432", U"71433.", digits));  // one wrong digit
    QVERIFY(!zeroShotAnswerIsExact(U"71432", U"01432.", digits));
    QVERIFY(!zeroShotAnswerIsExact(U"71432", U"714320", digits));  // reads 714320
    QVERIFY(!zeroShotAnswerIsExact(U"7", U"71", digits));
    QVERIFY(zeroShotAnswerIsExact(U"7", U"7.", digits));
    QVERIFY(zeroShotAnswerIsExact(U"qbmxe", U"qbmxe.", U"abcdefghijklmnopqrstuvwxyz"));
    QVERIFY(!zeroShotAnswerIsExact(U"qbmxe", U"qbmxes", U"abcdefghijklmnopqrstuvwxyz"));
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument,
                             zeroShotAnswerIsExact(U"71432", U"71432", digits));
  }

  void aLengthTooShortIsRefusedNamingTheMinimum() {
    std::mt19937_64 rng(1);
    const int64_t minimum = minimumZeroShotPasskeyLength(5);
    QCOMPARE(minimum, int64_t(253));
    try {
      makeZeroShotPasskey(minimum - 1, U"71432", rng);
      QFAIL("a prompt shorter than its minimum was built");
    } catch (const std::invalid_argument& e) {
      QVERIFY2(QString(e.what()).contains("needs at least 253 characters, got 252"), e.what());
    }
    const auto s = makeZeroShotPasskey(minimum, U"71432", rng);  // no filler at all
    QCOMPARE(s.filler, int64_t(0));
    QCOMPARE(s.insertAt, int64_t(0));
  }

  // Hand-computed: z^2 = 3.841459, so at n = 10 the denominator 1 + z^2/n is 1.3841459.
  // 0/10: centre = half = (z^2/20) / 1.3841459 = 0.138767 -> [0, 0.277533].
  // 5/10: centre 0.5, half = z / 1.3841459 * sqrt(0.025 + z^2/400) = 0.263407 ->
  // [0.236593, 0.763407]. 10/10 mirrors 0/10: [0.722467, 1].
  void wilsonIntervalsAreTheHandComputedOnes() {
    struct Case {
      int64_t k, n;
      double low, high;
    };
    for (const auto& c : {Case{0, 10, 0.0, 0.277533}, Case{5, 10, 0.236593, 0.763407},
                          Case{10, 10, 0.722467, 1.0}}) {
      const auto i = metrics::wilsonInterval(c.k, c.n);
      QCOMPARE(i.estimate, static_cast<double>(c.k) / c.n);
      QVERIFY2(std::abs(i.low - c.low) < 1e-6 && std::abs(i.high - c.high) < 1e-6,
               qPrintable(QString("%1/%2: [%3, %4]").arg(c.k).arg(c.n).arg(i.low).arg(i.high)));
    }
  }

  // Independently: the interval's ends are the roots of (p^ - p)^2 = z^2 p (1 - p) / n, i.e. of
  // (1 + z^2/n) p^2 - (2 p^ + z^2/n) p + p^2 = 0; each contains p^ and narrows as n grows.
  void wilsonIntervalsSolveTheScoreEquationContainTheEstimateAndNarrowWithN() {
    const double z = metrics::kZ95;
    for (int64_t n : {1, 2, 7, 10, 64, 100, 1000})
      for (int64_t k = 0; k <= n; k += std::max<int64_t>(1, n / 9)) {
        const double p = static_cast<double>(k) / static_cast<double>(n);
        const double a = 1 + z * z / n, b = -(2 * p + z * z / n), c = p * p;
        const double root = std::sqrt(b * b - 4 * a * c);
        const auto i = metrics::wilsonInterval(k, n);
        QVERIFY(std::abs(i.low - (-b - root) / (2 * a)) < 1e-12);
        QVERIFY(std::abs(i.high - (-b + root) / (2 * a)) < 1e-12);
        QVERIFY(i.low <= i.estimate && i.estimate <= i.high);
        QVERIFY(i.low >= 0 && i.high <= 1);
      }
    for (const double share : {0.0, 0.25, 0.5, 1.0}) {
      double width = 2;
      for (int64_t n = 4; n <= 4096; n *= 2) {
        const auto i = metrics::wilsonInterval(static_cast<int64_t>(share * n), n);
        QVERIFY2(i.high - i.low < width, qPrintable(QString("%1 at n %2").arg(share).arg(n)));
        width = i.high - i.low;
      }
      QVERIFY(width < 0.04);
    }
    const auto none = metrics::wilsonInterval(0, 0);
    QVERIFY(std::isnan(none.estimate) && none.low == 0 && none.high == 1);
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, metrics::wilsonInterval(11, 10));
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, metrics::wilsonInterval(-1, 10));
  }
};

QTEST_APPLESS_MAIN(TestPasskey)
#include "test_passkey.moc"
