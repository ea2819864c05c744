// Tests core/engine/reference_check.h: a run's metrics against a preset's published figures.
#include <QTemporaryDir>
#include <QtTest>

#include <fstream>
#include <random>

#include "core/engine/figures_apart.h"
#include "core/engine/file_digest.h"
#include "core/engine/reference_check.h"

class TestReferenceCheck : public QObject {
  Q_OBJECT

  nlohmann::json reference() const {
    return nlohmann::json::parse(R"({"by": "dataset", "values": {
        "gmm2": {"test/kl": [0.146, 0.033], "test/smoothness": [0.038, null]}}})");
  }

 private slots:
  void withinAndOutsideTheSpread() {
    auto inside = fl::checkAgainstReference(reference(), {{"dataset", "gmm2"}},
                                            {{"test/kl", 0.17}, {"test/smoothness", 0.04}});
    QCOMPARE(inside.size(), size_t(2));
    const auto& kl = inside[0].metric == "test/kl" ? inside[0] : inside[1];
    QVERIFY(kl.withinSpread.value());
    QCOMPARE(kl.text,
             std::string("test/kl 0.170 vs paper 0.146 ± 0.033: within the paper's spread (|Δ| "
                         "0.024 <= 0.066 = 2 std)"));
    const auto& smooth = inside[0].metric == "test/kl" ? inside[1] : inside[0];
    QVERIFY(!smooth.withinSpread.has_value());  // no spread published: no verdict
    // One run of the paper's distribution lies within 2 SE of its mean: 2 std where the seed
    // count is not given, 2 std * sqrt(1 + 1/n) where it is (within ± std alone, a faithful
    // run read as outside about a third of the time).
    auto outside =
        fl::checkAgainstReference(reference(), {{"dataset", "gmm2"}}, {{"test/kl", 0.215}});
    QVERIFY(!outside.at(0).withinSpread.value());  // 0.069 > 2 x 0.033
    QCOMPARE(outside.at(0).bound, 0.066);
    auto overFour = reference();
    overFour["seeds"] = 4;
    auto within = fl::checkAgainstReference(overFour, {{"dataset", "gmm2"}}, {{"test/kl", 0.215}});
    QVERIFY(within.at(0).withinSpread.value());  // 0.069 <= 0.0738
    QCOMPARE(within.at(0).bound, 2 * 0.033 * std::sqrt(1.25));
    QVERIFY2(within.at(0).text.find("(|Δ| 0.069 <= 0.074 = 2 std √(1 + 1/4))") != std::string::npos,
             within.at(0).text.c_str());
    QVERIFY(!fl::checkAgainstReference(overFour, {{"dataset", "gmm2"}}, {{"test/kl", 0.25}})
                 .at(0)
                 .withinSpread.value());
  }

  // A run's smoothness 0.0044 from the paper's mean, 0.0042 allowed, read "(|Δ| 0.004 > 0.004)":
  // the verdict seemed to contradict its own figures. They get the places that tell them apart.
  void aVerdictsFiguresReadAsFarApartAsTheyAre() {
    const auto tight = nlohmann::json::parse(R"({"by": "dataset", "values": {
        "gmm2": {"test/smoothness": [0.038, 0.0019]}}, "seeds": 4})");
    const auto v =
        fl::checkAgainstReference(tight, {{"dataset", "gmm2"}}, {{"test/smoothness", 0.0336}});
    QVERIFY(!v.at(0).withinSpread.value());
    QCOMPARE(v.at(0).text, std::string("test/smoothness 0.034 vs paper 0.038 ± 0.0019: outside the "
                                       "paper's spread (|Δ| 0.0044 > 0.0042 = 2 std √(1 + 1/4))"));
  }

  // Over many pairs: unequal numbers never print alike (beyond nine places' resolution), the
  // usual three places are kept where they suffice, and the texts read back in the same order;
  // equal numbers print alike.
  void figuresApartTellUnequalNumbersApart() {
    std::mt19937 rng(20261206);
    std::uniform_real_distribution<double> unit(0, 1);
    std::uniform_int_distribution<int> scale(-4, 5);
    for (int i = 0; i < 5000; ++i) {
      const double a = unit(rng) * std::pow(10.0, scale(rng));
      const double b =
          i % 3 == 0 ? a * (1 + 1e-5 * unit(rng)) : unit(rng) * std::pow(10.0, scale(rng));
      const auto [first, second] = fl::figuresApart(a, b);
      if (std::abs(a - b) > std::max(1e-9, 1e-8 * std::max(a, b))) {
        QVERIFY2(first != second,
                 qPrintable(QString("%1 %2").arg(a, 0, 'g', 17).arg(b, 0, 'g', 17)));
        QCOMPARE(std::stod(first) < std::stod(second), a < b);
      }
      if (a >= 1e-3 && a < 1e4 && b >= 1e-3 && b < 1e4 && std::abs(a - b) > 0.002) {
        char three[32];
        std::snprintf(three, sizeof three, "%.3f", a);
        QCOMPARE(first, std::string(three));
      }
    }
    QCOMPARE(fl::figuresApart(0.25, 0.25).second, std::string("0.250"));
  }

  void otherRowsOrMissingMetricsGiveNothing() {
    QVERIFY(
        fl::checkAgainstReference(reference(), {{"dataset", "beta"}}, {{"test/kl", 0.1}}).empty());
    QVERIFY(fl::checkAgainstReference(reference(), {{"dataset", "gmm2"}}, {}).empty());
    QVERIFY(fl::checkAgainstReference(nullptr, {{"dataset", "gmm2"}}, {{"test/kl", 0.1}}).empty());
  }

  void theBestValueWhenThePaperReportsTheBest() {
    auto ref = reference();
    ref["stat"] = "min";
    auto v = fl::checkAgainstReference(ref, {{"dataset", "gmm2"}}, {{"test/kl", 0.3}},
                                       {{"test/kl", 0.15}});
    const auto& kl = v[0].metric == "test/kl" ? v[0] : v[1];
    QCOMPARE(kl.value, 0.15);
    QCOMPARE(kl.text,
             std::string("best test/kl 0.150 vs paper 0.146 ± 0.033: within the paper's spread "
                         "(|Δ| 0.004 <= 0.066 = 2 std)"));
    // Without a minimum recorded, the last value stands in.
    v = fl::checkAgainstReference(ref, {{"dataset", "gmm2"}}, {{"test/kl", 0.3}}, {});
    QCOMPARE(v.at(0).value, 0.3);
  }

  void describesTheExpectedFiguresBeforeARun() {
    auto ref = reference();
    ref["source"] = "Table 1";
    QCOMPARE(
        fl::describeReference(ref),
        std::string(
            "Expected (Table 1):\ndataset gmm2: test/kl 0.146 ± 0.033, test/smoothness 0.038"));
    QCOMPARE(fl::describeReference(nullptr), std::string());
  }

  void departuresNameEachParameterButNeverRunOrEvaluationSettings() {
    using P = fl::ParamSpec;
    const std::vector<P> specs = {
        P::integer("epochs", 500, 1, 1000, "").inGroup("training"),
        P::real("lr", 1e-3, 0.0, 1.0, "").inGroup("training"),
        P::choice("dataset", "gmm2", {"gmm2", "beta"}, "").inGroup("data"),
        P::integer("eval_every", 10, 1, 100, "").inGroup("evaluation"),
        P::integer("seed", 42, 0, 1000, "").inGroup("run")};
    const nlohmann::json paper = {
        {"epochs", 500}, {"lr", 0.001}, {"dataset", "gmm2"}, {"eval_every", 10}, {"seed", 42}};
    QVERIFY(fl::departuresFromPaper(specs, paper, "", paper).empty());
    auto mine = paper;
    mine["eval_every"] = 1;
    mine["seed"] = 7;
    mine["lr"] = 1e-3;  // the same number written another way
    QVERIFY(fl::departuresFromPaper(specs, paper, "", mine).empty());
    mine["epochs"] = 3;
    mine["dataset"] = "beta";
    QCOMPARE(fl::departuresFromPaper(specs, paper, "", mine),
             (std::vector<std::string>{"epochs 3 (the paper's 500)",
                                       "dataset beta (the paper's gmm2)"}));
    QVERIFY(fl::departuresFromPaper(specs, paper, "dataset", mine).size() == 1);  // the row key
  }

  // A paper's corpus is known by its bytes: a copy anywhere is the paper's data, no corpus (the
  // built-in text) or another text departs, said with the paper's file's name. The default ""
  // had passed as the paper's data, and the paper's own corpus departed by its path.
  void aPapersFileIsKnownByItsContentNotItsPath() {
    QTemporaryDir dir;
    const std::string text = "First Citizen:\nBefore we proceed any further, hear me speak.\n";
    auto write = [&](const std::string& name, const std::string& content) {
      const std::string path = dir.filePath(QString::fromStdString(name)).toStdString();
      std::ofstream(path, std::ios::binary) << content;
      return path;
    };
    const std::string paperCopy = write("tiny.txt", text);
    const std::string elsewhere = write("copy of it.txt", text);
    const std::string other = write("other.txt", text + "!");
    // FNV-1a over the bytes, computed here on its own.
    uint64_t h = 14695981039346656037ull;
    for (unsigned char c : text) h = (h ^ c) * 1099511628211ull;
    char expected[17];
    std::snprintf(expected, sizeof expected, "%016llx", static_cast<unsigned long long>(h));
    QCOMPARE(fl::fileDigest(paperCopy).value_or(""), std::string(expected));
    QCOMPARE(fl::fileDigest(elsewhere), fl::fileDigest(paperCopy));
    QVERIFY(fl::fileDigest(other) != fl::fileDigest(paperCopy));
    QVERIFY(!fl::fileDigest(dir.filePath("missing.txt").toStdString()));

    using P = fl::ParamSpec;
    const std::vector<P> specs = {P::text("corpus", "", "").inGroup("data"),
                                  P::integer("steps", 5000, 1, 100000, "").inGroup("training")};
    const nlohmann::json files = {{"corpus", {{"name", "the test text"}, {"digest", expected}}}};
    const nlohmann::json paper = {{"corpus", ""}, {"steps", 5000}};
    auto run = paper;
    QCOMPARE(fl::departuresFromPaper(specs, paper, "", run, "the paper's", files),
             (std::vector<std::string>{"corpus none given (the paper's the test text)"}));
    run["corpus"] = elsewhere;
    QVERIFY(fl::departuresFromPaper(specs, paper, "", run, "the paper's", files).empty());
    QVERIFY(fl::isPresetConfig(specs, nlohmann::json::object(), "", run, files));
    run["corpus"] = other;
    QCOMPARE(fl::departuresFromPaper(specs, paper, "", run, "the paper's", files),
             (std::vector<std::string>{"corpus " + other + " (the paper's the test text)"}));
    QVERIFY(!fl::isPresetConfig(specs, nlohmann::json::object(), "", run, files));
    // Without files named, a path is compared as any setting.
    run["corpus"] = elsewhere;
    QCOMPARE(fl::departuresFromPaper(specs, paper, "", run).size(), size_t(1));
    // Said before a run, with where to give the file.
    auto ref = reference();
    ref["files"] = files;
    QVERIFY2(fl::describeReference(ref).find("On the test text: give its file as corpus") !=
                 std::string::npos,
             fl::describeReference(ref).c_str());
    QCOMPARE(fl::paperFiles(ref), files);
    QCOMPARE(fl::paperFiles(reference()), nlohmann::json::object());
  }

  void verdictsJoinInOneLine() {
    auto v = fl::checkAgainstReference(reference(), {{"dataset", "gmm2"}},
                                       {{"test/kl", 0.2}, {"test/smoothness", 0.04}});
    QCOMPARE(fl::joinVerdicts(v), v[0].text + "; " + v[1].text);
    QCOMPARE(fl::joinVerdicts({}), std::string());
  }
};

QTEST_APPLESS_MAIN(TestReferenceCheck)
#include "test_reference_check.moc"
