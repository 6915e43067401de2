// The find box and the View menu on every canvas (issue #18, point 4): Ctrl+F, Enter / Shift+Enter
// through the hits with "k of n", the hit selected and centred at a readable zoom; a hit inside a
// collapsed kernel of a large GIR-Graph expands it; View > Zoom acts on the Model tab (it did not).
#include <catch2/catch.hpp>

#include <QAction>
#include <QLineEdit>
#include <QMenuBar>
#include <QTabWidget>

#include "app/FindBar.h"
#include "app/GraphCanvas.h"
#include "app/Inspector.h"
#include "app/Minimap.h"
#include "app/ModelTab.h"
#include "app/PlanTab.h"
#include "app/SceneItems.h"
#include "core/gir/Parser.h"
#include "tests/app/AppSupport.h"
#include "tests/support/TestSupport.h"
#include "tests/viz/SyntheticGir.h"
#include "viz/Find.h"

using namespace gir;
using namespace gir::app;

namespace {

// The key of the one selected node item of `c`, "" if none or several.
std::string selectedKey(GraphCanvas* c) {
  auto items = c->scene()->selectedItems();
  if (items.size() != 1 || items.front()->type() != NodeItemType) return "";
  return c->visibleGraph().nodes[static_cast<NodeItem*>(items.front())->index()].key;
}

void pressEnter(FindBar* f, Qt::KeyboardModifiers mods = Qt::NoModifier) { QTest::keyClick(f->query(), Qt::Key_Return, mods); }

QAction* viewAction(MainWindow* w, const QString& prefix) {
  for (QAction* menu : w->menuBar()->actions())
    if (menu->text() == "&View")
      for (QAction* a : menu->menu()->actions())
        if (a->text().startsWith(prefix)) return a;
  return nullptr;
}

}  // namespace

TEST_CASE("find on the Model tab: Enter and Shift+Enter step through the hits and select them", "[app][find]") {
  auto w = test::makeWindow();
  REQUIRE(w->openPath(QString::fromStdString(test::sourcePath("scenarios/layernorm.onnx"))));
  GraphCanvas* c = w->modelTab()->canvas();
  REQUIRE(test::waitForLayout(c));
  w->tabs()->setCurrentWidget(w->modelTab());
  REQUIRE(w->currentCanvas() == c);
  FindBar* f = w->findBar();
  // Ctrl+F (View > Find) puts the keyboard in the box.
  QAction* find = viewAction(w.get(), "Fi&nd");
  REQUIRE(find);
  find->trigger();
  QApplication::processEvents();
  CHECK(f->query()->hasFocus());
  // The two sums of LayerNorm, found by their kind, in node order, wrapping both ways.
  f->query()->setText("reduce");
  auto hits = viz::findNodes(c->fullGraph(), "reduce");
  REQUIRE(hits.size() == 2);
  pressEnter(f);
  CHECK(f->status() == "1 of 2");
  CHECK(selectedKey(c) == c->fullGraph().nodes[hits[0]].key);
  CHECK(c->transform().m11() >= 0.6);  // readable where it is shown
  pressEnter(f);
  CHECK(f->status() == "2 of 2");
  CHECK(selectedKey(c) == c->fullGraph().nodes[hits[1]].key);
  pressEnter(f);
  CHECK(f->status() == "1 of 2");
  pressEnter(f, Qt::ShiftModifier);
  CHECK(f->status() == "2 of 2");
  CHECK(selectedKey(c) == c->fullGraph().nodes[hits[1]].key);
  // A tensor by name; the inspector follows the selection.
  f->query()->setText("ln_gamma");
  pressEnter(f);
  CHECK(f->status() == "1 of 1");
  CHECK(selectedKey(c) == "o11");
  // The richer inspector (point 5): ONNX op type, kind, attributes, and each tensor with dtype, shape,
  // bytes and where it comes from.
  QString inspected = w->modelTab()->inspector()->toPlainText();
  INFO(inspected.toStdString());
  CHECK(inspected.contains("ln#11"));
  CHECK(inspected.contains("ONNX op: LayerNormalization axis=-1 epsilon=1e-05"));
  CHECK(inspected.contains("kind: broadcast"));
  CHECK(inspected.contains("attributes: axes[0]"));
  CHECK(inspected.contains("in\nln_gamma\nf32\n[768]\n3.1 kB\nconstant"));
  CHECK(inspected.contains("out\nln:11\nf32\n[64,768]\n196.6 kB\nop 'ln#12'"));
  CHECK(inspected.contains("In memory-bound subgraph 0"));
  test::saveScreenshot(w.get(), "find_model_tab");
  f->query()->setText("no such node");
  pressEnter(f);
  CHECK(f->status() == "no match");
  CHECK(selectedKey(c) == "o11");  // the last hit stays selected
  // View > Zoom in and Fit act on the Model tab's canvas.
  double before = c->transform().m11();
  viewAction(w.get(), "Zoom &in")->trigger();
  CHECK(c->transform().m11() == Approx(before * 1.25));
  viewAction(w.get(), "&Readable")->trigger();
  CHECK(c->transform().m11() == 1.0);
  // Tabs without a canvas: nothing to find, and it says so.
  w->tabs()->setCurrentWidget(w->planTab());
  f->query()->setText("ln");
  pressEnter(f);
  CHECK(f->status() == "no graph here");
}

