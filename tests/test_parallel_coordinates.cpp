// Tests widgets/parallel_coordinates: where values sit on numeric (linear or logarithmic) and
// categorical axes, that brushing keeps exactly the runs inside every range (checked against a
// filter written here, on hand-made and on 200 random studies), that brushes survive new data,
// and that dragging on an axis, clicking it, hovering and double-clicking a line do what they
// say, driven by mouse events at the pixels the widget's own mapping gives.
#include <QtTest>

#include <algorithm>
#include <cmath>
#include <map>
#include <random>
#include <set>

#include "widgets/parallel_coordinates.h"

using fl::widgets::ParallelCoordinatesPlot;
using fl::widgets::ParallelData;
using fl::widgets::ParallelRun;
using fl::widgets::ParallelScale;
using fl::widgets::ParallelValue;

namespace {

ParallelValue number(double v) { return {v, QString::number(v)}; }
ParallelValue text(const QString& t) { return {std::nullopt, t}; }

// width 1, 2, 4, 8 x dataset gaussian, gmm2, beta; one run each (ids 1..12), metric = width +
// dataset index / 10; the run with id 12 has no metric (failed).
ParallelData gridStudy() {
  ParallelData data;
  data.parameters = {"width", "dataset"};
  data.metric = "test/kl";
  int64_t id = 0;
  const QStringList datasets = {"gaussian", "gmm2", "beta"};
  for (double width : {1.0, 2.0, 4.0, 8.0})
    for (int d = 0; d < datasets.size(); ++d) {
      ParallelRun run;
      run.runId = ++id;
      run.label = QString("width=%1 dataset=%2").arg(width).arg(datasets[d]);
      run.values = {number(width), text(datasets[d])};
      if (id != 12) run.metric = width + d / 10.0;
      data.runs.push_back(run);
    }
  return data;
}

std::vector<int64_t> idsWhere(const ParallelData& data,
                              const std::function<bool(const ParallelRun&)>& keep) {
  std::vector<int64_t> ids;
  for (const auto& r : data.runs)
    if (keep(r)) ids.push_back(r.runId);
  return ids;
}

QPoint pixel(const QPointF& p) { return p.toPoint(); }

// A random study for the property test: 1 to 4 parameters, each categorical, linear or
// logarithmic, with some values missing; a metric missing for some runs.
struct RandomStudy {
  ParallelData data;
  std::vector<int> kinds;  // 0 categorical, 1 linear, 2 logarithmic (by construction)
};

RandomStudy randomStudy(std::mt19937& rng) {
  RandomStudy s;
  std::uniform_int_distribution<int> axesCount(1, 4), kind(0, 2), runCount(1, 60), valueCount(1, 5);
  std::uniform_real_distribution<double> unit(0, 1);
  const int axes = axesCount(rng);
  std::vector<std::vector<ParallelValue>> choices(axes);
  for (int a = 0; a < axes; ++a) {
    s.data.parameters << QString("p%1").arg(a);
    s.kinds.push_back(kind(rng));
    const int n = valueCount(rng);
    for (int k = 0; k < n; ++k) {
      if (s.kinds[a] == 0)
        choices[a].push_back(
            text(QString("c%1").arg(std::uniform_int_distribution<int>(0, 9)(rng))));
      else if (s.kinds[a] == 1)
        choices[a].push_back(number(std::round(unit(rng) * 200 - 100) / 4));
      else
        choices[a].push_back(
            number(std::pow(10.0, std::uniform_int_distribution<int>(-7, 3)(rng))));
    }
  }
  s.data.metric = "m";
  const int runs = runCount(rng);
  for (int r = 0; r < runs; ++r) {
    ParallelRun run;
    run.runId = 100 + r;
    for (int a = 0; a < axes; ++a)
      run.values.push_back(
          unit(rng) < 0.1
              ? ParallelValue{}
              : choices[a][std::uniform_int_distribution<size_t>(0, choices[a].size() - 1)(rng)]);
    if (unit(rng) > 0.15) run.metric = std::exp(unit(rng) * 8 - 4);
    s.data.runs.push_back(run);
  }
  return s;
}

}  // namespace

