// Model tab: viz::modelToViz on the canvas, lists from the preprocessing result.
#include "app/ModelTab.h"

#include <QHeaderView>
#include <QLabel>
#include <QListWidget>
#include <QSplitter>
#include <QTableWidget>
#include <QVBoxLayout>

#include "app/GraphCanvas.h"
#include "app/Inspector.h"
#include "app/Session.h"
#include "viz/ModelView.h"

namespace gir::app {

ModelTab::ModelTab(Session& session, QWidget* parent) : QWidget(parent), session_(session) {
  canvas_ = new GraphCanvas(this);
  inspector_ = new Inspector(session, this);
  subgraphs_ = new QListWidget(this);
  library_ = new QTableWidget(0, 4, this);
  library_->setHorizontalHeaderLabels({"library op", "FLOPs", "intensity", "decision"});
  library_->horizontalHeader()->setStretchLastSection(true);
  library_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  summary_ = new QLabel(this);
  summary_->setWordWrap(true);
  auto* side = new QWidget(this);
  auto* sideLayout = new QVBoxLayout(side);
  sideLayout->addWidget(summary_);
  sideLayout->addWidget(new QLabel("Memory-bound subgraphs (double-click to open the GIR-Graph):", side));
  sideLayout->addWidget(subgraphs_, 2);
  sideLayout->addWidget(library_, 2);
  sideLayout->addWidget(inspector_, 1);
  auto* split = new QSplitter(this);
  split->addWidget(canvas_);
  split->addWidget(side);
  split->setStretchFactor(0, 3);
  split->setStretchFactor(1, 1);
  split->setSizes({1000, 450});
  auto* layout = new QVBoxLayout(this);
  layout->addWidget(split);
  connect(subgraphs_, &QListWidget::itemActivated, this, [this](QListWidgetItem* it) { Q_EMIT subgraphRequested(subgraphs_->row(it)); });
  connect(canvas_, &GraphCanvas::nodeSelected, this, [this](int i) {
    inspector_->showModelNode(canvas_->visibleGraph(), i);
    int c = canvas_->visibleGraph().nodes[i].cluster;
    if (c >= 0) subgraphs_->setCurrentRow(c);
  });
  connect(canvas_, &GraphCanvas::selectionCleared, inspector_, &Inspector::showNothing);
  refresh();
}

void ModelTab::refresh() {
  subgraphs_->clear();
  library_->setRowCount(0);
  inspector_->showNothing();  // the previous model's node is not in this one (issue #18, point 1, item 5)
  if (!session_.hasModel()) {
    summary_->setText("Open an ONNX model (File > Open).");
    canvas_->clearGraph();
    return;
  }
  const auto& g = session_.model();
  const auto& pre = session_.preprocessed();
  summary_->setText(QString("<b>%1</b>: %2 ops on %3 (ridge point %4 FLOP/byte), %5 library calls, %6 memory-bound subgraphs")
                        .arg(QString::fromStdString(g.name).toHtmlEscaped())
                        .arg(g.ops.size())
                        .arg(QString::fromStdString(pre.target))
                        .arg(pre.ridgeFlopsPerByte, 0, 'f', 2)
                        .arg(pre.library.size())
                        .arg(pre.subgraphs.size()));
  for (size_t s = 0; s < pre.subgraphs.size(); ++s)
    subgraphs_->addItem(QString("subgraph %1: %2 ops, minimal DRAM %3 B").arg(s).arg(pre.subgraphs[s].ops.size()).arg(pre.subgraphs[s].minBytes));
  library_->setRowCount(static_cast<int>(pre.library.size()));
  for (int r = 0; r < static_cast<int>(pre.library.size()); ++r) {
    const auto& d = pre.library[r];
    library_->setItem(r, 0, new QTableWidgetItem(QString::fromStdString(g.op(d.op).name)));
    library_->setItem(r, 1, new QTableWidgetItem(QString::number(d.flops)));
    library_->setItem(r, 2, new QTableWidgetItem(QString::number(d.intensity, 'f', 2)));
    library_->setItem(r, 3, new QTableWidgetItem(QString::fromStdString(d.verdict())));
  }
  canvas_->showGraph(viz::modelToViz(g, pre));
}

void ModelTab::markUncovered(size_t subgraph, const QString& what, const QString& reason) {
  QListWidgetItem* item = subgraphs_->item(static_cast<int>(subgraph));
  if (!item || item->text().endsWith(": " + what)) return;
  item->setText(item->text() + ": " + what);
  item->setToolTip(reason);
  item->setForeground(palette().color(QPalette::Disabled, QPalette::Text));
}

}  // namespace gir::app
