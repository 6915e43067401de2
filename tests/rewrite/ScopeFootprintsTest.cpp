// ScopeFootprints (rewrite/SliceAnalysis.h) keeps staysWithinScope's answers across edits: along the
// steps of random graphs and their undos, and along direct edits of what the answers read (a node's
// domain, a slice's shape or strides, the block size), every buffer's cached answer at every
// scope must be the one staysWithinScope gives on the graph as it is then.
#include <catch2/catch.hpp>

#include <random>

#include "core/gir/Printer.h"
#include "rewrite/SliceAnalysis.h"
#include "rewrite/Stepper.h"
#include "tests/support/RandomGraph.h"

using namespace gir;

namespace {

// Compares cache and direct answers for every live buffer and scope; returns how many were compared.
int compareAll(const Graph& g, const UseDef& ud, ScopeFootprints& cache) {
  int compared = 0;
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
// even stride or loses the last index of a dim, or the block size halves.
void editInBounds(Graph& g, std::mt19937_64& rng) {
  auto pick = [&](size_t n) { return std::uniform_int_distribution<size_t>(0, n - 1)(rng); };
  switch (pick(4)) {
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

TEST_CASE("scope footprints: cached answers equal staysWithinScope's along steps and undos of random graphs", "[rewrite][property]") {
  int compared = 0, steps = 0;
  for (uint64_t seed = 1; seed <= 150; ++seed) {
    INFO("seed " << seed);
    Stepper st(test::randomMergedGraph(seed), std::nullopt, /*checked=*/false, seed, /*recordCosts=*/false);
    ScopeFootprints cache;
    compared += compareAll(st.graph(), st.useDef(), cache);
    for (int k = 0; k < 12; ++k) {
      auto cands = st.candidates(/*withPrediction=*/false);
      if (cands.empty()) break;
      const auto& c = cands[static_cast<size_t>(seed + k) % cands.size()];
      if (!st.applySite(*c.rule, c.site, c.siteIndex)) continue;
      ++steps;
      compared += compareAll(st.graph(), st.useDef(), cache);
      if (k % 4 == 3 && st.undo()) compared += compareAll(st.graph(), st.useDef(), cache);
    }
  }
  CHECK(steps >= 200);
  CHECK(compared >= 5000);
}

TEST_CASE("scope footprints: cached answers follow direct edits of domains, slices and the block size", "[rewrite][property]") {
  int compared = 0, changed = 0;
  for (uint64_t seed = 1; seed <= 80; ++seed) {
    INFO("seed " << seed);
    Graph g = test::randomMergedGraph(seed);
    std::mt19937_64 rng(seed);
    ScopeFootprints cache;
    for (int k = 0; k < 10; ++k) {
      UseDef ud = computeUseDef(g);
      compared += compareAll(g, ud, cache);
      Graph before = g;
      editInBounds(g, rng);
      changed += printGraph(before) != printGraph(g);
    }
  }
  CHECK(changed >= 300);
  CHECK(compared >= 5000);
}