class TestParallelCoordinates : public QObject {
  Q_OBJECT

 private slots:
  void aNumericAxisRunsFromItsLowestValueAtTheBottomToItsHighestAtTheTop() {
    ParallelCoordinatesPlot plot;
    plot.resize(900, 400);
    plot.setData(gridStudy());
    QCOMPARE(plot.axisCount(), 3);
    QCOMPARE(plot.axisName(0), QString("width"));
    QCOMPARE(plot.axisName(1), QString("dataset"));
    QCOMPARE(plot.axisName(plot.metricAxis()), QString("test/kl"));
    QCOMPARE(plot.axisScale(0), ParallelScale::Linear);  // 1..8: less than two decades
    QCOMPARE(plot.fractionOf(0, number(1)), 0.0);
    QCOMPARE(plot.fractionOf(0, number(8)), 1.0);
    QCOMPARE(plot.fractionOf(0, number(4)), 3.0 / 7.0);
    QCOMPARE(plot.runFraction(3, 0), 1.0 / 7.0);  // run 4: width 2
    // Pixels: the bottom end below the top end, a value in between linearly.
    const QPointF bottom = plot.pointAt(0, 0), top = plot.pointAt(0, 1), mid = plot.pointAt(0, 0.5);
    QVERIFY(bottom.y() > top.y() + 200);
    QCOMPARE(mid.y(), (bottom.y() + top.y()) / 2);
    QCOMPARE(bottom.x(), top.x());
    QVERIFY(plot.pointAt(1, 0).x() > bottom.x());
    QVERIFY(plot.pointAt(2, 0).x() > plot.pointAt(1, 0).x());
    QVERIFY(plot.pointAt(2, 0).x() < 900);
    // The metric axis: linear over 1 .. 8.1 (8.2 is the failed run's, never reported), the run
    // without a value at the mark under it.
    QCOMPARE(plot.axisScale(2), ParallelScale::Linear);
    QCOMPARE(plot.fractionOf(2, number(1)), 0.0);
    QCOMPARE(plot.fractionOf(2, number(8.1)), 1.0);
    QVERIFY(std::isnan(plot.runFraction(11, 2)));
    QVERIFY(plot.noValuePoint(2).y() > bottom.y());
  }

  void aCategoricalAxisSpacesItsValuesEvenlyInTheOrderTheRunsGiveThem() {
    ParallelCoordinatesPlot plot;
    plot.setData(gridStudy());
    QCOMPARE(plot.axisScale(1), ParallelScale::Categorical);
    QCOMPARE(plot.fractionOf(1, text("gaussian")), 0.0);
    QCOMPARE(plot.fractionOf(1, text("gmm2")), 0.5);
    QCOMPARE(plot.fractionOf(1, text("beta")), 1.0);
    QVERIFY(std::isnan(plot.fractionOf(1, text("uniform"))));
    // One value sits in the middle; numbers mixed with words make the axis categorical.
    ParallelData one;
    one.parameters = {"head", "mixed"};
    one.metric = "m";
    one.runs = {{1, "", {text("fourier"), number(3)}, 1.0},
                {2, "", {text("fourier"), text("auto")}, 2.0},
                {3, "", {text("fourier"), number(5)}, 3.0},
                {4, "", {text("fourier"), number(4)}, 4.0}};
    plot.setData(one);
    QCOMPARE(plot.fractionOf(0, text("fourier")), 0.5);
    QCOMPARE(plot.axisScale(1), ParallelScale::Categorical);
    QCOMPARE(plot.runFraction(0, 1), 0.0);
    QCOMPARE(plot.runFraction(1, 1), 1.0 / 3);
    QCOMPARE(plot.runFraction(2, 1), 2.0 / 3);
    QCOMPARE(plot.runFraction(3, 1), 1.0);
  }

