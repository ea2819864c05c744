#include "widgets/plot_frame.h"

#include <QSvgGenerator>

#include <qcustomplot.h>

namespace fl::widgets {

void setUpPlotFrame(QCustomPlot* plot, const QString& title, const QString& xLabel,
                    const QString& yLabel, bool legend) {
  plot->plotLayout()->insertRow(0);
  plot->plotLayout()->addElement(0, 0, new QCPTextElement(plot, title, QFont("sans", 10, QFont::Bold)));
  plot->xAxis->setLabel(xLabel);
  plot->yAxis->setLabel(yLabel);
  plot->setMinimumSize(260, 180);
  plot->xAxis->ticker()->setTickCount(4);
  plot->legend->setVisible(legend);
  if (!legend) return;
  plot->legend->setFont(QFont("sans", 8));
  auto* legendRow = new QCPLayoutGrid;
  plot->plotLayout()->addElement(2, 0, legendRow);
  legendRow->setMargins(QMargins(5, 0, 5, 5));
  legendRow->addElement(0, 0, plot->legend);
  plot->legend->setFillOrder(QCPLayoutGrid::foColumnsFirst);
  plot->legend->setBorderPen(Qt::NoPen);
  plot->legend->setWrap(2);
  plot->plotLayout()->setRowStretchFactor(2, 0.001);
}

bool savePlotSvg(QCustomPlot* plot, const QString& path) {
  QSvgGenerator generator;
  generator.setFileName(path);
  generator.setSize(plot->size());
  generator.setViewBox(QRect(QPoint(0, 0), plot->size()));
  generator.setTitle(path);
  QCPPainter painter;
  if (!painter.begin(&generator)) return false;
  plot->toPainter(&painter, plot->width(), plot->height());
  return painter.end();
}

}  // namespace fl::widgets
