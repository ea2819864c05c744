// Tests core/engine/config.h and param_spec.h: defaults, rejection messages that name the key
// and the allowed values, KEY=VALUE parsing, presets.
#include <QtTest>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <random>

#include "core/engine/config.h"
#include "core/engine/config_diff.h"
#include "core/engine/registry.h"
#include "core/engine/run_name.h"
#include "experiments/builtin_experiments.h"
#include "experiments/common/training_memory.h"

using fl::ParamSpec;

class TestConfig : public QObject {
  Q_OBJECT

  std::vector<ParamSpec> specs() const {
    auto s = std::vector<ParamSpec>{
        ParamSpec::integer("epochs", 500, 1, 1000, "passes"),
        ParamSpec::real("lr", 1e-3, 0.0, 1.0, "learning rate").exclusiveMinimum(),
        ParamSpec::choice("head", "fourier", {"linear", "fourier", "gmm"}, "head"),
        ParamSpec::flag("learnable", false, "train it"),
    };
    for (auto& r : fl::runParams()) s.push_back(r);
    return s;
  }

 private slots:
  // A file's path is stored absolute; "~" is the home folder as a shell reads it (the window's
  // form has none: "~/data/input.txt" became "<working folder>/~/data/input.txt").
  void aFilePathIsStoredAbsoluteWithItsHomeExpanded() {
    const std::vector<fl::ParamSpec> specs{
        fl::ParamSpec::text("corpus", "", "a text file").namesAFile()};
    const auto pathOf = [&](const std::string& given) {
      const auto c = fl::validateConfig(specs, {{"corpus", given}});
      return c.ok() ? c.values.at("corpus").get<std::string>() : std::string("(refused)");
    };
    const std::string home = qEnvironmentVariable("HOME").toStdString();
    QVERIFY(!home.empty());
    QCOMPARE(pathOf("~/data/input.txt"), home + "/data/input.txt");
    QCOMPARE(pathOf("~"), home);
    QCOMPARE(pathOf("/abs/./x.txt"), std::string("/abs/x.txt"));
    QCOMPARE(pathOf("rel.txt"), (std::filesystem::current_path() / "rel.txt").string());
    QCOMPARE(pathOf("~other/x"), (std::filesystem::current_path() / "~other/x").string());
    QCOMPARE(pathOf(""), std::string());  // none: the built-in text
  }

  // A setting as the window and the tables write it: History wrote a float's JSON dump,
  // "10000.0", where the form said 10000. Over many doubles the text reads back exactly.
  void aSettingIsWrittenInItsShortestExactForm() {
    QCOMPARE(fl::settingText(10000.0), std::string("10000"));
    QCOMPARE(fl::settingText(0.0), std::string("0"));
    QCOMPARE(fl::settingText(0.1), std::string("0.1"));
    QCOMPARE(fl::settingText(0.0003), std::string("0.0003"));
    QCOMPARE(fl::settingText(1e-6), std::string("1e-06"));
    QCOMPARE(fl::settingText(-2.5), std::string("-2.5"));
    QCOMPARE(fl::settingText(12), std::string("12"));
    QCOMPARE(fl::settingText("gmm2"), std::string("gmm2"));
    QCOMPARE(fl::settingText(true), std::string("true"));
    std::mt19937_64 rng(20261207);
    std::uniform_real_distribution<double> mantissa(-10, 10);
    std::uniform_int_distribution<int> exponent(-12, 12);
    for (int i = 0; i < 20000; ++i) {
      const double v = mantissa(rng) * std::pow(10.0, exponent(rng));
      const std::string text = fl::settingText(v);
      QVERIFY2(std::strtod(text.c_str(), nullptr) == v, text.c_str());
      QVERIFY2(text.size() <= 24, text.c_str());
    }
  }

  void defaultsFillEveryKey() {
    auto c = fl::validateConfig(specs(), nlohmann::json::object());
    QVERIFY(c.ok());
    QCOMPARE(c.values["epochs"].get<int>(), 500);
    QCOMPARE(c.values["head"].get<std::string>(), std::string("fourier"));
    QCOMPARE(c.values["seed"].get<int>(), 42);
    QCOMPARE(c.values["device"].get<std::string>(), std::string("auto"));
  }

