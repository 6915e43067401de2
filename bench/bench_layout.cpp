// bench_layout: layout + scene build time of synthetic GIR-Graphs of 500, 2,000 and 10,000 nodes (kernels
// collapsed above the 1,000-node threshold, as the app shows them), and the time of one rewrite step
// in the app's model (Session::applyCandidate on the UI thread; the diff view, layout, predictions and
// checked mode's check on worker threads, timed from the step until ready), and find over 2,000 and
// 10,000 nodes. Medians of repeats.
#include <chrono>
#include <cstdio>
#include <functional>

#include "app/Session.h"
#include "bench/BenchSupport.h"
#include "core/gir/Json.h"
#include "core/gir/Parser.h"
#include "tests/viz/SyntheticGir.h"
#include "viz/Find.h"
#include "viz/GirView.h"
#include "viz/Layout.h"
#include "viz/Scene.h"

using namespace gir;
using Clock = std::chrono::steady_clock;

static double ms(Clock::time_point a, Clock::time_point b) { return std::chrono::duration<double, std::milli>(b - a).count(); }

struct Row {
  double view = 0, collapse = 0, layout = 0, scene = 0;
  size_t visible = 0;
};

static Row measureOnce(const Graph& g, size_t threshold) {
  Row r;
  auto t0 = Clock::now();
  viz::VizGraph full = viz::girToViz(g);
  auto t1 = Clock::now();
  viz::VizGraph visible = viz::collapseClusters(full, viz::defaultCollapsed(full, threshold, {}));
  auto t2 = Clock::now();
  auto layout = viz::layoutGraph(visible);
  auto t3 = Clock::now();
  if (!layout) {
    std::fprintf(stderr, "layout failed: %s\n", layout.error().str().c_str());
    std::exit(1);
  }
  viz::SceneModel scene = viz::buildScene(visible, *layout);
  auto t4 = Clock::now();
  r.view = ms(t0, t1);
  r.collapse = ms(t1, t2);
  r.layout = ms(t2, t3);
  r.scene = ms(t3, t4);
  r.visible = scene.nodes.size();
  return r;
}

static void layoutRow(int targetNodes, size_t threshold, int repeats, const char* note) {
  int kernels = std::max(1, (targetNodes + 1) / 11);  // 8 ops + load + store + sync per kernel
  auto g = parseGirText(test::syntheticGirText(kernels, 8), "synthetic");
  if (!g) {
    std::fprintf(stderr, "%s\n", g.error().str().c_str());
    std::exit(1);
  }
  std::vector<double> view, collapse, layout, scene, total;
  size_t visible = 0;
  for (int i = 0; i < repeats; ++i) {
    Row r = measureOnce(*g, threshold);
    view.push_back(r.view);
    collapse.push_back(r.collapse);
    layout.push_back(r.layout);
    scene.push_back(r.scene);
    total.push_back(r.view + r.collapse + r.layout + r.scene);
    visible = r.visible;
  }
  std::printf("%8zu %9zu %9.1f %9.1f %10.1f %9.1f %10.1f  %s\n", g->liveNodeCount(), visible, bench::median(view), bench::median(collapse),
              bench::median(layout), bench::median(scene), bench::median(total), note);
}

// Find (viz::findNodes, the find box): the full graph of `targetNodes` nodes, one query that hits a
// single buffer deep inside, one that hits every move, one that hits nothing.
static void findRow(int targetNodes, int repeats) {
  int kernels = std::max(1, (targetNodes + 1) / 11);
  auto g = parseGirText(test::syntheticGirText(kernels, 8), "synthetic");
  if (!g) std::exit(1);
  viz::VizGraph full = viz::girToViz(*g);
  std::string deep = "r" + std::to_string(kernels * 3 / 4) + "_3 (reg)";
  for (const std::string& q : {deep, std::string("dram -> reg"), std::string("no such buffer")}) {
    std::vector<double> t;
    size_t hits = 0;
    for (int i = 0; i < repeats; ++i) {
      auto t0 = Clock::now();
      hits = viz::findNodes(full, q).size();
      t.push_back(ms(t0, Clock::now()));
    }
    std::printf("%8zu %-20s %6zu %10.3f\n", full.nodes.size(), ("\"" + q + "\"").c_str(), hits, bench::median(t));
  }
}