  void anAxisIsLogarithmicWhenItsPositiveValuesSpanMoreThanTwoDecades() {
    ParallelCoordinatesPlot plot;
    const auto scaleOf = [&](std::vector<double> values) {
      ParallelData data;
      data.parameters = {"gamma"};
      data.metric = "m";
      for (size_t i = 0; i < values.size(); ++i)
        data.runs.push_back({static_cast<int64_t>(i + 1), "", {number(values[i])}, 1.0});
      plot.setData(data);
      return plot.axisScale(0);
    };
    QCOMPARE(scaleOf({1e-6, 1e-4, 1e-2}), ParallelScale::Log);
    QCOMPARE(plot.fractionOf(0, number(1e-4)), 0.5);
    QCOMPARE(plot.fractionOf(0, number(1e-6)), 0.0);
    QCOMPARE(plot.fractionOf(0, number(1e-2)), 1.0);
    QVERIFY(std::abs(plot.fractionOf(0, number(1e-3)) - 0.75) < 1e-12);
    QCOMPARE(scaleOf({1, 50, 100}), ParallelScale::Linear);  // two decades exactly: linear
    QCOMPARE(scaleOf({1, 101}), ParallelScale::Log);
    QCOMPARE(scaleOf({0, 1e-3, 1}), ParallelScale::Linear);  // zero has no logarithm
    QCOMPARE(plot.fractionOf(0, number(0.5)), 0.5);
    QCOMPARE(scaleOf({-1e3, -1}), ParallelScale::Linear);
    QCOMPARE(scaleOf({7}), ParallelScale::Linear);
    QCOMPARE(plot.fractionOf(0, number(7)), 0.5);  // a single value in the middle
    // The metric axis follows the same rule.
    ParallelData data;
    data.parameters = {"x"};
    data.metric = "test/ppl";
    data.runs = {{1, "", {number(1)}, 2.0}, {2, "", {number(2)}, 2000.0}};
    plot.setData(data);
    QCOMPARE(plot.axisScale(plot.metricAxis()), ParallelScale::Log);
  }

  void aBrushKeepsExactlyTheRunsInsideItsRangeAndTwoBrushesIntersect() {
    ParallelCoordinatesPlot plot;
    plot.resize(900, 400);
    const ParallelData data = gridStudy();
    plot.setData(data);
    QSignalSpy changed(&plot, &ParallelCoordinatesPlot::brushedRunsChanged);
    QCOMPARE(plot.brushedRuns().size(), size_t(12));
    QCOMPARE(plot.countText(), QString("12 of 12 runs"));

    // width in [2, 4].
    plot.setBrush(0, plot.fractionOf(0, number(4)), plot.fractionOf(0, number(2)));
    const auto widthTwoToFour = idsWhere(data, [](const ParallelRun& r) {
      return *r.values[0].number >= 2 && *r.values[0].number <= 4;
    });
    QCOMPARE(widthTwoToFour.size(), size_t(6));
    QCOMPARE(plot.brushedRuns(), widthTwoToFour);
    QCOMPARE(plot.countText(), QString("6 of 12 runs"));
    QCOMPARE(changed.count(), 1);
    QCOMPARE(changed.last().front().value<std::vector<int64_t>>(), widthTwoToFour);

    // And dataset gmm2 or beta: the intersection.
    plot.setBrush(1, plot.fractionOf(1, text("gmm2")), plot.fractionOf(1, text("beta")));
    const auto both = idsWhere(data, [](const ParallelRun& r) {
      return *r.values[0].number >= 2 && *r.values[0].number <= 4 && r.values[1].text != "gaussian";
    });
    QCOMPARE(both.size(), size_t(4));
    QCOMPARE(plot.brushedRuns(), both);
    QCOMPARE(changed.last().front().value<std::vector<int64_t>>(), both);

    // A metric range leaves out the run without a metric value even where the range is all.
    plot.clearBrushes();
    QCOMPARE(plot.brushedRuns().size(), size_t(12));
    plot.setBrush(plot.metricAxis(), 0, 1);
    QCOMPARE(plot.brushedRuns(),
             idsWhere(data, [](const ParallelRun& r) { return r.runId != 12; }));
    plot.clearBrush(plot.metricAxis());
    QCOMPARE(plot.brushedRuns().size(), size_t(12));
    QCOMPARE(changed.last().front().value<std::vector<int64_t>>().size(), size_t(12));
    // Setting the same range twice announces nothing new.
    const int before = changed.count();
    plot.setBrush(0, 0, 1);
    QCOMPARE(changed.count(), before);
  }

