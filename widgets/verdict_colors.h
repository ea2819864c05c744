// The three colours a verdict is read in, everywhere in the window: agrees with the paper or
// passed, outside it or failed, and not judged (no spread to judge by, a setting that departs
// from the paper's). One set, so a reader learns it once and a green in History is the green of
// the study table. Both strong colours are dark enough for text on white.
#pragma once

#include <QColor>
#include <QString>

#include <optional>

namespace fl::widgets {

inline QColor verdictGoodColor() { return QColor(0, 110, 0); }
inline QColor verdictBadColor() { return QColor(170, 0, 0); }
inline QColor notJudgedColor() { return QColor(110, 110, 110); }

// A verdict's colour: unknown (not judged) grey, else good or bad.
inline QColor verdictColor(std::optional<bool> passed) {
  return !passed ? notJudgedColor() : *passed ? verdictGoodColor() : verdictBadColor();
}

// The same colour as "#rrggbb", for rich text.
inline QString verdictColorName(std::optional<bool> passed) { return verdictColor(passed).name(); }

}  // namespace fl::widgets
