#include "widgets/run_colors.h"

#include <set>

namespace fl::widgets {

namespace {

// Tableau's blue and orange, then eight hues chosen by search so that runs tell apart as thin
// lines on white for most readers: every two of the ten differ by a CIEDE2000 of 26 or more to
// normal vision and 13 or more under simulated deuteranopia and protanopia (Machado et al.'s
// dichromat matrices), and runs one or two ids apart (compared most often) by 21 or more there.
// Tableau's orange and green differed by 1.3 under protanopia: runs 2 and 3, a linear and a
// Fourier head side by side, were one colour to about one man in a hundred.
const QColor kPalette[] = {QColor(31, 119, 180),  QColor(255, 127, 14), QColor(128, 27, 0),
                           QColor(170, 133, 255), QColor(210, 0, 123),  QColor(0, 202, 112),
                           QColor(129, 107, 4),   QColor(36, 176, 184), QColor(0, 2, 140),
                           QColor(0, 99, 68)};
constexpr int kSize = sizeof(kPalette) / sizeof(kPalette[0]);

}  // namespace

int runPaletteSize() { return kSize; }

QColor runPaletteColor(int index) { return kPalette[((index % kSize) + kSize) % kSize]; }

QColor RunColors::of(int64_t runId) {
  if (auto chosen = m_chosen.find(runId); chosen != m_chosen.end()) return chosen->second;
  auto it = m_index.find(runId);
  // By the run's number, not by when this session first showed it: the same run has the same
  // colour live and when opened later (a comparison was orange, green, red while training and
  // green, red, purple once reopened).
  if (it == m_index.end())
    it = m_index.emplace(runId, static_cast<int>(((runId - 1) % kSize + kSize) % kSize)).first;
  return kPalette[it->second];
}

void RunColors::choose(int64_t runId, const QColor& color) {
  if (color.isValid())
    m_chosen[runId] = color;
  else
    m_chosen.erase(runId);
}

void RunColors::makeDistinct(const std::vector<int64_t>& runIds) {
  // Chosen colours first: a palette colour the reader gave one run is no other run's.
  std::set<int> taken;
  for (auto id : runIds)
    if (auto chosen = m_chosen.find(id); chosen != m_chosen.end())
      for (int i = 0; i < kSize; ++i)
        if (kPalette[i].rgb() == chosen->second.rgb()) taken.insert(i);
  // How many shown runs have each colour: past ten runs, a clash takes the least used one (runs
  // 1, 11, ..., 111 made runs 1, 101 and 111 all blue while every other colour had one run).
  std::map<int, int> users;
  for (int index : taken) users[index] = 1;
  for (auto id : runIds) {
    if (m_chosen.count(id)) continue;
    of(id);
    int& index = m_index[id];
    if (users[index] > 0) {
      int least = index;
      for (int candidate = 0; candidate < kSize; ++candidate)
        if (users[candidate] < users[least]) least = candidate;
      index = least;
    }
    ++users[index];
  }
}

QPen seriesPen(const QColor& runColor, int position, double width) {
  // Dash patterns in units of the pen's width, each unlike the others at a glance: an addition
  // run's six ablated accuracies drew its first and sixth series both solid.
  static const QVector<qreal> kPatterns[] = {
      {},                  // solid
      {4, 2},              // dashed
      {1, 2},              // dotted
      {4, 2, 1, 2},        // dash-dot
      {4, 2, 1, 2, 1, 2},  // dash-dot-dot
      {8, 3},              // long dashes
      {8, 3, 1, 3},        // long dash, dot
      {1, 4},              // sparse dots
  };
  constexpr int kCount = sizeof(kPatterns) / sizeof(kPatterns[0]);
  const int round = position / kCount;
  QPen pen(round == 0 ? runColor : runColor.darker(100 + 45 * round), width);
  const auto& pattern = kPatterns[position % kCount];
  if (pattern.isEmpty())
    pen.setStyle(Qt::SolidLine);
  else
    pen.setDashPattern(pattern);
  return pen;
}

QString lineStyleOf(const QPen& pen) {
  if (pen.style() != Qt::CustomDashLine)
    return pen.style() == Qt::SolidLine ? "" : QString("style %1").arg(pen.style());
  QStringList dashes;
  for (qreal d : pen.dashPattern()) dashes << QString::number(d);
  return dashes.join(' ');
}

QColor truthColor() { return QColor(40, 40, 40); }

}  // namespace fl::widgets
