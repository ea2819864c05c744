#include "widgets/plot_frame.h"

#include <QSvgGenerator>

#include <algorithm>

#include <qcustomplot.h>

#include "widgets/step_ticker.h"

namespace fl::widgets {

void setUpPlotFrame(QCustomPlot* plot, const QString& title, const QString& xLabel,
                    const QString& yLabel, bool legend) {
  plot->plotLayout()->insertRow(0);
  plot->plotLayout()->addElement(0, 0, new QCPTextElement(plot, title, QFont("sans", 10, QFont::Bold)));
  plot->xAxis->setLabel(xLabel);
  plot->yAxis->setLabel(yLabel);
  plot->setMinimumSize(260, 180);
  if (xLabel == "step") plot->xAxis->setTicker(QSharedPointer<QCPAxisTicker>(new StepTicker));
  plot->xAxis->ticker()->setTickCount(4);
  plot->legend->setVisible(legend);
  if (!legend) return;
  plot->legend->setFont(QFont("sans", 8));
  auto* legendColumn = new QCPLayoutGrid;
  plot->plotLayout()->addElement(1, 1, legendColumn);
  legendColumn->setMargins(QMargins(0, 5, 5, 5));
  legendColumn->addElement(0, 0, plot->legend);
  plot->legend->setFillOrder(QCPLayoutGrid::foRowsFirst);
  plot->legend->setWrap(0);  // one column
  plot->legend->setBorderPen(Qt::NoPen);
  plot->legend->setRowSpacing(0);
  plot->legend->setIconSize(18, 10);
  legendColumn->setRowStretchFactor(0, 1);
  plot->plotLayout()->setColumnStretchFactor(1, 0.001);
}

void fitLegend(QCustomPlot* plot) {
  const int entries = plot->legend->itemCount();
  const bool shown = entries > 0 && entries <= kMaxLegendEntries;
  plot->legend->setVisible(shown);
  plot->legend->setMaximumSize(shown ? QWIDGETSIZE_MAX : 0, QWIDGETSIZE_MAX);
}

void fitTicks(QCustomPlot* plot) {
  const int width = plot->axisRect()->width();
  if (width <= 0) return;
  const int count = std::clamp(width / 70, 1, 6);
  // Text tickers place their own labels (one per category).
  if (!plot->xAxis->ticker().dynamicCast<QCPAxisTickerText>()) plot->xAxis->ticker()->setTickCount(count);
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