  void brushesKeepTheirValuesAsNewRunsWidenTheAxes() {
    ParallelCoordinatesPlot plot;
    ParallelData data = gridStudy();
    plot.setData(data);
    // test/kl in [2, 4.15]: widths 2 and 4 (12 is missing its metric).
    plot.setBrush(plot.metricAxis(), plot.fractionOf(plot.metricAxis(), number(2)),
                  plot.fractionOf(plot.metricAxis(), number(4.15)));
    plot.setBrush(1, 0, 0.5);  // gaussian and gmm2
    const auto expected = [&] {
      return idsWhere(data, [](const ParallelRun& r) {
        return r.metric && *r.metric >= 2 && *r.metric <= 4.15 && r.values[1].text != "beta";
      });
    };
    QCOMPARE(plot.brushedRuns(), expected());
    // A run finishes with a larger metric and a new dataset; another with a smaller one. The
    // axes widen; the ranges still hold the same values.
    data.runs.push_back({13, "", {number(16), text("uniform")}, 20.0});
    data.runs.push_back({14, "", {number(2), text("gaussian")}, 3.0});
    data.runs.push_back({15, "", {number(0.5), text("gmm2")}, 0.1});
    plot.setData(data);
    QCOMPARE(plot.brushedRuns(), expected());
    QVERIFY(std::find(plot.brushedRuns().begin(), plot.brushedRuns().end(), 14) !=
            plot.brushedRuns().end());
    // A different metric drops the metric's range, keeps the dataset's.
    data.metric = "test/smoothness";
    plot.setData(data);
    QVERIFY(!plot.brush(plot.metricAxis()));
    QVERIFY(plot.brush(1));
  }

