// Stable stepping: the union view of a step marks exactly the step's added nodes new, its removed
// nodes removed, and keeps every other node at its key; undone steps give an all-unchanged view.
#include <catch2/catch.hpp>

#include "core/gir/Json.h"
#include "rewrite/Stepper.h"
#include "tests/support/TestSupport.h"
#include "viz/GirView.h"
#include "viz/Layout.h"

using namespace gir;
using namespace gir::viz;

static std::set<std::string> keysIn(const VizGraph& v, DiffState s) {
  std::set<std::string> out;
  for (const VizNode& n : v.nodes)
    if (n.state == s && n.kind != ItemKind::Terminal) out.insert(n.key);
  return out;
}

static std::set<std::string> keysOf(const std::vector<NodeId>& ids, const Graph& live, bool wantLive) {
  std::set<std::string> out;
  for (NodeId id : ids)
    if ((id.value < live.nodes().size() && !live.node(id).erased) == wantLive) out.insert("n" + std::to_string(id.value));
  return out;
}

TEST_CASE("every first step of every rule on the golden graphs: diff states match the step record", "[viz]") {
  for (const char* name : {"shufflenet_source.gir", "two_kernels.gir", "figure6.gir", "softmax_device.gir"}) {
    auto g = loadGirFile(test::sourcePath(std::string("tests/golden/gir/") + name));
    REQUIRE(g.ok());
    Stepper st(*g, std::nullopt, false);
    auto cands = st.candidates(false);
    for (size_t c = 0; c < cands.size() && c < 6; ++c) {
      Graph before = st.graph();
      auto rec = st.applySite(*cands[c].rule, cands[c].site, cands[c].siteIndex);
      if (!rec) continue;
      const Graph& after = st.graph();
      VizGraph d = girDiff(before, after);
      INFO(name << " " << rec->rule);
      std::set<std::string> added = keysOf(rec->addedNodes, after, true);
      std::set<std::string> removed = keysOf(rec->removedNodes, after, false);
      CHECK(keysIn(d, DiffState::New) == added);
      CHECK(keysIn(d, DiffState::Removed) == removed);
      // Unchanged nodes are the ones the step did not touch.
      for (const VizNode& n : d.nodes) {
        if (n.kind == ItemKind::Terminal || n.state != DiffState::Changed) continue;
        bool touched = false;
        for (NodeId id : rec->changedNodes) touched |= n.key == "n" + std::to_string(id.value);
        CHECK(touched);
      }
      // The union of both versions lays out in one piece.
      CHECK(layoutGraph(d).ok());
      REQUIRE(st.undo());
      VizGraph same = girDiff(before, st.graph());
      CHECK(keysIn(same, DiffState::New).empty());
      CHECK(keysIn(same, DiffState::Removed).empty());
      CHECK(keysIn(same, DiffState::Changed).empty());
    }
  }
}
