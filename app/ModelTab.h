// The Model tab (docs/app.md, "Tabs"): the computation graph with its memory-bound subgraphs as
// highlighted clusters and library ops labelled with their intensity decision; the subgraph list and
// the library-op table beside it. Picking a subgraph asks the session to lower it and open its GIR.
#pragma once

#include <QWidget>

class QListWidget;
class QTableWidget;
class QLabel;

namespace gir::app {

class GraphCanvas;
class Inspector;
class Session;

class ModelTab : public QWidget {
  Q_OBJECT

 public:
  ModelTab(Session& session, QWidget* parent = nullptr);
  void refresh();
  // Partial coverage (issue #18): the subgraph's row says `what` ("not GIR", "GIR, not compared"),
  // its tooltip says why.
  void markUncovered(size_t subgraph, const QString& what, const QString& reason);
  GraphCanvas* canvas() const { return canvas_; }
  Inspector* inspector() const { return inspector_; }
  QListWidget* subgraphList() const { return subgraphs_; }
  QTableWidget* libraryTable() const { return library_; }

 Q_SIGNALS:
  void subgraphRequested(int index);

 private:
  Session& session_;
  GraphCanvas* canvas_;
  Inspector* inspector_;
  QListWidget* subgraphs_;
  QTableWidget* library_;
  QLabel* summary_;
};

}  // namespace gir::app
