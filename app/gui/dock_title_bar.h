// DockTitleBar: a dock's title bar that collapses the dock to the bar itself, so the plots get
// the room a dock held without the dock leaving the window. In a bottom or top area the dock
// keeps a one-line bar; in a side area the bar turns vertical (its title read bottom to top),
// a strip at the window's edge. Its button (or a double-click on the bar) collapses and
// expands; the dock comes back at the size it had. Float and close act as the native bar's.
//
//   auto* bar = new DockTitleBar(dock);   // installs itself as the dock's title bar
//   bar->setCollapsed(true);
#pragma once

#include <QWidget>

class QDockWidget;
class QLabel;
class QToolButton;

namespace fl::gui {

class DockTitleBar : public QWidget {
  Q_OBJECT

 public:
  explicit DockTitleBar(QDockWidget* dock);

  void setCollapsed(bool collapsed);
  bool collapsed() const { return m_collapsed; }
  // The dock's height (width, in a side area) when open: kept while it is rolled up, so a
  // session can keep it (a rolled-up dock's own size is its bar's).
  int expandedExtent() const;
  void setExpandedExtent(int extent) { m_expandedExtent = extent; }
  QToolButton* collapseButton() const { return m_collapse; }

  QSize sizeHint() const override;
  QSize minimumSizeHint() const override { return sizeHint(); }

 signals:
  void collapsedChanged(bool collapsed);

 protected:
  void mouseDoubleClickEvent(QMouseEvent* event) override;
  void paintEvent(QPaintEvent* event) override;

 private:
  bool inSideArea() const;
  bool vertical() const { return m_collapsed && inSideArea(); }
  void updateButtons();

  QDockWidget* m_dock;
  QLabel* m_title;
  QToolButton* m_collapse;
  QToolButton* m_float;
  QToolButton* m_close;
  bool m_collapsed = false;
  int m_expandedExtent = 0;  // the dock's height (or width, in a side area) before collapsing
};

}  // namespace fl::gui
