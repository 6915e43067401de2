// A VizGraph drawn in a QGraphicsView (docs/app.md, "Decisions"): the Graphviz layout runs on a worker
// thread and a newer graph cancels an older layout; wheel zooms, drag pans; above the collapse
// threshold kernels show as single nodes that a double-click expands; a double-click on any cluster's
// frame (a kernel, a model's subgraph) collapses it, at any graph size.
#pragma once

#include <QFutureWatcher>
#include <QGraphicsView>
#include <atomic>
#include <functional>
#include <memory>
#include <set>

#include "viz/Layout.h"
#include "viz/Scene.h"
#include "viz/VizGraph.h"

namespace gir::app {

class Minimap;

struct LayoutJob {
  viz::VizGraph full;  // the graph built on the worker (showGraphFrom) or a copy of the shown one
  viz::VizGraph visible;
  Expected<viz::Layout> layout = makeError("not run");
  viz::SceneModel scene;
};

class GraphCanvas : public QGraphicsView {
  Q_OBJECT

 public:
  explicit GraphCanvas(QWidget* parent = nullptr);
  ~GraphCanvas() override;

  // Shows `g`; `keepExpanded` keeps the user's expanded kernels (same graph, new step).
  void showGraph(viz::VizGraph g, bool keepExpanded = false);
  // The same with the graph built on the worker thread too (a step's diff view of a big graph
  // takes longer than the step); fullGraph() is the new graph once sceneReady() is emitted.
  void showGraphFrom(std::function<viz::VizGraph()> build, bool keepExpanded = false);
  void clearGraph();
  bool layoutPending() const { return pending_ != nullptr; }

  const viz::VizGraph& fullGraph() const { return full_; }
  const viz::VizGraph& visibleGraph() const { return visible_; }
  const viz::SceneModel& sceneModel() const { return sceneModel_; }
  // Node items drawn for graph nodes of these kinds (GIR gOperators: compute, movement, sync).
  int nodeItemCount(const std::set<viz::ItemKind>& kinds) const;
  // Expands (true) or collapses (false) one cluster; on a graph under the collapse threshold, where
  // every cluster starts expanded, a collapse is the user's and is kept until expanded again.
  void setExpanded(int cluster, bool expanded);
  const std::set<int>& expanded() const { return expanded_; }
  const std::set<int>& collapsedByUser() const { return userCollapsed_; }
  std::set<int> collapsedNow() const;  // the clusters drawn as one node
  size_t collapseThreshold() const { return threshold_; }
  void setCollapseThreshold(size_t t) { threshold_ = t; }

  void zoomBy(double factor);
  void fitAll();
  // 1:1, where labels are drawn at their font size, centred on the selection (else where the view is).
  void zoomToReadable();
  // Find (docs/app.md, "Find"): selects and centres the next (step 1) or previous (step -1) node of
  // fullGraph() that matches `query` (viz/Find.h), at a readable zoom; a hit inside a collapsed kernel
  // expands it first. Returns the number of hits; findPosition() is the 0-based hit shown (-1: none).
  int findStep(const QString& query, int step);
  int findPosition() const { return findCursor_; }
  Minimap* minimap() const { return minimap_; }
  // The visible graph's dot text, or the scene rendered as SVG / PNG.
  Status exportDot(const QString& path) const;
  Status exportSvg(const QString& path);
  Status exportPng(const QString& path);
  void selectGraphNode(int64_t source);  // selects the node item standing for `source`

 Q_SIGNALS:
  void sceneReady();                     // a layout finished and the items are in the scene
  void layoutFailed(const QString& why);
  void nodeSelected(int visibleIndex);   // index into visibleGraph().nodes
  void edgeSelected(int visibleIndex);   // index into visibleGraph().edges
  void selectionCleared();

 protected:
  void wheelEvent(QWheelEvent* e) override;
  void mouseDoubleClickEvent(QMouseEvent* e) override;
  void resizeEvent(QResizeEvent* e) override;

 private:
  void relayout();
  void startLayout(std::function<viz::VizGraph()> build, bool newGraph);
  bool selectKey(const std::string& key);  // the node item drawn for the visible node with `key`
  void onLayoutDone();
  void populate(const LayoutJob& job);
  void onSelectionChanged();

  viz::VizGraph full_, visible_;
  viz::SceneModel sceneModel_;
  std::set<int> expanded_;       // above the threshold: the kernels the user opened
  std::set<int> userCollapsed_;  // under it: the clusters the user closed
  size_t threshold_ = viz::kCollapseThreshold;
  bool fitOnReady_ = false;  // a new graph (not a step of the shown one): fit it to the view
  std::shared_ptr<std::atomic<bool>> pending_;  // cancel flag of the running layout
  QFutureWatcher<std::shared_ptr<LayoutJob>>* watcher_ = nullptr;
  std::string findQuery_;      // the query findHits_ answers, on the current full_
  std::vector<int> findHits_;  // indices into full_.nodes
  int findCursor_ = -1;
  std::string pendingFindKey_;
  Minimap* minimap_;  // a hit in a kernel being expanded: selected once it is drawn
};

}  // namespace gir::app
