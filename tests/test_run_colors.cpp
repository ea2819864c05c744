// Tests widgets/run_colors.h: every run on screen together gets a colour of its own,
// even past the palette's ten (ids 2 and 12 used to be the same green); a run keeps its colour;
// one run's series differ by pen; the palette has no pale lines on white and no two colours
// that read alike.
#include <QtTest>

#include <QRandomGenerator>

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <set>

#include "widgets/run_colors.h"

using fl::widgets::RunColors;

namespace {

using Lab = std::array<double, 3>;

// How a dichromat sees linear RGB: Machado, Oliveira and Fernandes (2009), severity 1.
using Vision = std::array<std::array<double, 3>, 3>;
constexpr Vision kNormal{{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}};
constexpr Vision kDeuteranopia{{{0.367322, 0.860646, -0.227968},
                                {0.280085, 0.672501, 0.047413},
                                {-0.011820, 0.042940, 0.968881}}};
constexpr Vision kProtanopia{{{0.152286, 1.052583, -0.204868},
                              {0.114503, 0.786281, 0.099216},
                              {-0.003882, -0.048116, 1.051998}}};

// CIE L*a*b* of an sRGB colour under D65, as `vision` sees it.
Lab labOf(const QColor& color, const Vision& vision = kNormal) {
  auto linear = [](double u) {
    return u <= 0.04045 ? u / 12.92 : std::pow((u + 0.055) / 1.055, 2.4);
  };
  const std::array<double, 3> seen{linear(color.redF()), linear(color.greenF()),
                                   linear(color.blueF())};
  std::array<double, 3> rgb{};
  for (int i = 0; i < 3; ++i)
    rgb[i] = std::clamp(vision[i][0] * seen[0] + vision[i][1] * seen[1] + vision[i][2] * seen[2],
                        0.0, 1.0);
  const double r = rgb[0], g = rgb[1], b = rgb[2];
  const double x = (0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.95047;
  const double y = 0.2126 * r + 0.7152 * g + 0.0722 * b;
  const double z = (0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.08883;
  auto f = [](double t) {
    return t > 216.0 / 24389 ? std::cbrt(t) : (24389.0 / 27 * t + 16) / 116;
  };
  return {116 * f(y) - 16, 500 * (f(x) - f(y)), 200 * (f(y) - f(z))};
}

// CIEDE2000 colour difference (Sharma, Wu and Dalal's formulation), written out here so that the
// palette is judged by a measure the test checks against published pairs.
double ciede2000(const Lab& one, const Lab& two) {
  const double pi = std::acos(-1.0);
  auto rad = [pi](double degrees) { return degrees * pi / 180; };
  auto deg = [pi](double radians) { return radians * 180 / pi; };
  const double c1 = std::hypot(one[1], one[2]), c2 = std::hypot(two[1], two[2]);
  const double cMean7 = std::pow((c1 + c2) / 2, 7);
  const double g = 0.5 * (1 - std::sqrt(cMean7 / (cMean7 + std::pow(25.0, 7))));
  const double a1 = (1 + g) * one[1], a2 = (1 + g) * two[1];
  const double cp1 = std::hypot(a1, one[2]), cp2 = std::hypot(a2, two[2]);
  auto hue = [&](double b, double a) {
    const double h = deg(std::atan2(b, a));
    return h < 0 ? h + 360 : h;
  };
  const double h1 = hue(one[2], a1), h2 = hue(two[2], a2);
  double dh = 0;
  if (cp1 * cp2 != 0) {
    dh = h2 - h1;
    if (dh > 180) dh -= 360;
    if (dh < -180) dh += 360;
  }
  const double dL = two[0] - one[0], dC = cp2 - cp1;
  const double dH = 2 * std::sqrt(cp1 * cp2) * std::sin(rad(dh / 2));
  const double lMean = (one[0] + two[0]) / 2, cpMean = (cp1 + cp2) / 2;
  double hMean = h1 + h2;
  if (cp1 * cp2 != 0)
    hMean = std::abs(h1 - h2) <= 180 ? hMean / 2
                                     : (hMean < 360 ? (hMean + 360) / 2 : (hMean - 360) / 2);
  const double t = 1 - 0.17 * std::cos(rad(hMean - 30)) + 0.24 * std::cos(rad(2 * hMean)) +
                   0.32 * std::cos(rad(3 * hMean + 6)) - 0.20 * std::cos(rad(4 * hMean - 63));
  const double dTheta = 30 * std::exp(-std::pow((hMean - 275) / 25, 2));
  const double cpMean7 = std::pow(cpMean, 7);
  const double rC = 2 * std::sqrt(cpMean7 / (cpMean7 + std::pow(25.0, 7)));
  const double sL = 1 + 0.015 * std::pow(lMean - 50, 2) / std::sqrt(20 + std::pow(lMean - 50, 2));
  const double sC = 1 + 0.045 * cpMean, sH = 1 + 0.015 * cpMean * t;
  const double rT = -std::sin(rad(2 * dTheta)) * rC;
  return std::sqrt(std::pow(dL / sL, 2) + std::pow(dC / sC, 2) + std::pow(dH / sH, 2) +
                   rT * (dC / sC) * (dH / sH));
}

}  // namespace

class TestRunColors : public QObject {
  Q_OBJECT

 private slots:
  void runsShownTogetherHaveDistinctColours() {
    RunColors colors;
    for (int64_t id = 1; id <= 11; ++id) colors.of(id);  // the palette wraps at the eleventh
    QCOMPARE(colors.of(1), colors.of(11));
    colors.makeDistinct({2, 12});
    QVERIFY(colors.of(2) != colors.of(12));
    const std::vector<int64_t> shown{1, 11, 21, 31, 3};
    colors.makeDistinct(shown);
    std::set<QRgb> seen;
    for (auto id : shown) seen.insert(colors.of(id).rgb());
    QCOMPARE(seen.size(), shown.size());
  }

  // Past ten runs shown together, colours are shared as evenly as they can be: twelve runs whose
  // numbers all end in 1 gave three of them blue while every other colour had one.
  void pastTenRunsTheColoursAreSharedEvenly() {
    RunColors colors;
    std::vector<int64_t> shown;
    for (int64_t id = 1; id <= 111; id += 10) shown.push_back(id);
    colors.makeDistinct(shown);
    std::map<QRgb, int> users;
    for (auto id : shown) ++users[colors.of(id).rgb()];
    QCOMPARE(users.size(), size_t(10));
    for (const auto& [rgb, n] : users) QVERIFY2(n <= 2, qPrintable(QColor(rgb).name()));
    QCOMPARE(colors.of(1), fl::widgets::runPaletteColor(0));  // the first keeps its own
  }

  // A colour the reader picks sticks to its run and is taken by no other run shown with it, over
  // many random groups; choosing an invalid colour gives the palette's back.
  void aChosenColourSticksAndIsNoOtherRunsOnScreen() {
    QRandomGenerator random(11);
    for (int trial = 0; trial < 200; ++trial) {
      RunColors colors;
      std::vector<int64_t> shown;
      for (int i = 0, n = 2 + static_cast<int>(random.bounded(8)); i < n; ++i)
        shown.push_back(1 + random.bounded(40));
      std::sort(shown.begin(), shown.end());
      shown.erase(std::unique(shown.begin(), shown.end()), shown.end());
      for (auto id : shown) colors.of(id);
      const int64_t picked = shown[random.bounded(static_cast<int>(shown.size()))];
      // Often another shown run's own palette colour: the one most likely to clash.
      const QColor chosen = fl::widgets::runPaletteColor(static_cast<int>(random.bounded(10)));
      colors.choose(picked, chosen);
      colors.makeDistinct(shown);
      QCOMPARE(colors.of(picked), chosen);
      std::set<QRgb> seen;
      for (auto id : shown) seen.insert(colors.of(id).rgb());
      QCOMPARE(seen.size(), shown.size());
      QVERIFY(colors.isChosen(picked));
      colors.choose(picked, QColor());
      QVERIFY(!colors.isChosen(picked));
    }
  }

  // A run's colour follows from its number, not from what a session showed before: runs 9, 10
  // and 11 compared live after eight others, and opened in a fresh session, look the same.
  void aRunHasTheSameColourInEverySession() {
    RunColors live, reopened;
    for (int64_t id = 1; id <= 8; ++id) live.of(id);
    live.makeDistinct({9, 10, 11});
    reopened.makeDistinct({9, 10, 11});
    for (int64_t id : {9, 10, 11}) QCOMPARE(live.of(id), reopened.of(id));
    QCOMPARE(RunColors().of(4), fl::widgets::runPaletteColor(3));
    QCOMPARE(RunColors().of(14), fl::widgets::runPaletteColor(3));
  }

  void aRunKeepsItsColour() {
    RunColors colors;
    const QColor first = colors.of(7);
    colors.of(8);
    colors.makeDistinct({7, 8});
    QCOMPARE(colors.of(7), first);  // the first of a group keeps its colour
  }

  // Eight series in the run's own colour, each with its own dashes (the sixth was solid as the
  // first, only a shade darker); past eight, darker again.
  void aRunsSeriesDifferByPen() {
    std::set<std::pair<QString, QRgb>> pens;
    std::set<QString> styles;
    const QColor color(31, 119, 180);
    for (int i = 0; i < 16; ++i) {
      const QPen pen = fl::widgets::seriesPen(color, i);
      pens.insert({fl::widgets::lineStyleOf(pen), pen.color().rgb()});
      if (i < 8) QCOMPARE(pen.color(), color);
      if (i < 8) styles.insert(fl::widgets::lineStyleOf(pen));
    }
    QCOMPARE(styles.size(), size_t(8));
    QCOMPARE(pens.size(), size_t(16));
  }

  void thePaletteReadsOnWhite() {
    std::set<QRgb> colors;
    for (int i = 0; i < fl::widgets::runPaletteSize(); ++i) {
      const QColor c = fl::widgets::runPaletteColor(i);
      colors.insert(c.rgb());
      // Relative luminance below that of pale yellow-green (188, 189, 34): enough contrast with
      // white for a 1.6 px line.
      const double luminance = 0.2126 * c.redF() + 0.7152 * c.greenF() + 0.0722 * c.blueF();
      QVERIFY2(luminance < 0.62, qPrintable(c.name()));
    }
    QCOMPARE(static_cast<int>(colors.size()), fl::widgets::runPaletteSize());
  }

  // The measure first: pairs from Sharma, Wu and Dalal's CIEDE2000 test data, to four places.
  void theColourDifferenceMatchesPublishedPairs() {
    QCOMPARE(std::round(ciede2000({50, 2.6772, -79.7751}, {50, 0, -82.7485}) * 1e4), 20425.0);
    QCOMPARE(std::round(ciede2000({50, 0, 0}, {50, -1, 2}) * 1e4), 23669.0);
    QCOMPARE(std::round(ciede2000({50, 2.5, 0}, {73, 25, -18}) * 1e4), 271492.0);
    QCOMPARE(
        std::round(ciede2000({60.2574, -34.0099, 36.2677}, {60.4626, -34.1751, 39.4387}) * 1e4),
        12644.0);
  }

  // To a reader without red or without green cones (about one man in twelve between them),
  // Tableau's orange and green, runs 2 and 3, were one colour (CIEDE2000 1.3 under protanopia).
  // Every two colours differ by 12 or more under both simulations, and runs one or two ids
  // apart, the ones compared most, by 20 or more. White stays white under each simulation.
  void theColoursTellApartWithoutRedOrGreenCones() {
    for (const Vision* vision : {&kDeuteranopia, &kProtanopia}) {
      const Lab white = labOf(Qt::white, *vision);
      QVERIFY(std::abs(white[0] - 100) < 0.01 && std::abs(white[1]) < 0.05 &&
              std::abs(white[2]) < 0.05);
      const int size = fl::widgets::runPaletteSize();
      for (int i = 0; i < size; ++i)
        for (int j = i + 1; j < size; ++j) {
          const QColor one = fl::widgets::runPaletteColor(i), two = fl::widgets::runPaletteColor(j);
          const double difference = ciede2000(labOf(one, *vision), labOf(two, *vision));
          const int apart = std::min(j - i, size - (j - i));  // run ids i + 1 and j + 1, cyclic
          QVERIFY2(difference >= (apart <= 2 ? 20 : 12),
                   qPrintable(one.name() + " " + two.name() + " " + QString::number(difference)));
        }
    }
  }

  // Every two runs' colours, and each against the truth's, tell apart as thin lines: a CIEDE2000
  // of 25 or more (red and brown at 16 read as one colour in a comparison of ten runs).
  void everyTwoColoursTellApartAsThinLines() {
    const int size = fl::widgets::runPaletteSize();
    for (int i = 0; i < size; ++i) {
      const QColor one = fl::widgets::runPaletteColor(i);
      const double fromTruth = ciede2000(labOf(one), labOf(fl::widgets::truthColor()));
      QVERIFY2(fromTruth >= 25, qPrintable(one.name() + " " + QString::number(fromTruth)));
      for (int j = i + 1; j < size; ++j) {
        const QColor two = fl::widgets::runPaletteColor(j);
        const double difference = ciede2000(labOf(one), labOf(two));
        QVERIFY2(difference >= 25,
                 qPrintable(one.name() + " " + two.name() + " " + QString::number(difference)));
      }
    }
  }
};

QTEST_APPLESS_MAIN(TestRunColors)
#include "test_run_colors.moc"