  void badValuesAreRejected_data() {
    QTest::addColumn<QString>("json");
    QTest::addColumn<QString>("key");
    QTest::addColumn<QString>("expectedFragment");
    QTest::newRow("unknown key") << R"({"epoch": 3})"
                                 << "epoch"
                                 << "unknown parameter 'epoch' (known: epochs, lr";
    QTest::newRow("int out of range") << R"({"epochs": 0})"
                                      << "epochs"
                                      << "'epochs' must be an integer in [1, 1000], got 0";
    QTest::newRow("int not whole") << R"({"epochs": 2.5})"
                                   << "epochs"
                                   << "must be an integer";
    QTest::newRow("wrong type") << R"({"epochs": "ten"})"
                                << "epochs"
                                << "got \"ten\"";
    QTest::newRow("exclusive minimum") << R"({"lr": 0})"
                                       << "lr"
                                       << "'lr' must be a number in (0, 1], got 0";
    QTest::newRow("bad choice") << R"({"head": "mlp"})"
                                << "head"
                                << "'head' must be one of linear, fourier, gmm, got \"mlp\"";
    QTest::newRow("bool as string") << R"({"learnable": "yes"})"
                                    << "learnable"
                                    << "must be true or false";
    QTest::newRow("bad device") << R"({"device": "gpu"})"
                                << "device"
                                << "device must be auto, cpu, cuda or cuda:N, got 'gpu'";
    QTest::newRow("negative seed") << R"({"seed": -1})"
                                   << "seed"
                                   << "'seed' must be an integer in [0, 2147483647], got -1";
    QTest::newRow("huge seed") << R"({"seed": 3000000000})"
                               << "seed"
                               << "'seed' must be an integer in [0, 2147483647], got 3000000000";
  }
  void badValuesAreRejected() {
    QFETCH(QString, json);
    QFETCH(QString, key);
    QFETCH(QString, expectedFragment);
    auto c = fl::validateConfig(specs(), nlohmann::json::parse(json.toStdString()));
    QVERIFY(!c.ok());
    QCOMPARE(c.issues.size(), size_t(1));
    QCOMPARE(QString::fromStdString(c.issues[0].key), key);
    QVERIFY2(c.issues[0].message.find(expectedFragment.toStdString()) != std::string::npos,
             c.issues[0].message.c_str());
  }

  void everyIssueIsReportedNotOnlyTheFirst() {
    auto c = fl::validateConfig(specs(), {{"epochs", 0}, {"lr", 5}, {"nope", 1}});
    QCOMPARE(c.issues.size(), size_t(3));
  }

  void nonObjectConfigIsRejected() {
    auto c = fl::validateConfig(specs(), nlohmann::json::array({1, 2}));
    QVERIFY(!c.ok());
    QVERIFY(c.summary().find("must be a JSON object") != std::string::npos);
  }

  void integersGivenAsFloatsAreStoredAsIntegers() {
    auto c = fl::validateConfig(specs(), {{"epochs", 3.0}});
    QVERIFY(c.ok());
    QVERIFY(c.values["epochs"].is_number_integer());
  }

  void assignmentsParseByType_data() {
    QTest::addColumn<QString>("assignment");
    QTest::addColumn<QString>("expectedJson");
    QTest::newRow("int") << "epochs=12"
                         << "12";
    QTest::newRow("int with a sign") << "epochs=+12"
                                     << "12";
    QTest::newRow("float") << "lr=2.5e-4"
                           << "0.00025";
    QTest::newRow("float without a leading digit") << "lr=.5"
                                                   << "0.5";
    QTest::newRow("choice") << "head=gmm"
                            << "\"gmm\"";
    QTest::newRow("bool") << "learnable=true"
                          << "true";
    QTest::newRow("device ordinal") << "device=cuda:1"
                                    << "\"cuda:1\"";
  }
  void assignmentsParseByType() {
    QFETCH(QString, assignment);
    QFETCH(QString, expectedJson);
    nlohmann::json overrides = nlohmann::json::object();
    auto issue = fl::applyAssignment(specs(), assignment.toStdString(), overrides);
    QVERIFY2(!issue, issue ? issue->message.c_str() : "");
    const auto key = assignment.section('=', 0, 0).toStdString();
    QCOMPARE(overrides[key], nlohmann::json::parse(expectedJson.toStdString()));
  }