  void onRandomStudiesTheBrushedRunsAreTheFilteredRuns() {
    std::mt19937 rng(20250611);
    std::uniform_real_distribution<double> unit(0, 1);
    ParallelCoordinatesPlot plot;
    plot.resize(900, 400);
    int properSubsets = 0;  // neither every run nor none: the ranges really chose
    for (int study = 0; study < 200; ++study) {
      const RandomStudy s = randomStudy(rng);
      plot.clearBrushes();
      plot.setData(s.data);
      const int parameters = s.data.parameters.size();
      // The scale each axis should have, worked out here.
      for (int a = 0; a < parameters; ++a) {
        std::set<double> values;
        bool anyText = false;
        for (const auto& r : s.data.runs) {
          if (r.values[a].number) values.insert(*r.values[a].number);
          anyText = anyText || (!r.values[a].number && !r.values[a].text.isEmpty());
        }
        ParallelScale expected = ParallelScale::Linear;
        if (anyText)
          expected = ParallelScale::Categorical;
        else if (!values.empty() && *values.begin() > 0 && *values.rbegin() / *values.begin() > 100)
          expected = ParallelScale::Log;
        QCOMPARE(plot.axisScale(a), expected);
      }
      // One to three random ranges; each keeps the runs whose value lies within it (a range set
      // again on an axis replaces the one before).
      std::map<int, std::function<bool(const ParallelRun&)>> filters;
      const int brushes = std::uniform_int_distribution<int>(1, 3)(rng);
      for (int b = 0; b < brushes; ++b) {
        const int axis = std::uniform_int_distribution<int>(0, parameters)(rng);
        const bool metric = axis == parameters;
        std::vector<double> numbers;
        QStringList categories;  // in the order the runs first give them
        for (const auto& r : s.data.runs) {
          const ParallelValue v = metric ? ParallelValue{r.metric, {}} : r.values[axis];
          if (v.number) numbers.push_back(*v.number);
          if (!v.text.isEmpty() && !categories.contains(v.text)) categories << v.text;
        }
        if (!metric && s.kinds[axis] == 0) {
          if (categories.isEmpty()) continue;
          std::uniform_int_distribution<int> pick(0, categories.size() - 1);
          const int i = pick(rng), j = pick(rng);
          const int from = std::min(i, j), to = std::max(i, j);
          plot.setBrush(axis, plot.fractionOf(axis, text(categories[to])),
                        plot.fractionOf(axis, text(categories[from])));
          const QStringList kept = categories.mid(from, to - from + 1);
          filters[axis] = [axis, kept](const ParallelRun& r) {
            return kept.contains(r.values[axis].text);
          };
        } else {
          if (numbers.empty()) continue;
          const auto [lo, hi] = std::minmax_element(numbers.begin(), numbers.end());
          // Bounds at run values half of the time, between them otherwise.
          const auto bound = [&] {
            return unit(rng) < 0.5
                       ? numbers[std::uniform_int_distribution<size_t>(0, numbers.size() - 1)(rng)]
                       : *lo + unit(rng) * (*hi - *lo);
          };
          const double x = bound(), y = bound();
          const double from = std::min(x, y), to = std::max(x, y);
          plot.setBrush(axis, plot.fractionOf(axis, {from, {}}), plot.fractionOf(axis, {to, {}}));
          filters[axis] = [axis, metric, from, to](const ParallelRun& r) {
            const auto v = metric ? r.metric : r.values[axis].number;
            return v && *v >= from && *v <= to;
          };
        }
      }
      const auto expected = idsWhere(s.data, [&](const ParallelRun& r) {
        return std::all_of(filters.begin(), filters.end(),
                           [&](const auto& axisFilter) { return axisFilter.second(r); });
      });
      QVERIFY2(plot.brushedRuns() == expected,
               qPrintable(QString("study %1: %2 brushed, %3 expected")
                              .arg(study)
                              .arg(plot.brushedRuns().size())
                              .arg(expected.size())));
      QCOMPARE(plot.countText(),
               QString("%1 of %2 runs").arg(expected.size()).arg(s.data.runs.size()));
      // The same data again (a refresh with nothing new) keeps the same runs.
      plot.setData(s.data);
      QVERIFY2(plot.brushedRuns() == expected, qPrintable(QString("study %1 again").arg(study)));
      properSubsets += !expected.empty() && expected.size() < s.data.runs.size() ? 1 : 0;
    }
    QVERIFY2(properSubsets >= 100, qPrintable(QString::number(properSubsets)));
  }

