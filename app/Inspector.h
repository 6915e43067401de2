// The inspector (docs/app.md, "Tabs", GIR-Graph): what the selected item of a canvas is. For a gOperator: its
// kind, its pattern, the level, shape and bytes of every slice, the units it runs on; for a sync the
// scope and why it is there; for an edge (a slice) its level, bytes and units; for a model op its ONNX
// type, attributes, tensors and intensity decision.
#pragma once

#include <QTextBrowser>

#include "app/Session.h"
#include "viz/VizGraph.h"

namespace gir::app {

class Inspector : public QTextBrowser {
  Q_OBJECT

 public:
  explicit Inspector(const Session& session, QWidget* parent = nullptr);
  void showGirNode(const viz::VizGraph& view, int index);
  void showGirEdge(const viz::VizGraph& view, int index);
  void showModelNode(const viz::VizGraph& view, int index);
  void showNothing();

 private:
  const Session& session_;
};

// The inspector's text for one live gOperator (plain HTML, tested without widgets).
QString describeGirNode(const Graph& g, NodeId id, const std::vector<StepRecord>& history, size_t position);

// The inspector's text for computation-graph op `opIndex`: ONNX op type, kind, attributes, every input
// and output tensor (dtype, shape, bytes, where it comes from), the intensity decision, the subgraph.
QString describeModelOp(const compute::Graph& g, const compute::PreprocessResult& pre, int opIndex);

}  // namespace gir::app