TEST_CASE("find on a large GIR-Graph: a hit inside a collapsed kernel expands it and is selected once drawn", "[app][find]") {
  auto w = test::makeWindow();
  auto g = parseGirText(test::syntheticGirText(120, 8), "synthetic");  // 1,320 nodes: kernels collapsed
  REQUIRE(g);
  REQUIRE(w->session().setGir(*g, "synthetic"));
  GraphCanvas* c = w->girCanvas();
  REQUIRE(test::waitForLayout(c));
  w->tabs()->setCurrentIndex(1);
  REQUIRE(w->currentCanvas() == c);
  REQUIRE(c->fullGraph().nodes.size() > c->collapseThreshold());
  CHECK(c->expanded().empty());
  FindBar* f = w->findBar();
  // Kernel 77's fourth register buffer: written by one op, read by the next.
  f->query()->setText("r77_3 (reg)");
  QSignalSpy drawn(c, &GraphCanvas::sceneReady);
  pressEnter(f);
  CHECK(f->status() == "1 of 2");
  REQUIRE((drawn.count() > 0 || drawn.wait(30000)));
  REQUIRE(test::waitForLayout(c));
  CHECK(c->expanded() == std::set<int>{77});
  std::string key = selectedKey(c);
  REQUIRE_FALSE(key.empty());
  auto hits = viz::findNodes(c->fullGraph(), "r77_3 (reg)");
  CHECK(key == c->fullGraph().nodes[hits[0]].key);
  // At 1:1 the graph does not fit: the minimap shows it whole with the part on screen outlined, and a
  // click there moves the canvas.
  Minimap* map = c->minimap();
  REQUIRE(map->isVisible());
  CHECK(c->scene()->sceneRect().contains(map->shownArea().center()));
  QRectF before = map->shownArea();
  QPointF target = c->scene()->sceneRect().center() + QPointF(0, c->scene()->sceneRect().height() / 4);
  QTest::mouseClick(map->viewport(), Qt::LeftButton, Qt::NoModifier, map->mapFromScene(target));
  CHECK(map->shownArea() != before);
  CHECK(std::abs(map->shownArea().center().y() - target.y()) < c->scene()->sceneRect().height() / 20);
  test::saveScreenshot(w.get(), "find_gir_collapsed_kernel");
  // The second hit is in the same kernel, now drawn: selected at once.
  pressEnter(f);
  CHECK(f->status() == "2 of 2");
  CHECK(selectedKey(c) == c->fullGraph().nodes[hits[1]].key);
}
