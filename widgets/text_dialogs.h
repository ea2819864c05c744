// One-line text asked of the reader (a run's name, its tags) in a dialog wide enough to show it.
//
// QInputDialog::getText opens at its minimum width, about 300 pixels: a generated run name such
// as "fourier_head · dataset gmm2, head fourier, frequencies 12, edited: epochs 20" showed its
// end only, and the reader renamed a run without seeing the name being replaced.
#pragma once

#include <QString>

class QWidget;

namespace fl::widgets {

// As QInputDialog::getText, with the field as wide as `value` (up to most of the screen); empty
// and *ok false when the reader cancels.
QString askText(QWidget* parent, const QString& title, const QString& label, const QString& value,
                bool* ok);

}  // namespace fl::widgets