  void malformedAssignmentsAreRejected_data() {
    QTest::addColumn<QString>("assignment");
    QTest::addColumn<QString>("expectedFragment");
    QTest::newRow("no equals") << "epochs"
                               << "expected KEY=VALUE";
    QTest::newRow("empty key") << "=3"
                               << "expected KEY=VALUE";
    QTest::newRow("unknown") << "epoks=3"
                             << "unknown parameter 'epoks'";
    QTest::newRow("not a number") << "lr=fast"
                                  << "'lr' must be a number in (0, 1], got 'fast'";
    QTest::newRow("trailing junk") << "epochs=12x"
                                   << "'epochs' must be an integer";
    QTest::newRow("empty value") << "epochs="
                                 << "'epochs' must be an integer";
    // Strict values. Each used to be accepted (0x10 as 16, yes as true, inf, a NaN said as
    // "null", an overflow said as -9223372036854775808); each is refused quoting what was typed.
    QTest::newRow("hex integer") << "epochs=0x10"
                                 << "'epochs' must be an integer in [1, 1000], got '0x10'";
    QTest::newRow("integer in e-notation") << "epochs=1e2"
                                           << "got '1e2'";
    QTest::newRow("integer with a space") << "epochs= 12"
                                          << "got ' 12'";
    QTest::newRow("integer overflow")
        << "epochs=99999999999999999999"
        << "'epochs' must be an integer in [1, 1000], got '99999999999999999999'";
    QTest::newRow("integer out of range") << "epochs=5000"
                                          << "got '5000'";
    QTest::newRow("bool yes") << "learnable=yes"
                              << "'learnable' must be true or false, got 'yes'";
    QTest::newRow("bool on") << "learnable=on"
                             << "got 'on'";
    QTest::newRow("bool 1") << "learnable=1"
                            << "got '1'";
    QTest::newRow("float nan") << "lr=nan"
                               << "'lr' must be a number in (0, 1], got 'nan'";
    QTest::newRow("float inf") << "lr=inf"
                               << "got 'inf'";
    QTest::newRow("float hex") << "lr=0x1p-3"
                               << "got '0x1p-3'";
    QTest::newRow("float overflow") << "lr=1e999"
                                    << "got '1e999'";
    QTest::newRow("float out of range") << "lr=2.50"
                                        << "got '2.50'";
  }
  void malformedAssignmentsAreRejected() {
    QFETCH(QString, assignment);
    QFETCH(QString, expectedFragment);
    nlohmann::json overrides = nlohmann::json::object();
    auto issue = fl::applyAssignment(specs(), assignment.toStdString(), overrides);
    QVERIFY(issue.has_value());
    QVERIFY2(issue->message.find(expectedFragment.toStdString()) != std::string::npos,
             issue->message.c_str());
  }

  // Found by fuzz/fuzz_config.cpp: bytes that are not UTF-8 in a typed value aborted the
  // program (nlohmann's dump throws on them while the message was being written). Refused, with
  // the bytes shown as U+FFFD; both for a choice and for free text.
  void valuesThatAreNotUtf8AreRefusedWithAMessage() {
    for (const std::string assignment : {"head=\xff\xfe", "device=cu\x07\xff"}) {
      nlohmann::json overrides = nlohmann::json::object();
      auto issue = fl::applyAssignment(specs(), assignment, overrides);
      QVERIFY(issue.has_value());
      QVERIFY2(issue->message.find("\xef\xbf\xbd") != std::string::npos, issue->message.c_str());
      QVERIFY(!overrides.dump().empty());  // nothing unprintable was stored
    }
  }

