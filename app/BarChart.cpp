#include "app/BarChart.h"

#include <QBarCategoryAxis>
#include <QValueAxis>

namespace gir::app {

void showBarChart(QChartView* view, QChart* chart, QBarSeries* series, const QStringList& names, double highest) {
  chart->addSeries(series);
  auto* x = new QBarCategoryAxis(chart);
  x->append(names);
  auto* y = new QValueAxis(chart);
  y->setRange(0, highest > 0 ? highest * 1.1 : 1);
  chart->addAxis(x, Qt::AlignBottom);
  chart->addAxis(y, Qt::AlignLeft);
  series->attachAxis(x);
  series->attachAxis(y);
  replaceChart(view, chart);
}

void replaceChart(QChartView* view, QChart* chart) {
  QChart* old = view->chart();
  view->setChart(chart);
  delete old;
}

}  // namespace gir::app
