#include "text_dialogs.h"

#include <QFontMetrics>
#include <QInputDialog>
#include <QLineEdit>
#include <QScreen>
#include <QStyle>

#include <algorithm>

namespace fl::widgets {

QString askText(QWidget* parent, const QString& title, const QString& label, const QString& value,
                bool* ok) {
  QInputDialog dialog(parent);
  dialog.setWindowTitle(title);
  dialog.setLabelText(label);
  dialog.setInputMode(QInputDialog::TextInput);
  dialog.setTextValue(value);
  // The field's frame and the dialog's margins take about four character widths beyond the text.
  const QFontMetrics metrics(dialog.font());
  const int wanted = metrics.horizontalAdvance(value) + 4 * metrics.averageCharWidth() +
                     2 * dialog.style()->pixelMetric(QStyle::PM_LayoutLeftMargin);
  const QScreen* screen = parent ? parent->screen() : dialog.screen();
  const int most = screen ? screen->availableGeometry().width() * 9 / 10 : wanted;
  dialog.resize(std::max(dialog.sizeHint().width(), std::min(wanted, most)),
                dialog.sizeHint().height());
  const bool accepted = dialog.exec() == QDialog::Accepted;
  if (ok) *ok = accepted;
  return accepted ? dialog.textValue() : QString();
}

}  // namespace fl::widgets