  void draggingAlongAnAxisBrushesItAndAClickClearsIt() {
    ParallelCoordinatesPlot plot;
    plot.resize(900, 400);
    const ParallelData data = gridStudy();
    plot.setData(data);
    plot.show();
    QVERIFY(QTest::qWaitForWindowExposed(&plot));
    QSignalSpy changed(&plot, &ParallelCoordinatesPlot::brushedRunsChanged);
    // From just below width 2 to just above width 4 (fractions 1/7 and 3/7).
    const QPoint from = pixel(plot.pointAt(0, plot.fractionOf(0, number(2)) - 0.05));
    const QPoint to = pixel(plot.pointAt(0, plot.fractionOf(0, number(4)) + 0.05));
    QTest::mousePress(&plot, Qt::LeftButton, {}, from);
    QTest::mouseMove(&plot, (from + to) / 2);
    QTest::mouseMove(&plot, to);
    QTest::mouseRelease(&plot, Qt::LeftButton, {}, to);
    const auto widthTwoToFour = idsWhere(data, [](const ParallelRun& r) {
      return *r.values[0].number >= 2 && *r.values[0].number <= 4;
    });
    QCOMPARE(plot.brushedRuns(), widthTwoToFour);
    QVERIFY(plot.brush(0));
    QVERIFY(std::abs(plot.brush(0)->first - (1.0 / 7 - 0.05)) < 0.01);
    QVERIFY(std::abs(plot.brush(0)->second - (3.0 / 7 + 0.05)) < 0.01);
    QCOMPARE(changed.last().front().value<std::vector<int64_t>>(), widthTwoToFour);

    // Upwards on the dataset axis, over gaussian only: the two ranges intersect.
    const QPoint low = pixel(plot.pointAt(1, 0.2)), high = pixel(plot.pointAt(1, -0.1));
    QTest::mousePress(&plot, Qt::LeftButton, {}, low);
    QTest::mouseMove(&plot, high);
    QTest::mouseRelease(&plot, Qt::LeftButton, {}, high);
    QCOMPARE(plot.brushedRuns(), (std::vector<int64_t>{4, 7}));

    // A click on the width axis clears its range; the dataset's stays.
    const QPoint onWidth = pixel(plot.pointAt(0, 0.8));
    QTest::mouseClick(&plot, Qt::LeftButton, {}, onWidth);
    QVERIFY(!plot.brush(0));
    QVERIFY(plot.brush(1));
    QCOMPARE(plot.brushedRuns(), (std::vector<int64_t>{1, 4, 7, 10}));
    QTest::mouseClick(&plot, Qt::LeftButton, {}, pixel(plot.pointAt(1, 0.5)));
    QCOMPARE(plot.brushedRuns().size(), size_t(12));
    QCOMPARE(changed.last().front().value<std::vector<int64_t>>().size(), size_t(12));
  }

  void hoverNamesALineAndADoubleClickSaysWhichRunItIs() {
    ParallelCoordinatesPlot plot;
    plot.resize(900, 400);
    const ParallelData data = gridStudy();
    plot.setData(data);
    plot.show();
    QVERIFY(QTest::qWaitForWindowExposed(&plot));
    // Run 6 (width 2, beta; test/kl 2.2): halfway between its points on the last two axes no
    // other line passes.
    const int run = 5;
    QCOMPARE(data.runs[run].runId, int64_t(6));
    const QPointF a = plot.pointAt(1, plot.runFraction(run, 1));
    const QPointF b = plot.pointAt(2, plot.runFraction(run, 2));
    const QPoint middle = pixel((a + b) / 2);
    QCOMPARE(plot.runAt(middle), run);
    QCOMPARE(plot.runAt(middle + QPoint(0, -30)), -1);
    const QString tip = plot.runToolTip(run);
    QVERIFY2(tip.contains("run #6") && tip.contains("width=2 dataset=beta") &&
                 tip.contains("test/kl = 2.2"),
             qPrintable(tip));
    QVERIFY(plot.runToolTip(11).contains("no test/kl value"));
    QSignalSpy doubleClicked(&plot, &ParallelCoordinatesPlot::runDoubleClicked);
    QTest::mouseDClick(&plot, Qt::LeftButton, {}, middle);
    QCOMPARE(doubleClicked.count(), 1);
    QCOMPARE(doubleClicked.front().front().value<int64_t>(), int64_t(6));
    // Between the lines nothing is under the pointer, and no range was set by the clicks.
    QCOMPARE(plot.brushedRuns().size(), size_t(12));
  }

  void shotForALook() {
    // With FOURIERLAB_PARALLEL_SHOT=FILE.png: the grid study drawn at 900 x 400, brushed.
    const QString path = qEnvironmentVariable("FOURIERLAB_PARALLEL_SHOT");
    if (path.isEmpty()) QSKIP("set FOURIERLAB_PARALLEL_SHOT=FILE.png to write the picture");
    ParallelCoordinatesPlot plot;
    plot.resize(900, 400);
    plot.setData(gridStudy());
    plot.setBrush(0, 0.1, 0.5);
    QVERIFY(plot.grab().save(path));
  }
};

QTEST_MAIN(TestParallelCoordinates)
#include "test_parallel_coordinates.moc"