  void presetThenAssignmentsInOrder() {
    fl::ExperimentRegistry registry;
    fl::registerBuiltinExperiments(registry);
    auto e = registry.find("fourier-head");
    QVERIFY(e);
    auto c = fl::buildConfig(*e, "paper-linear", {"dataset=beta", "epochs=7"});
    QVERIFY2(c.ok(), c.summary().c_str());
    QCOMPARE(c.values["head"].get<std::string>(), std::string("linear"));
    QCOMPARE(c.values["dataset"].get<std::string>(), std::string("beta"));
    QCOMPARE(c.values["epochs"].get<int>(), 7);
    // A later assignment wins over the preset.
    auto d = fl::buildConfig(*e, "paper-linear", {"head=gmm"});
    QCOMPARE(d.values["head"].get<std::string>(), std::string("gmm"));
  }

  // A key set twice used to be silently the last one; the CLI's --device counts as device=.
  void aKeySetTwiceIsRefused() {
    fl::ExperimentRegistry registry;
    fl::registerBuiltinExperiments(registry);
    auto c = fl::buildConfig(*registry.find("fourier-head"), "", {"seed=1", "epochs=3", "seed=2"});
    QVERIFY(!c.ok());
    QCOMPARE(c.issues.size(), size_t(1));
    QCOMPARE(c.issues[0].key, std::string("seed"));
    QVERIFY2(c.summary().find("'seed' is set twice ('seed=1', then 'seed=2')") != std::string::npos,
             c.summary().c_str());
  }

  void unknownPresetNamesTheKnownOnes() {
    fl::ExperimentRegistry registry;
    fl::registerBuiltinExperiments(registry);
    auto c = fl::buildConfig(*registry.find("fourier-head"), "paper-fourrier", {});
    QVERIFY(!c.ok());
    QVERIFY2(c.summary().find("unknown preset 'paper-fourrier'") != std::string::npos &&
                 c.summary().find("paper-fourier") != std::string::npos,
             c.summary().c_str());
  }

  void configDiffNamesNestedAddedAndRemovedKeys() {
    const nlohmann::json a = {{"lr", 0.01},
                              {"seed", 1},
                              {"head", "fourier"},
                              {"optim", {{"beta", 0.9}, {"eps", 1e-8}}},
                              {"only_a", true}};
    nlohmann::json b = a;
    b["optim"]["beta"] = 0.95;  // nested: the whole key differs
    b.erase("only_a");          // removed: set against unset
    b["only_b"] = nullptr;      // an explicit null is what a missing key reads as
    b["added"] = 3;             // added
    b["seed"] = 1.0;            // the same number written as a float
    const nlohmann::json notAnObject = nlohmann::json::array();
    QCOMPARE(fl::differingConfigKeys({&a, &b}),
             (std::vector<std::string>{"added", "only_a", "optim"}));
    QCOMPARE(fl::differingConfigKeys({&a, &a}), std::vector<std::string>{});
    QCOMPARE(fl::differingConfigKeys({&a}), std::vector<std::string>{});
    QCOMPARE(fl::differingConfigKeys({}), std::vector<std::string>{});
    // A config that is not an object has every key unset.
    QCOMPARE(fl::differingConfigKeys({&notAnObject, &b}),
             (std::vector<std::string>{"added", "head", "lr", "optim", "seed"}));
    QVERIFY(fl::configValue(a, "lr") == nlohmann::json(0.01));
    QVERIFY(fl::configValue(b, "only_a").is_null());
    QVERIFY(fl::configValue(notAnObject, "lr").is_null());
  }

