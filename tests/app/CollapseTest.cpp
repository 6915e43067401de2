// Collapse and expand of clusters on any canvas (issue #18, point 4): on the Model tab a subgraph's
// frame collapses to one node on a double-click and the node expands again on a double-click, though
// the graph is under the 1,000-node threshold (only the GIR canvas's big graphs collapsed before).
#include <catch2/catch.hpp>

#include <QGraphicsScene>
#include <QMouseEvent>

#include "app/GraphCanvas.h"
#include "app/ModelTab.h"
#include "app/SceneItems.h"
#include "tests/app/AppSupport.h"
#include "tests/support/TestSupport.h"

using namespace gir;
using namespace gir::app;

namespace {

// Double-clicks the view at the scene point `p` as a user does.
void doubleClickAt(GraphCanvas* c, QPointF p) {
  c->centerOn(p);
  QApplication::processEvents();
  QPoint at = c->mapFromScene(p);
  QTest::mouseDClick(c->viewport(), Qt::LeftButton, Qt::NoModifier, at);
}

size_t clusterNodes(GraphCanvas* c) { return c->visibleGraph().countKind(viz::ItemKind::Cluster); }

}  // namespace

TEST_CASE("Model tab: a double-click collapses a subgraph's frame to one node and expands it back", "[app][collapse]") {
  auto w = test::makeWindow();
  REQUIRE(w->openPath(QString::fromStdString(test::sourcePath("tests/data/partial/partial_coverage.onnx"))));
  GraphCanvas* c = w->modelTab()->canvas();
  REQUIRE(test::waitForLayout(c));
  w->tabs()->setCurrentWidget(w->modelTab());
  REQUIRE(c->fullGraph().clusters.size() == 3);
  CHECK(clusterNodes(c) == 0);
  size_t full = c->visibleGraph().nodes.size();
  // Subgraph 0's frame: a point inside its rectangle but on no node (its label strip at the top).
  ClusterItem* frame = nullptr;
  for (QGraphicsItem* it : c->scene()->items())
    if (it->type() == ClusterItemType && static_cast<ClusterItem*>(it)->index() == 0) frame = static_cast<ClusterItem*>(it);
  REQUIRE(frame);
  QRectF r = frame->sceneBoundingRect();
  doubleClickAt(c, QPointF(r.left() + 6, r.top() + 6));
  REQUIRE(test::waitForLayout(c));
  CHECK(c->collapsedByUser() == std::set<int>{0});
  CHECK(clusterNodes(c) == 1);
  CHECK(c->visibleGraph().nodes.size() == full - 4 + 1);  // subgraph 0's four ops drawn as one node
  test::saveScreenshot(w.get(), "model_subgraph_collapsed");
  // The collapsed node: a double-click expands it again.
  NodeItem* node = nullptr;
  for (QGraphicsItem* it : c->scene()->items())
    if (it->type() == NodeItemType && static_cast<NodeItem*>(it)->kind() == viz::ItemKind::Cluster) node = static_cast<NodeItem*>(it);
  REQUIRE(node);
  doubleClickAt(c, node->sceneBoundingRect().center());
  REQUIRE(test::waitForLayout(c));
  CHECK(c->collapsedByUser().empty());
  CHECK(clusterNodes(c) == 0);
  CHECK(c->visibleGraph().nodes.size() == full);
}
