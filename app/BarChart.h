// A bar chart shown in a view: the series gets a category axis of `names` and a value axis from 0
// to a little above `highest`, and the chart replaces (and frees) the view's previous one. The plan
// comparison and the per-op explorer draw their bars this way.
#pragma once

#include <QBarSeries>
#include <QChart>
#include <QChartView>
#include <QStringList>

namespace gir::app {

void showBarChart(QChartView* view, QChart* chart, QBarSeries* series, const QStringList& names, double highest);

// QChartView::setChart releases the previous chart without deleting it: every chart a view shows goes
// through here, or it leaks (LeakSanitizer found the plan table's).
void replaceChart(QChartView* view, QChart* chart);

}  // namespace gir::app