  // A parameter with a condition is used only while the value it depends on is one of the
  // condition's; comparisons leave the others' values out.
  // A run without a --name is named by where its settings came from and what was changed.
  void anUnnamedRunIsNamedByItsSettings() {
    const nlohmann::json preset = {{"epochs", 500},    {"samples", 5000}, {"head", "fourier"},
                                   {"device", "auto"}, {"seed", 0},       {"lr", 0.01}};
    QCOMPARE(fl::settingsName("paper-fourier", preset, preset), std::string("paper-fourier"));
    QCOMPARE(fl::settingsName("", preset, preset), std::string("defaults"));
    nlohmann::json edited = preset;
    edited["samples"] = 400;
    edited["epochs"] = 2;
    edited["device"] = "cuda:0";  // where it trains does not make it another experiment
    QCOMPARE(fl::settingsName("paper-fourier", preset, edited),
             std::string("paper-fourier, edited: epochs 2, samples 400"));
    edited["head"] = "linear";  // a text value without quotes
    QCOMPARE(fl::settingsName("", preset, edited),
             std::string("defaults, edited: epochs 2, head linear, samples 400"));
    edited["seed"] = 3;
    edited["lr"] = 0.5;
    QCOMPARE(fl::settingsName("", preset, edited),
             std::string("defaults, edited: epochs 2, head linear, lr 0.5 and 2 more"));
    QCOMPARE(fl::withoutEdits("paper-fourier, edited: epochs 2"), std::string("paper-fourier"));
    QCOMPARE(fl::withoutEdits("paper-fourier"), std::string("paper-fourier"));
    // A legend drops the edits every run shares, one setting at a time: "samples 2000" told
    // no run from another, and elided in the middle it hid "epochs 600", which did.
    const std::string named = "demo, edited: epochs 600, samples 2000";
    QCOMPARE(fl::editList(named, preset), (std::vector<std::string>{"epochs 600", "samples 2000"}));
    const std::map<std::string, int> twoRuns{{"epochs 600", 1}, {"samples 2000", 2}};
    QCOMPARE(fl::compactName(named, preset, twoRuns, 2), std::string("demo · epochs 600"));
    QCOMPARE(fl::compactName(named, preset, {{"epochs 600", 2}, {"samples 2000", 2}}, 2),
             std::string("demo"));
    // Beside runs without edits (a comparison's arms) both tell it apart: the one fewer runs
    // have comes last, where a name cut to a legend's width keeps its end.
    QCOMPARE(fl::compactName(named, preset, twoRuns, 5),
             std::string("demo · samples 2000, epochs 600"));
    QCOMPARE(fl::compactName(named, preset, {}, 5), std::string("demo · epochs 600, samples 2000"));
    QVERIFY(fl::editList("paper-fourier", preset).empty());
    const std::string many = "defaults, edited: epochs 2, head linear, lr 0.5 and 2 more";
    QCOMPARE(fl::editList(many, preset),
             (std::vector<std::string>{"epochs 2", "head linear", "lr 0.5", "and 2 more"}));
    // "and 2 more" tells nothing apart where an edit is left to name.
    QCOMPARE(fl::compactName(many, preset, {{"epochs 2", 3}, {"lr 0.5", 3}}, 3),
             std::string("defaults · head linear"));
    QCOMPARE(fl::compactName(many, preset, {{"epochs 2", 3}, {"head linear", 3}, {"lr 0.5", 3}}, 3),
             std::string("defaults · 2 more"));
    // Nor where the name before the edits is this run's alone ("RoPE" beside "FoPE"): the
    // legends read "RoPE · 1 more", cut at 1280x720 to the run id and "…re".
    QCOMPARE(fl::compactName(many, preset, {{"epochs 2", 3}, {"head linear", 3}, {"lr 0.5", 3}}, 3,
                             /*nameTellsApart=*/true),
             std::string("defaults"));
    QCOMPARE(fl::compactName("fourier N=12, edited: epochs 20", preset, {}, 2),
             std::string("fourier N=12 · epochs 20"));
    // What sets the runs apart and may hide in "and 2 more" is named in its place: the lr that
    // told a run apart had been hidden ("demo · dataset beta, head gmm").
    QCOMPARE(fl::compactName(many, edited, {{"epochs 2", 3}}, 3, false, {"head", "lr", "seed"}),
             std::string("defaults · head linear, lr 0.5, seed 3"));
    QCOMPARE(fl::compactName(many, edited, {{"epochs 2", 3}, {"head linear", 3}, {"lr 0.5", 3}}, 3,
                             false, {"seed"}),
             std::string("defaults · seed 3"));
    // A value holding ", " stays whole: an edit is a key and its value in the config.
    nlohmann::json commas = preset;
    commas["head"] = "a, b";
    commas["lr"] = 0.5;
    QCOMPARE(fl::editList("defaults, edited: head a, b, lr 0.5", commas),
             (std::vector<std::string>{"head a, b", "lr 0.5"}));
    // A name typed by hand, not as the config reads, is cut at each ", ".
    QCOMPARE(fl::editList("defaults, edited: my own, words", preset),
             (std::vector<std::string>{"my own", "words"}));
    // Every name settingsName makes splits into its edits, each a key and its value, values
    // with ", " in them too.
    std::mt19937 rng(7);
    const std::vector<std::string> texts{"linear", "a, b", "x, lr 3", "2, 5, 10"};
    for (int trial = 0; trial < 300; ++trial) {
      nlohmann::json random = preset;
      for (const char* key : {"samples", "epochs", "lr", "seed", "head"})
        if (rng() % 2)
          random[key] = key == std::string("head") ? nlohmann::json(texts[rng() % texts.size()])
                                                   : nlohmann::json(rng() % 1000 + 1000);
      const std::string made = fl::settingsName("demo", preset, random);
      const auto edits = fl::editList(made, random);
      std::vector<std::string> expected;
      for (const auto& key : fl::differingConfigKeys({&preset, &random})) {
        if (key == "device") continue;
        const auto& v = random.at(key);
        expected.push_back(key + " " + (v.is_string() ? v.get<std::string>() : v.dump()));
      }
      if (expected.size() > 3) {
        const size_t more = expected.size() - 3;
        expected.resize(3);
        expected.push_back("and " + std::to_string(more) + " more");
      }
      QVERIFY2(edits == expected, made.c_str());
    }
    // Only the device changed: the run is the preset's.
    nlohmann::json moved = preset;
    moved["device"] = "cpu";
    QCOMPARE(fl::settingsName("paper-fourier", preset, moved), std::string("paper-fourier"));
  }

