#include "app/gui/closing_wait.h"

#include <QCloseEvent>
#include <QLabel>

namespace fl::gui {

ClosingWait::ClosingWait(QWidget* window) : QProgressDialog(window) {
  setObjectName("closingWait");
  setWindowTitle("FourierLab: closing");
  setWindowModality(Qt::WindowModal);
  setRange(0, 0);  // busy: how long a step or a lock lasts is not known
  setAutoClose(false);
  setAutoReset(false);
  setCancelButton(nullptr);  // offered only while the store refuses: see update()
  setMinimumDuration(kShowAfterMs);
  // The store's words run long (a path, the reason, what is kept): folded, not widening the
  // dialog past the screen with its button out of sight.
  auto* label = new QLabel(this);
  label->setWordWrap(true);
  label->setAlignment(Qt::AlignLeft | Qt::AlignVCenter);
  setLabel(label);
  setFixedWidth(560);
  setValue(0);  // starts the minimum duration's clock
}

void ClosingWait::update(int runsLeft, const QString& storeTrouble) {
  QString text = QString(
                     "Stopping %1 run(s): each ends its step, saves a checkpoint and writes "
                     "its last steps to the store, then the window closes.")
                     .arg(runsLeft);
  // Only a wait on the store can be given up: a step under way is waited for either way.
  const bool offer = !storeTrouble.isEmpty();
  if (offer != m_offered) {
    if (offer)
      setCancelButtonText("Quit without waiting");
    else
      setCancelButton(nullptr);
    m_offered = offer;
  }
  if (offer)
    text += QString(
                "\n\n%1\n\nQuit without waiting loses what the store has not taken: each run "
                "then resumes from the last checkpoint the store holds.")
                .arg(storeTrouble);
  if (labelText() != text) setLabelText(text);
}

void ClosingWait::closeEvent(QCloseEvent* event) {
  if (!m_offered) {
    event->ignore();
    return;
  }
  QProgressDialog::closeEvent(event);  // emits canceled
}

void ClosingWait::reject() {
  if (m_offered) emit canceled();
}

}  // namespace fl::gui
