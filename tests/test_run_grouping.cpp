// Tests how the plots group runs (app/gui/run_grouping.h): the seeds of one setting fall in one
// group labelled by what sets it apart, a config key groups by its value (a run lacking it with
// the others lacking it), a study groups its runs and leaves a run of no study alone, groups
// come in the order of their first members; the choice's name reads back. The mean band is held
// against a direct computation over many random sets of curves whose x only partly agree.
#include <QtTest>

#include <cmath>
#include <map>
#include <optional>
#include <random>
#include <set>

#include "app/gui/run_grouping.h"
#include "core/engine/config_diff.h"

using fl::gui::GroupBy;
using fl::gui::GroupedRun;
using fl::gui::groupRuns;
using fl::gui::meanBand;

class TestRunGrouping : public QObject {
  Q_OBJECT

 private slots:
  void theSeedsOfOneSettingFormOneGroup() {
    const nlohmann::json a1{{"head", "fourier"}, {"bins", 12}, {"seed", 1}};
    const nlohmann::json l1{{"head", "linear"}, {"bins", 12}, {"seed", 1}};
    const nlohmann::json a2{{"head", "fourier"}, {"bins", 12}, {"seed", 2}};
    const nlohmann::json l2{{"head", "linear"}, {"bins", 12}, {"seed", 2}};
    const auto groups = groupRuns({{7, &a1, {}}, {8, &l1, {}}, {9, &a2, {}}, {10, &l2, {}}},
                                  {GroupBy::Kind::Setting, {}});
    QCOMPARE(groups.size(), size_t(2));
    QCOMPARE(groups[0].label, std::string("head=fourier"));  // bins is the same: not named
    QCOMPARE(groups[0].members, (std::vector<int64_t>{7, 9}));
    QCOMPARE(groups[1].label, std::string("head=linear"));
    QCOMPARE(groups[1].members, (std::vector<int64_t>{8, 10}));
    // A value the group's runs do not use is left out of its name; where they use it, it names.
    const nlohmann::json f4{{"head", "fourier"}, {"frequencies", 4}, {"seed", 1}};
    const nlohmann::json f12{{"head", "fourier"}, {"frequencies", 12}, {"seed", 1}};
    const nlohmann::json lin{{"head", "linear"}, {"frequencies", fl::kUnusedValue}, {"seed", 1}};
    const auto named =
        groupRuns({{1, &f4, {}}, {2, &f12, {}}, {3, &lin, {}}}, {GroupBy::Kind::Setting, {}});
    QCOMPARE(named.size(), size_t(3));
    QCOMPARE(named[0].label, std::string("frequencies=4 head=fourier"));
    QCOMPARE(named[1].label, std::string("frequencies=12 head=fourier"));
    QCOMPARE(named[2].label, std::string("head=linear"));
  }

  // Runs lacking the key stay alone: together as "head=unset" they averaged runs that differ in
  // everything else (FourierQK's three arms, compared after a Group: head view, were one curve).
  void aKeyGroupsByItsValueAndLeavesRunsLackingItAlone() {
    const nlohmann::json a{{"head", "fourier"}, {"bins", 12}};
    const nlohmann::json b{{"head", "linear"}, {"bins", 12}};
    const nlohmann::json c{{"head", "fourier"}, {"bins", 20}};
    const nlohmann::json d{{"bins", 4}};
    const nlohmann::json e{{"bins", 5}};
    const auto groups = groupRuns({{1, &a, {}}, {2, &b, {}}, {3, &c, {}}, {4, &d, {}}, {5, &e, {}}},
                                  GroupBy::parse("key:head"));
    QCOMPARE(groups.size(), size_t(4));
    QCOMPARE(groups[0].label, std::string("head=fourier"));
    QCOMPARE(groups[0].members, (std::vector<int64_t>{1, 3}));
    QCOMPARE(groups[1].members, (std::vector<int64_t>{2}));
    QCOMPARE(groups[2].label, std::string("#4 (no head)"));
    QCOMPARE(groups[2].members, (std::vector<int64_t>{4}));
    QCOMPARE(groups[3].members, (std::vector<int64_t>{5}));
    // A value the run does not use (a linear head's frequencies) is no value to group by.
    const nlohmann::json unused{{"head", fl::kUnusedValue}};
    QCOMPARE(groupRuns({{6, &unused, {}}, {7, &unused, {}}}, GroupBy::parse("key:head")).size(),
             size_t(2));
    // A number groups by its value as JSON: 12 and 12.0 are one setting.
    const nlohmann::json f{{"bins", 12.0}};
    const auto byBins = groupRuns({{1, &a, {}}, {6, &f, {}}}, GroupBy::parse("key:bins"));
    QCOMPARE(byBins.size(), size_t(1));
    QCOMPARE(byBins[0].label, std::string("bins=12"));
  }

