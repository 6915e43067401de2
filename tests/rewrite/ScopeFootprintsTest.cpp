// Answers kept across edits (rewrite/SliceAnalysis.h's ScopeFootprints, SyncInsertion::neededScope
// through a MatchContext): along the steps of random graphs and their undos, and along direct edits
// of what the answers read (a node's domain, a slice's shape or strides, the block size), every kept
// answer must be the one computed afresh on the graph as it is then.
#include <catch2/catch.hpp>

#include <random>

#include "core/gir/Parser.h"
#include "core/gir/Printer.h"
#include "rewrite/MatchContext.h"
#include "rewrite/SliceAnalysis.h"
#include "rewrite/SyncInsertion.h"
#include "rewrite/Stepper.h"
#include "tests/support/RandomGraph.h"

using namespace gir;

namespace {

// Compares kept and fresh answers of sync insertion's exchange scope for every sync and buffer.
int compareNeededScopes(const Graph& g, const UseDef& ud, const MatchContext& ctx) {
  int compared = 0;
  for (uint32_t n = 0; n < g.nodes().size(); ++n) {
    const Node& node = g.nodes()[n];
    if (node.erased || !node.isSync()) continue;
    for (SliceId s : node.inputs) {
      BufferId b = g.slice(s).buffer;
      INFO("sync #" << n << " buffer %" << g.buffer(b).name);
      REQUIRE(SyncInsertion::neededScope(ctx, NodeId(n), b) == SyncInsertion::neededScope(g, ud, NodeId(n), b));
      ++compared;
    }
  }
  return compared;
}

// Compares cache and direct answers for every live buffer and scope (and the kept exchange scopes
// when a context is given); returns how many were compared.
int compareAll(const Graph& g, const UseDef& ud, ScopeFootprints& cache, const MatchContext* ctx = nullptr) {
  int compared = ctx ? compareNeededScopes(g, ud, *ctx) : 0;
  for (uint32_t b = 0; b < g.buffers().size(); ++b) {
    if (g.buffers()[b].erased) continue;
    for (Scope scope : {Scope::Unit, Scope::Block, Scope::Device}) {
      int64_t cached = -1, direct = -1;
      bool c = cache.staysWithinScope(g, ud, BufferId(b), scope, cached);
      bool d = staysWithinScope(g, ud, BufferId(b), scope, direct);
      INFO("buffer %" << g.buffers()[b].name << " scope " << static_cast<int>(scope));
      REQUIRE(c == d);
      if (d) REQUIRE(cached == direct);
      ++compared;
    }
  }
  return compared;
}

// One edit that keeps every access in bounds: a node's domain loses its last unit, a slice halves an
// even stride or loses the last index of a dim, a sync goes away, or the block size halves.
void editInBounds(Graph& g, std::mt19937_64& rng) {
  auto pick = [&](size_t n) { return std::uniform_int_distribution<size_t>(0, n - 1)(rng); };
  switch (pick(5)) {
    case 3: {
      Node& n = g.node(NodeId(static_cast<uint32_t>(pick(g.nodes().size()))));
      if (n.isSync()) n.erased = true;
      return;
    }
    case 0: {
      Node& n = g.node(NodeId(static_cast<uint32_t>(pick(g.nodes().size()))));
      UnitDomain d = g.domainOf(n);
      if (d.end - d.begin > 1) n.domain = UnitDomain{d.begin, d.end - 1};
      return;
    }
    case 1: case 2: {
      MemorySlice& s = g.slice(SliceId(static_cast<uint32_t>(pick(g.slices().size()))));
      size_t d = pick(s.shape.size());
      if (s.shape[d] > 1 && s.strides[d] >= 2 && s.strides[d] % 2 == 0) s.strides[d] /= 2;
      else if (s.shape[d] > 1) --s.shape[d];
      return;
    }
    default:
      if (g.unitsPerBlock % 2 == 0) g.unitsPerBlock /= 2;
  }
}

}  // namespace