  // A run named "defaults" beside "defaults · frequencies 4" and "defaults · frequencies 8"
  // names its own N: read alone it looked as though nothing set it apart.
  void aRunWithoutEditsNamesWhatItsNamesakesLegendsName() {
    const nlohmann::json plain = {{"frequencies", 12}, {"epochs", 3}, {"seed", 1}};
    const nlohmann::json four = {{"frequencies", 4}, {"epochs", 3}, {"seed", 1}};
    const nlohmann::json eight = {{"frequencies", 8}, {"epochs", 3}, {"seed", 2}};
    const nlohmann::json paper = {{"frequencies", 12}, {"epochs", 500}, {"seed", 1}};
    std::vector<fl::LegendRun> runs{
        {"defaults", "defaults", &plain, {"frequencies", "seed", "epochs"}},
        {"defaults, edited: frequencies 4", "defaults · frequencies 4", &four, {"frequencies"}},
        {"defaults, edited: frequencies 8, seed 2",
         "defaults · frequencies 8, seed 2",
         &eight,
         {"frequencies", "seed"}},
        {"paper-fourier", "paper-fourier", &paper, {"frequencies", "seed", "epochs"}}};
    fl::nameWhatNamesakesName(runs);
    // Its values of what the namesakes' legends name and that sets the runs apart, what tells
    // it from the most of them last (a cut legend keeps its end); not the epochs no legend of
    // its name names.
    QCOMPARE(runs[0].legend, std::string("defaults · seed 1, frequencies 12"));
    QCOMPARE(runs[1].legend, std::string("defaults · frequencies 4"));  // named with edits
    QCOMPARE(runs[2].legend, std::string("defaults · frequencies 8, seed 2"));
    // Another name tells itself apart; the namesakes' legends are not its own.
    QCOMPARE(runs[3].legend, std::string("paper-fourier"));
    // A setting that does not set the runs apart is not named, whatever a legend says.
    runs[0] = {"defaults", "defaults", &plain, {}};
    fl::nameWhatNamesakesName(runs);
    QCOMPARE(runs[0].legend, std::string("defaults"));
  }

