// A page of rich text in a window of its own, read-only and selectable: a study's claims, each
// with the numbers behind its outcome. A tooltip had been their only place, gone when the
// pointer moved and never copyable into notes.
#pragma once

#include <QString>

class QDialog;
class QWidget;

namespace fl::widgets {

// Opens (not modal) the window `parent` keeps for reports, showing `html` under `title`; an
// open one is brought up with the new text. Returns it, for tests.
QDialog* showReport(QWidget* parent, const QString& title, const QString& html);

}  // namespace fl::widgets