  // Two experiments' runs with one value of a shared key, or one setting, are not one group.
  void aGroupNeverSpansTwoExperiments() {
    const nlohmann::json c{{"lr", 0.001}, {"seed", 1}};
    const nlohmann::json d{{"lr", 0.001}, {"seed", 2}};
    for (const auto& by : {GroupBy::parse("key:lr"), GroupBy{GroupBy::Kind::Setting, {}}}) {
      const auto groups =
          groupRuns({{1, &c, {}, "fope"}, {2, &d, {}, "fope"}, {3, &c, {}, "fourier-qk"}}, by);
      QCOMPARE(groups.size(), size_t(2));
      QCOMPARE(groups[0].members, (std::vector<int64_t>{1, 2}));
      QCOMPARE(groups[1].members, (std::vector<int64_t>{3}));
      // Each names its experiment: both had read alike ("lr=0.001", or "all runs").
      const std::string named = by.kind == GroupBy::Kind::Setting ? "" : " lr=0.001";
      QCOMPARE(groups[0].label, "fope" + named);
      QCOMPARE(groups[1].label, "fourier-qk" + named);
    }
    // One experiment's seeds of one setting, alone: named by the experiment, not "all runs".
    const auto seeds =
        groupRuns({{1, &c, {}, "fope"}, {2, &d, {}, "fope"}}, {GroupBy::Kind::Setting, {}});
    QCOMPARE(seeds.size(), size_t(1));
    QCOMPARE(seeds[0].label, std::string("fope"));
    const auto keyed =
        groupRuns({{1, &c, {}, "fope"}, {2, &d, {}, "fope"}}, GroupBy::parse("key:lr"));
    QCOMPARE(keyed[0].label, std::string("lr=0.001"));  // one experiment: not named
  }

  // Runs of two experiments: each group is named by what sets it apart among its experiment's
  // runs. Every parameter the other experiment lacks had differed: "fourier-head batch_size=32
  // bins=50 corpus=unset d_model=unset ... frequencies=8 ×2", the frequencies cut away.
  void groupsOfTwoExperimentsAreNamedWithinTheirExperiment() {
    const nlohmann::json f4a{{"bins", 50}, {"frequencies", 4}, {"seed", 1}};
    const nlohmann::json f4b{{"bins", 50}, {"frequencies", 4}, {"seed", 2}};
    const nlohmann::json f8{{"bins", 50}, {"frequencies", 8}, {"seed", 1}};
    const nlohmann::json fope{{"d_model", 32}, {"corpus", ""}, {"seed", 1}};
    const auto groups = groupRuns({{1, &f4a, {}, "fourier-head"},
                                   {2, &f4b, {}, "fourier-head"},
                                   {3, &f8, {}, "fourier-head"},
                                   {4, &fope, {}, "fope"}},
                                  {GroupBy::Kind::Setting, {}});
    QCOMPARE(groups.size(), size_t(3));
    QCOMPARE(groups[0].label, std::string("fourier-head frequencies=4"));
    QCOMPARE(groups[0].members, (std::vector<int64_t>{1, 2}));
    QCOMPARE(groups[1].label, std::string("fourier-head frequencies=8"));
    QCOMPARE(groups[2].label, std::string("fope"));
  }

  void aStudyGroupsItsRunsAndLeavesOthersAlone() {
    const nlohmann::json c{{"head", "fourier"}};
    const std::pair<int64_t, std::string> table1{3, "table1"};
    const auto groups = groupRuns({{11, &c, table1}, {12, &c, {}}, {13, &c, table1}, {14, &c, {}}},
                                  GroupBy::parse("study"));
    QCOMPARE(groups.size(), size_t(3));
    QCOMPARE(groups[0].label, std::string("study 3 table1"));
    QCOMPARE(groups[0].members, (std::vector<int64_t>{11, 13}));
    QCOMPARE(groups[1].members, (std::vector<int64_t>{12}));
    QCOMPARE(groups[2].members, (std::vector<int64_t>{14}));
    QCOMPARE(groups[2].label, std::string("#14 (in no study)"));
  }

  void noGroupingLeavesEveryRunAlone() {
    const nlohmann::json c{{"head", "fourier"}};
    const auto groups = groupRuns({{1, &c, {}}, {2, &c, {}}}, GroupBy::parse("none"));
    QCOMPARE(groups.size(), size_t(2));
  }

  void theChoiceReadsBackFromItsName() {
    for (const auto& by : {GroupBy{}, GroupBy{GroupBy::Kind::Study, {}},
                           GroupBy{GroupBy::Kind::Setting, {}}, GroupBy{GroupBy::Kind::Key, "n"}})
      QVERIFY(GroupBy::parse(by.name()) == by);
    QVERIFY(GroupBy::parse("colour") == GroupBy{});  // an unknown word groups nothing
    QVERIFY(GroupBy::parse("key:") == GroupBy{});
  }

