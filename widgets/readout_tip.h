// The curve plots' hover readout: a tooltip window as wide as its rows. Qt's QToolTip wraps rich
// text to a quarter of the screen's width, and the readout's rows never wrap (a smoothed value
// broken over two lines read as another number), so on a laptop's screen a run's value and its
// step ran past the tip's right edge, cut ("0.391349 (smoothed 0.").
//
//   showReadoutTip(globalPos, html);   // beside the pointer, inside the screen
//   hideReadoutTip();
#pragma once

#include <QPoint>
#include <QSize>
#include <QString>

namespace fl::widgets {

// Shows `html` beside `globalPos`: right of and below it, or left of or above it where the
// screen ends. One tip for the application: a new readout replaces the last.
void showReadoutTip(const QPoint& globalPos, const QString& html);
void hideReadoutTip();
bool readoutTipVisible();
QString readoutTipText();
// The tip's size now (for the tests: it holds its widest row).
QSize readoutTipSize();

}  // namespace fl::widgets
