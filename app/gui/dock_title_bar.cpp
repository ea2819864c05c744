#include "app/gui/dock_title_bar.h"

#include <QBoxLayout>
#include <QDockWidget>
#include <QLabel>
#include <QMainWindow>
#include <QMouseEvent>
#include <QPainter>
#include <QStyle>
#include <QToolButton>

namespace fl::gui {

namespace {

QToolButton* titleButton(QWidget* parent, QStyle::StandardPixmap icon, const QString& tip) {
  auto* button = new QToolButton(parent);
  button->setAutoRaise(true);
  button->setIcon(parent->style()->standardIcon(icon));
  button->setIconSize(QSize(12, 12));
  button->setToolTip(tip);
  button->setFocusPolicy(Qt::NoFocus);
  return button;
}

}  // namespace

DockTitleBar::DockTitleBar(QDockWidget* dock)
    : QWidget(dock),
      m_dock(dock),
      m_title(new QLabel(dock->windowTitle(), this)),
      m_collapse(titleButton(this, QStyle::SP_TitleBarShadeButton,
                             "Collapse to this bar (or double-click the bar)")),
      m_float(titleButton(this, QStyle::SP_TitleBarNormalButton, "Float as its own window")),
      m_close(titleButton(this, QStyle::SP_TitleBarCloseButton, "Close (the View menu opens it)")) {
  auto* layout = new QBoxLayout(QBoxLayout::LeftToRight, this);
  layout->setContentsMargins(2, 1, 2, 1);
  layout->setSpacing(2);
  layout->addWidget(m_collapse);
  layout->addWidget(m_title);
  layout->addStretch(1);
  layout->addWidget(m_float);
  layout->addWidget(m_close);
  connect(m_collapse, &QToolButton::clicked, this, [this] { setCollapsed(!m_collapsed); });
  connect(m_float, &QToolButton::clicked, this,
          [this] { m_dock->setFloating(!m_dock->isFloating()); });
  connect(m_close, &QToolButton::clicked, m_dock, &QDockWidget::close);
  connect(m_dock, &QDockWidget::windowTitleChanged, m_title, &QLabel::setText);
  connect(m_dock, &QDockWidget::featuresChanged, this, [this] { updateButtons(); });
  // A floating window is never rolled up: it comes out whole.
  connect(m_dock, &QDockWidget::topLevelChanged, this, [this](bool floating) {
    if (floating) setCollapsed(false);
  });
  m_dock->setTitleBarWidget(this);
  updateButtons();
}

bool DockTitleBar::inSideArea() const {
  auto* window = qobject_cast<QMainWindow*>(m_dock->parentWidget());
  if (!window) return false;
  const Qt::DockWidgetArea area = window->dockWidgetArea(m_dock);
  return area == Qt::LeftDockWidgetArea || area == Qt::RightDockWidgetArea;
}

int DockTitleBar::expandedExtent() const {
  if (m_collapsed) return m_expandedExtent;
  return inSideArea() ? m_dock->width() : m_dock->height();
}

void DockTitleBar::setCollapsed(bool collapsed) {
  if (collapsed == m_collapsed || (collapsed && m_dock->isFloating()) || !m_dock->widget()) return;
  auto* window = qobject_cast<QMainWindow*>(m_dock->parentWidget());
  const bool side = inSideArea();
  m_collapsed = collapsed;
  if (collapsed) {
    m_expandedExtent = side ? m_dock->width() : m_dock->height();
    m_dock->widget()->hide();
    if (side) {
      // The bar turns to run along the window's edge: a strip one line wide.
      m_dock->setFeatures(m_dock->features() | QDockWidget::DockWidgetVerticalTitleBar);
      m_dock->setFixedWidth(sizeHint().width());
    } else {
      m_dock->setFixedHeight(sizeHint().height());
    }
  } else {
    m_dock->setFeatures(m_dock->features() & ~QDockWidget::DockWidgetVerticalTitleBar);
    m_dock->setMinimumSize(0, 0);
    m_dock->setMaximumSize(QWIDGETSIZE_MAX, QWIDGETSIZE_MAX);
    m_dock->widget()->show();
    if (window && m_expandedExtent > 0)
      window->resizeDocks({m_dock}, {m_expandedExtent}, side ? Qt::Horizontal : Qt::Vertical);
  }
  updateButtons();
  updateGeometry();
  update();
  emit collapsedChanged(collapsed);
}

void DockTitleBar::updateButtons() {
  const bool upright = vertical();
  static_cast<QBoxLayout*>(layout())->setDirection(upright ? QBoxLayout::TopToBottom
                                                           : QBoxLayout::LeftToRight);
  m_title->setVisible(!upright);  // painted along the strip instead
  m_float->setVisible(!upright && m_dock->features().testFlag(QDockWidget::DockWidgetFloatable));
  m_close->setVisible(!upright && m_dock->features().testFlag(QDockWidget::DockWidgetClosable));
  m_collapse->setIcon(style()->standardIcon(m_collapsed ? QStyle::SP_TitleBarUnshadeButton
                                                        : QStyle::SP_TitleBarShadeButton));
  m_collapse->setToolTip(m_collapsed ? "Expand (or double-click the bar)"
                                     : "Collapse to this bar (or double-click the bar)");
}

QSize DockTitleBar::sizeHint() const {
  const QFontMetrics metrics(font());
  const QSize button = m_collapse->sizeHint();
  const int thickness = std::max(metrics.height(), button.height()) + 2;
  if (vertical())
    return {thickness, button.height() + metrics.horizontalAdvance(m_dock->windowTitle()) + 16};
  return {metrics.horizontalAdvance(m_dock->windowTitle()) + 3 * button.width() + 24, thickness};
}

void DockTitleBar::mouseDoubleClickEvent(QMouseEvent* event) {
  // The native bar floats the dock on a double-click; here it rolls the dock up or down, the
  // float button floats it.
  setCollapsed(!m_collapsed);
  event->accept();
}

void DockTitleBar::paintEvent(QPaintEvent* event) {
  QWidget::paintEvent(event);
  QPainter painter(this);
  painter.fillRect(rect(), palette().window().color().darker(106));
  if (!vertical()) return;
  // The title along the strip, read bottom to top, below the expand button.
  painter.setPen(palette().windowText().color());
  painter.translate(0, height());
  painter.rotate(-90);
  const int top = m_collapse->geometry().bottom() + 8;
  painter.drawText(QRect(0, 0, height() - top, width()), Qt::AlignRight | Qt::AlignVCenter,
                   m_dock->windowTitle());
}

}  // namespace fl::gui
