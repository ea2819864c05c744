#include "widgets/readout_tip.h"

#include <QApplication>
#include <QGuiApplication>
#include <QLabel>
#include <QPointer>
#include <QScreen>
#include <QToolTip>

namespace fl::widgets {

namespace {

QLabel* tip(bool create) {
  static QPointer<QLabel> label;
  if (!label && create) {
    label = new QLabel(nullptr, Qt::ToolTip | Qt::FramelessWindowHint);
    label->setAttribute(Qt::WA_ShowWithoutActivating);
    label->setAttribute(Qt::WA_TransparentForMouseEvents);
    label->setTextFormat(Qt::RichText);
    label->setWordWrap(false);  // as wide as its widest row
    label->setFont(QToolTip::font());
    label->setPalette(QToolTip::palette());
    label->setAutoFillBackground(true);
    label->setFrameStyle(QFrame::Box | QFrame::Plain);
    label->setMargin(3);
    QObject::connect(qApp, &QCoreApplication::aboutToQuit, label, &QObject::deleteLater);
  }
  return label;
}

}  // namespace

void showReadoutTip(const QPoint& globalPos, const QString& html) {
  QLabel* label = tip(true);
  if (label->text() != html) {
    label->setText(html);
    // Not adjustSize(): it keeps a window within two thirds of the screen, the cut again.
    label->resize(label->sizeHint());
  }
  const QScreen* screen = QGuiApplication::screenAt(globalPos);
  if (!screen) screen = QGuiApplication::primaryScreen();
  QPoint at = globalPos + QPoint(14, 8);
  if (screen) {
    const QRect room = screen->availableGeometry();
    if (at.x() + label->width() > room.right()) at.setX(globalPos.x() - 8 - label->width());
    if (at.y() + label->height() > room.bottom()) at.setY(globalPos.y() - 8 - label->height());
    at.setX(std::max(at.x(), room.left()));
    at.setY(std::max(at.y(), room.top()));
  }
  label->move(at);
  if (!label->isVisible()) label->show();
  label->raise();
}

void hideReadoutTip() {
  if (QLabel* label = tip(false)) label->hide();
}

bool readoutTipVisible() {
  const QLabel* label = tip(false);
  return label && label->isVisible();
}

QString readoutTipText() {
  const QLabel* label = tip(false);
  return label ? label->text() : QString();
}

QSize readoutTipSize() {
  const QLabel* label = tip(false);
  return label ? label->size() : QSize();
}

}  // namespace fl::widgets