  void aConditionalParameterIsUsedOnlyWhenItsConditionHolds() {
    const std::vector<ParamSpec> specs{
        ParamSpec::choice("head", "fourier", {"linear", "fourier", "gmm"}, "head"),
        ParamSpec::integer("frequencies", 12, 1, 64, "N").usedOnlyWhen("head", {"fourier"}),
        ParamSpec::flag("learnable", false, "train it"),
        ParamSpec::real("gain", 0.3, 0.0, 1.0, "g").usedOnlyWhen("learnable", {"true"}),
        ParamSpec::real("width", 2, 0.1, 9, "w").usedOnlyWhen("head", {"fourier", "gmm"})};
    QCOMPARE(specs[1].conditionDescription(), std::string("used only when head is fourier"));
    QCOMPARE(specs[4].conditionDescription(), std::string("used only when head is fourier or gmm"));
    QCOMPARE(specs[0].conditionDescription(), std::string());
    const nlohmann::json linear = {
        {"head", "linear"}, {"frequencies", 8}, {"learnable", true}, {"gain", 0.5}, {"width", 3}};
    QVERIFY(!fl::isUsed(specs[1], linear));
    QVERIFY(fl::isUsed(specs[3], linear));  // a flag's value read as "true"
    QVERIFY(!fl::isUsed(specs[4], linear));
    QVERIFY(fl::isUsed(specs[0], linear));                              // no condition
    QVERIFY(fl::isUsed(specs[1], nlohmann::json{{"frequencies", 8}}));  // an older run's config
    QCOMPARE(fl::comparedValues(specs, linear), (nlohmann::json{{"head", "linear"},
                                                                {"frequencies", "(not used)"},
                                                                {"learnable", true},
                                                                {"gain", 0.5},
                                                                {"width", "(not used)"}}));
    // Two linear runs that differ only in values neither uses are not set apart; beside them a
    // Fourier run differs by its head, and two Fourier runs by the frequencies they use.
    nlohmann::json otherLinear = linear;
    otherLinear["frequencies"] = 40;
    otherLinear["width"] = 7;
    nlohmann::json fourier = linear;
    fourier["head"] = "fourier";
    nlohmann::json otherFourier = fourier;
    otherFourier["frequencies"] = 16;
    const auto a = fl::comparedValues(specs, linear), b = fl::comparedValues(specs, otherLinear),
               c = fl::comparedValues(specs, fourier), d = fl::comparedValues(specs, otherFourier);
    QCOMPARE(fl::differingConfigKeys({&a, &b}), std::vector<std::string>{});
    QCOMPARE(fl::differingConfigKeys({&a, &b, &c}), std::vector<std::string>{"head"});
    QCOMPARE(fl::differingConfigKeys({&a, &c, &d}),
             (std::vector<std::string>{"frequencies", "head"}));
    QCOMPARE(fl::differingConfigKeys({&c, &d}), std::vector<std::string>{"frequencies"});
    // Unused matches a key another config lacks too: only a config that uses it can differ.
    const nlohmann::json older = {{"head", "linear"}, {"learnable", true}, {"gain", 0.5}};
    QCOMPARE(fl::differingConfigKeys({&a, &older}), std::vector<std::string>{});
  }

  // A transformer too large for the device is refused before anything is allocated, by its
  // weights, gradients and Adam moments alone (16 bytes a parameter); the defaults train.
  void aTransformerLargerThanTheDeviceIsRefused() {
    fl::ExperimentRegistry registry;
    fl::registerBuiltinExperiments(registry);
    const nlohmann::json huge = {{"d_model", 8192}, {"layers", 128}, {"device", "cpu"}};
    QCOMPARE(fl::transformer_setup::trainingMemoryFloor(
                 {{"d_model", 8192}, {"layers", 128}, {"mlp_ratio", 4}}),
             uint64_t(128) * (4 + 2 * 4) * 8192 * 8192 * 16);
    for (const char* name : {"fope", "fourier-qk", "addition"}) {
      const auto experiment = registry.find(name);
      const auto refused = fl::validateRunConfig(*experiment, huge);
      bool named = false;
      for (const auto& issue : refused.issues)
        named = named ||
                (issue.key == "d_model" &&
                 issue.message.find("makes at least 103 billion parameters") != std::string::npos &&
                 issue.message.find("the device ('cpu') has") != std::string::npos);
      QVERIFY2(named, (std::string(name) + ": " + refused.summary()).c_str());
      QVERIFY2(fl::validateRunConfig(*experiment, {{"device", "cpu"}}).ok(), name);
    }
  }