  // Against a direct computation: the members spanning each x, their values there (interpolated
  // between their points), their mean, sample sd and lowest value.
  void theMeanBandIsTheMembersMeanAndSdAtEachX() {
    std::mt19937 rng(20261203);
    std::uniform_int_distribution<int> members(1, 6), points(0, 30), xPick(0, 40);
    std::normal_distribution<double> value(1.0, 2.0);
    for (int trial = 0; trial < 200; ++trial) {
      std::vector<std::vector<double>> xs(members(rng)), ys(xs.size());
      for (size_t m = 0; m < xs.size(); ++m) {
        std::set<int> chosen;
        for (int i = points(rng); i > 0; --i) chosen.insert(xPick(rng));
        for (int x : chosen) {
          xs[m].push_back(x);
          ys[m].push_back(trial % 10 == 0 && x == 5 ? NAN : value(rng));
        }
      }
      std::vector<fl::gui::CurveRef> curves;
      for (size_t m = 0; m < xs.size(); ++m) curves.push_back({&xs[m], &ys[m]});
      const auto band = meanBand(curves);
      // At each x a member has a finite value at: every member whose finite points span it, at
      // its value there or on the line between its finite points either side.
      std::set<double> at;
      for (size_t m = 0; m < xs.size(); ++m)
        for (size_t i = 0; i < xs[m].size(); ++i)
          if (std::isfinite(ys[m][i])) at.insert(xs[m][i]);
      std::map<double, std::vector<double>> expected;
      for (double x : at)
        for (size_t m = 0; m < xs.size(); ++m) {
          std::optional<std::pair<double, double>> below, above;  // nearest finite points
          for (size_t i = 0; i < xs[m].size(); ++i) {
            if (!std::isfinite(ys[m][i])) continue;
            if (xs[m][i] <= x && (!below || xs[m][i] > below->first)) below = {xs[m][i], ys[m][i]};
            if (xs[m][i] >= x && (!above || xs[m][i] < above->first)) above = {xs[m][i], ys[m][i]};
          }
          if (!below || !above) continue;
          expected[x].push_back(below->first == above->first
                                    ? below->second
                                    : below->second + (above->second - below->second) *
                                                          (x - below->first) /
                                                          (above->first - below->first));
        }
      QCOMPARE(band.x.size(), expected.size());
      size_t i = 0;
      for (const auto& [x, values] : expected) {
        double mean = 0;
        for (double v : values) mean += v / values.size();
        double var = 0;
        for (double v : values) var += (v - mean) * (v - mean);
        const double sd = values.size() > 1 ? std::sqrt(var / (values.size() - 1)) : 0.0;
        QCOMPARE(band.x[i], x);
        QCOMPARE(band.count[i], int(values.size()));
        QVERIFY(std::abs(band.mean[i] - mean) < 1e-12);
        QVERIFY(std::abs(band.low[i] - (mean - sd)) < 1e-12);
        QVERIFY(std::abs(band.high[i] - (mean + sd)) < 1e-12);
        QCOMPARE(band.lowest[i], *std::min_element(values.begin(), values.end()));
        ++i;
      }
      // The common span (groups over wall time): the x where every member with a finite point
      // counts; where no x has them all, the whole band.
      int withPoints = 0;
      for (size_t m = 0; m < xs.size(); ++m)
        withPoints +=
            std::any_of(ys[m].begin(), ys[m].end(), [](double v) { return std::isfinite(v); });
      QCOMPARE(band.members, withPoints);
      std::vector<double> common;
      for (const auto& [x, values] : expected)
        if (int(values.size()) == withPoints) common.push_back(x);
      const auto span = commonSpan(band);
      QCOMPARE(span.x, common.empty() ? band.x : common);
      for (size_t k = 0; k < span.x.size(); ++k) {
        const size_t at = std::find(band.x.begin(), band.x.end(), span.x[k]) - band.x.begin();
        QCOMPARE(span.mean[k], band.mean[at]);
        QCOMPARE(span.low[k], band.low[at]);
        QCOMPARE(span.high[k], band.high[at]);
      }
    }
  }

  // Three runs over wall time ending at 10, 20 and 30 s: the mean stops at 10 s, where the
  // quickest ended; past it, the mean over fewer members bent to the slowest run's loss.
  void overWallTimeTheGroupsMeanEndsWhereItsQuickestMemberEnded() {
    const std::vector<double> fastX{0, 5, 10}, midX{0, 10, 20}, slowX{0, 15, 30};
    const std::vector<double> fastY{3, 2, 1}, midY{3, 2, 1}, slowY{3, 2.5, 2};
    const auto band = commonSpan(meanBand({{&fastX, &fastY}, {&midX, &midY}, {&slowX, &slowY}}));
    QCOMPARE(band.x, (std::vector<double>{0, 5, 10}));
    QCOMPARE(band.count, (std::vector<int>{3, 3, 3}));
    // At 10 s: fast 1, mid 2, slow 3 - (0.5 / 15) * 10.
    QVERIFY(std::abs(band.mean[2] - (1 + 2 + (3 - 10.0 / 30)) / 3) < 1e-12);
  }
};

QTEST_MAIN(TestRunGrouping)
#include "test_run_grouping.moc"
