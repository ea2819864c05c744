#include "widgets/log_ticker.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace fl::widgets {

namespace {

// Past this many decades QCustomPlot's powers of ten are ticks enough (its own threshold).
constexpr double kDecadesForPowers = 1.6;

// Every mantissa x 10^k inside the range, in increasing order.
QVector<double> multiplesOfPowers(const QCPRange& range, const std::vector<double>& mantissas) {
  QVector<double> out;
  const int first = static_cast<int>(std::floor(std::log10(range.lower)));
  const int last = static_cast<int>(std::ceil(std::log10(range.upper)));
  for (int k = first; k <= last; ++k)
    for (double m : mantissas) {
      // Divided by an exact power of ten below 1, so 3 x 0.1 is the double nearest 0.3 (the
      // label "0.3"), not 0.30000000000000004.
      const double v = k >= 0 ? m * std::pow(10.0, k) : m / std::pow(10.0, -k);
      if (v >= range.lower * (1 - 1e-12) && v <= range.upper * (1 + 1e-12)) out << v;
    }
  return out;
}

const std::vector<double> kDigits{1, 2, 3, 4, 5, 6, 7, 8, 9};

bool spansFewDecades(const QCPRange& range) {
  return range.lower > 0 && range.upper > range.lower &&
         std::log10(range.upper / range.lower) < kDecadesForPowers;
}

}  // namespace

QVector<double> logTicksOf(const QCPRange& range) {
  // The coarsest mantissas that give three ticks, unless they give more than a small plot's
  // axis holds (3 to 10: every digit, eight labels): then the coarser ones' two.
  std::vector<double> halves;
  for (int twice = 2; twice < 20; ++twice) halves.push_back(twice / 2.0);
  const std::vector<std::vector<double>> finer{{1, 2, 5}, {1, 2, 3, 5}, kDigits, halves};
  constexpr int kMostTicks = 6;
  QVector<double> ticks;
  for (const auto& mantissas : finer) {
    QVector<double> candidate = multiplesOfPowers(range, mantissas);
    if (candidate.size() > kMostTicks && ticks.size() >= 2) break;
    ticks = std::move(candidate);
    if (ticks.size() >= 3) break;
  }
  // The range's top past the last tick, wider than any step between ticks, is labelled too, in
  // tenths of its decade (two at most): a KL axis from 0.7 to 1.25 read 0.7, 0.8, 0.9, 1 and
  // nothing above, where the runs were.
  if (ticks.size() >= 2) {
    double widest = 0;
    for (int i = 1; i < ticks.size(); ++i) widest = std::max(widest, ticks[i] / ticks[i - 1]);
    if (range.upper / ticks.back() > widest) {
      std::vector<double> tenths;
      for (int m = 11; m < 100; ++m) tenths.push_back(m / 10.0);
      const QVector<double> top =
          multiplesOfPowers(QCPRange(ticks.back() * (1 + 1e-9), range.upper), tenths);
      const int every = (static_cast<int>(top.size()) + 1) / 2;
      for (int i = every - 1; i < top.size(); i += std::max(every, 1)) ticks << top[i];
    }
  }
  return ticks;
}

bool powersOfTenSuffice(const QCPRange& range) {
  // Past 1.6 decades, unless fewer than three powers of ten fall inside: KL from 0.12 to 6 was
  // labelled "1" alone (0.1 and 10 just outside), the runs at 0.15 to 0.6 with no label.
  return range.lower > 0 && range.upper > range.lower && !spansFewDecades(range) &&
         multiplesOfPowers(range, {1}).size() >= 3;
}

QVector<double> LogTicker::createTickVector(double tickStep, const QCPRange& range) {
  m_digitTicks = false;
  if (powersOfTenSuffice(range) || range.lower <= 0 || range.upper <= range.lower)
    return QCPAxisTickerLog::createTickVector(tickStep, range);
  QVector<double> ticks = logTicksOf(range);
  // A span inside one digit's step (1.2 to 1.8): QCustomPlot's linear steps read it.
  if (ticks.size() < 2) return QCPAxisTicker::createTickVector(tickStep, range);
  m_digitTicks = true;
  return ticks;
}

QVector<double> LogTicker::createSubTickVector(int subTickCount, const QVector<double>& ticks) {
  if (!m_digitTicks || ticks.size() < 2)
    return QCPAxisTickerLog::createSubTickVector(subTickCount, ticks);
  QVector<double> subTicks;
  for (double v : multiplesOfPowers(QCPRange(ticks.front(), ticks.back()), kDigits))
    if (!ticks.contains(v)) subTicks << v;
  return subTicks;
}

}  // namespace fl::widgets