TEST_CASE("kept answers: footprints and exchange scopes equal fresh ones along steps and undos of random graphs", "[rewrite][property]") {
  int compared = 0, steps = 0;
  for (uint64_t seed = 1; seed <= 150; ++seed) {
    INFO("seed " << seed);
    Stepper st(test::randomMergedGraph(seed), std::nullopt, /*checked=*/false, seed, /*recordCosts=*/false);
    ScopeFootprints cache;
    MatchContext ctx(st.graph(), st.useDef());  // kept across the steps, as the greedy driver keeps it
    compared += compareAll(st.graph(), st.useDef(), cache, &ctx);
    for (int k = 0; k < 12; ++k) {
      auto cands = st.candidates(/*withPrediction=*/false);
      if (cands.empty()) break;
      const auto& c = cands[static_cast<size_t>(seed + k) % cands.size()];
      if (!st.applySite(*c.rule, c.site, c.siteIndex)) continue;
      ++steps;
      compared += compareAll(st.graph(), st.useDef(), cache, &ctx);
      if (k % 4 == 3 && st.undo()) compared += compareAll(st.graph(), st.useDef(), cache, &ctx);
    }
  }
  CHECK(steps >= 200);
  CHECK(compared >= 5000);
}

TEST_CASE("kept answers: footprints and exchange scopes follow direct edits of domains, slices and the block size", "[rewrite][property]") {
  int compared = 0, changed = 0;
  for (uint64_t seed = 1; seed <= 80; ++seed) {
    INFO("seed " << seed);
    Graph g = test::randomMergedGraph(seed);
    std::mt19937_64 rng(seed);
    ScopeFootprints cache;
    UseDef ud = computeUseDef(g);
    MatchContext ctx(g, ud);  // kept across the edits: `ud` is refreshed in place after each
    for (int k = 0; k < 10; ++k) {
      ud = computeUseDef(g);
      compared += compareAll(g, ud, cache, &ctx);
      Graph before = g;
      editInBounds(g, rng);
      changed += printGraph(before) != printGraph(g);
    }
  }
  CHECK(changed >= 300);
  CHECK(compared >= 5000);
}

TEST_CASE("kept answers: an exchange scope answered behind a chain of syncs is asked again once the later sync goes", "[rewrite]") {
  // Behind sync B, sync A's exchange is left to B (device scope). With B gone and nothing else
  // reading A's output, A's readers differ only by the sync, which A's key must hold for the kept
  // answer to be asked again.
  auto g = parseGirText(R"(gir @chain target=cpu-host units=4 block=4
level dram device
level reg unit capacity=1024
%x = buffer dram f32[16] input
%t = buffer reg f32[16]
%y = buffer dram f32[16] output
%x_u = slice %x offset(4*u) shape[4] strides[1]
%t_w = slice %t offset(4*u) shape[4] strides[1]
%t_a = slice %t offset(4*u) shape[4] strides[1]
%t_b = slice %t offset(4*u) shape[4] strides[1]
%y_u = slice %y offset(4*u) shape[4] strides[1]
move %x_u -> %t_w
sync device (%t_w) -> (%t_a)
sync device (%t_a) -> (%t_b)
move %t_b -> %y_u
)");
  REQUIRE(g);
  UseDef ud = computeUseDef(*g);
  MatchContext ctx(*g, ud);
  NodeId a(1), b(2);
  BufferId t = g->slice(g->node(a).inputs[0]).buffer;
  REQUIRE(SyncInsertion::neededScope(ctx, a, t) == Scope::Device);
  g->node(b).erased = true;
  ud = computeUseDef(*g);
  auto fresh = SyncInsertion::neededScope(*g, ud, a, t);
  CHECK(fresh != Scope::Device);
  CHECK(SyncInsertion::neededScope(ctx, a, t) == fresh);
}