  // A min_lr above lr made the cosine "decay" raise the learning rate, and each value alone
  // was in range: refused at min_lr, naming both; min_lr equal to lr (a constant rate) trains.
  void aMinimumLearningRateAboveThePeakIsRefused() {
    fl::ExperimentRegistry registry;
    fl::registerBuiltinExperiments(registry);
    for (const char* name : {"fope", "fourier-qk", "addition"}) {
      const auto experiment = registry.find(name);
      const auto refused =
          fl::validateRunConfig(*experiment, {{"lr", 0.001}, {"min_lr", 0.05}, {"device", "cpu"}});
      QVERIFY2(!refused.ok(), name);
      QCOMPARE(refused.issues.front().key, std::string("min_lr"));
      QCOMPARE(refused.issues.front().message,
               std::string("'min_lr'=0.05 is above 'lr'=0.001: the cosine decay would raise the "
                           "learning rate; give a min_lr at most lr"));
      QVERIFY2(
          fl::validateRunConfig(*experiment, {{"lr", 0.001}, {"min_lr", 0.001}, {"device", "cpu"}})
              .ok(),
          name);
    }
  }

  // A run's name leaves out the settings it does not use and names its edits in the Configure
  // form's order: a linear head with frequencies 4 was "defaults, edited: epochs 20,
  // frequencies 4, head linear" (alphabetical), which read as a Fourier head of N = 4, and a
  // fourth edit hid what the run was ("dataset gaussian, epochs 20, head gmm and 1 more").
  void aRunsNameLeavesOutWhatItDoesNotUse() {
    fl::ExperimentRegistry registry;
    fl::registerBuiltinExperiments(registry);
    const auto experiment = registry.find("fourier-head");
    QVERIFY(experiment);
    const auto specs = experiment->allParams();
    const nlohmann::json start = fl::validateConfig(specs, nlohmann::json::object()).values;
    const auto named = [&](const nlohmann::json& overrides) {
      return fl::settingsName("", start, fl::validateConfig(specs, overrides).values, specs);
    };
    QCOMPARE(named({{"head", "linear"}, {"frequencies", 4}, {"epochs", 20}}),
             std::string("defaults, edited: head linear, epochs 20"));
    QCOMPARE(named({{"head", "gmm"}, {"dataset", "gaussian"}, {"epochs", 20}, {"lr", 0.002}}),
             std::string("defaults, edited: dataset gaussian, head gmm, epochs 20 and 1 more"));
    // A Fourier head's frequencies are its own: named.
    QCOMPARE(named({{"frequencies", 4}}), std::string("defaults, edited: frequencies 4"));
    QCOMPARE(named(nlohmann::json::object()), std::string("defaults"));
  }

  // Every built-in condition depends on a choice or flag of the same experiment, by values it
  // can take, and never on itself: a misspelt key or value would grey a parameter for good.
  void everyBuiltinConditionNamesAValueItsKeyCanTake() {
    fl::ExperimentRegistry registry;
    fl::registerBuiltinExperiments(registry);
    int conditions = 0;
    for (const auto& e : registry.all()) {
      const auto params = e->allParams();
      for (const auto& p : params) {
        if (!p.condition) continue;
        ++conditions;
        const auto where = e->name() + ": " + p.name;
        const ParamSpec* key = fl::findParam(params, p.condition->key);
        QVERIFY2(key && key->name != p.name, where.c_str());
        QVERIFY2(!p.condition->values.empty(), where.c_str());
        for (const auto& value : p.condition->values) {
          const bool allowed =
              key->type == fl::ParamType::Choice
                  ? std::find(key->choices.begin(), key->choices.end(), value) != key->choices.end()
                  : key->type == fl::ParamType::Bool && (value == "true" || value == "false");
          QVERIFY2(allowed, (where + " depends on " + key->name + "=" + value).c_str());
        }
        // The default config of its experiment, with the key at each of the condition's
        // values, uses it.
        auto config = fl::validateConfig(params, nlohmann::json::object()).values;
        for (const auto& value : p.condition->values) {
          config[key->name] = key->type == fl::ParamType::Bool ? nlohmann::json(value == "true")
                                                               : nlohmann::json(value);
          QVERIFY2(fl::isUsed(p, config), where.c_str());
        }
      }
    }
    QVERIFY(conditions >= 17);  // the Fourier head's three, FoPE's five, FourierQK's seven, ...
  }
};

QTEST_APPLESS_MAIN(TestConfig)
#include "test_config.moc"