static void stepRow(const std::string& label, Graph g, int repeats, bool checked) {
  app::Session s;
  s.setCheckedMode(checked);
  if (auto st = s.setGir(std::move(g), label); !st) {
    std::fprintf(stderr, "%s\n", st.error().str().c_str());
    std::exit(1);
  }
  std::vector<double> apply, diff, undo, layout, predict, check;
  for (int i = 0; i < repeats && !s.candidates().empty(); ++i) {
    auto t0 = Clock::now();
    auto rec = s.applyCandidate(0);
    auto t1 = Clock::now();
    if (!rec) break;
    viz::VizGraph view = viz::girDiff(s.previous(), s.graph());
    auto t2 = Clock::now();
    s.waitForChecks();
    check.push_back(ms(t0, Clock::now()));
    if (checked && s.badge(s.stepper().position() - 1) != app::Session::Badge::Verified) {
      std::fprintf(stderr, "%s: step %zu did not verify: %s\n", label.c_str(), s.stepper().position(), s.lastFailure().c_str());
      std::exit(1);
    }
    s.waitForPredictions();
    predict.push_back(ms(t0, Clock::now()));
    auto l = viz::layoutGraph(view);
    if (l) viz::buildScene(view, *l);
    auto t3 = Clock::now();
    s.undo();
    auto t4 = Clock::now();
    s.waitForPredictions();
    apply.push_back(ms(t0, t1));
    diff.push_back(ms(t1, t2));
    layout.push_back(ms(t2, t3));
    undo.push_back(ms(t3, t4));
  }
  if (apply.empty()) return;
  std::printf("%-34s %-9s %6zu %10.2f %9.2f %10.2f %9.2f %12.2f %9s\n", label.c_str(), checked ? "checked" : "unchecked",
              s.graph().liveNodeCount(), bench::median(apply), bench::median(undo), bench::median(diff), bench::median(layout),
              bench::median(predict),
              checked ? std::to_string(static_cast<int>(bench::median(check) + 0.5)).c_str() : "-");
}

int main() {
  std::printf("Layout + scene build of synthetic GIR-Graphs (ms, median of repeats; collapse threshold %zu nodes)\n",
              viz::kCollapseThreshold);
  std::printf("%8s %9s %9s %9s %10s %9s %10s\n", "nodes", "visible", "view", "collapse", "layout", "scene", "total");
  layoutRow(500, viz::kCollapseThreshold, 5, "all nodes drawn");
  layoutRow(2000, viz::kCollapseThreshold, 5, "kernels collapsed");
  layoutRow(10000, viz::kCollapseThreshold, 3, "kernels collapsed");
  layoutRow(2000, SIZE_MAX, 1, "for comparison: nothing collapsed");

  std::printf("\nFind over the full graph (ms, median of 21)\n%8s %-20s %6s %10s\n", "nodes", "query", "hits", "find");
  findRow(2000, 21);
  findRow(10000, 21);

  std::printf("\nOne rewrite step in the app's model (ms, median; checked = verifier + memory checker + interpreter after the step)\n");
  std::printf("%-34s %-9s %6s %10s %9s %10s %9s %12s %9s\n", "graph", "mode", "nodes", "step", "undo", "diff view", "layout",
              "predictions", "verified");
  for (const char* name : {"shufflenet_source.gir", "figure6.gir", "softmax_device.gir"}) {
    auto g = loadGirFile(std::string(GIR_SOURCE_DIR) + "/tests/golden/gir/" + name);
    for (bool checked : {true, false})
      if (g) stepRow(name, *g, 9, checked);
  }
  auto big = parseGirText(test::syntheticGirText(90, 8), "synthetic");
  for (bool checked : {true, false})
    if (big) stepRow("synthetic 989 nodes (90 kernels)", *big, 5, checked);
  std::printf("\nstep, undo: on the UI thread (Session::applyCandidate / undo: the edit + the new candidate list). On worker\n"
              "threads: the diff view and its layout (canvas), the candidates' predicted costs and checked mode's check\n"
              "(predictions, verified: ms from the step until they are ready, i.e. until the badge turns to verified).\n");
  return 0;
}
