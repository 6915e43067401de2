// Property test for the symbolic checks (docs/gir.md, "Symbolic checks"): on random merged graphs,
// the same graphs after the greedy optimizer, and racy / out-of-scope / out-of-bounds variants of
// both, the symbolic checker and the element-level checker give the same verdict and the same kinds,
// every symbolic witness is a real conflict, and symbolic bounds match a unit-by-unit scan.
#include <catch2/catch.hpp>

#include <functional>


#include <map>
#include <random>

#include "core/gir/SymbolicCheck.h"
#include "core/gir/Verifier.h"
#include "rewrite/GreedyOptimizer.h"
#include "tests/support/CheckerAgreement.h"
#include "tests/support/RandomGraph.h"

using namespace gir;

namespace {

// One random edit that tends to break the memory model or the bounds; empty when `g` has no site for it.
class Mutator {
 public:
  explicit Mutator(uint64_t seed) : rng_(seed) {}

  std::string mutate(Graph& g) {
    switch (std::uniform_int_distribution<int>(0, 10)(rng_)) {
      case 0: case 1: return deleteSync(g) ? "delete a sync" : "";
      case 2: case 3: return narrowSync(g) ? "narrow a sync's scope" : "";
      case 4: case 5: return narrowBuffer(g) ? "move a buffer to a narrower level" : "";
      case 6: return shiftOffset(g) ? "shift a slice's offset" : "";  // mostly out of bounds: the bounds comparison
      case 10: return widenMove(g) ? "widen both slices of a move" : "";
      case 7: case 8: return squeezeUnitStride(g) ? "overlap a slice across units" : "";
      default: return shrinkCapacity(g) ? "shrink a level's capacity" : "";
    }
  }

 private:
  template <typename T>
  std::optional<uint32_t> pickIndex(const std::vector<T>& v, const std::function<bool(const T&)>& ok) {
    std::vector<uint32_t> c;
    for (uint32_t i = 0; i < v.size(); ++i)
      if (ok(v[i])) c.push_back(i);
    if (c.empty()) return std::nullopt;
    return c[std::uniform_int_distribution<size_t>(0, c.size() - 1)(rng_)];
  }

  bool deleteSync(Graph& g) {
    auto i = pickIndex<Node>(g.nodes(), [](const Node& n) { return !n.erased && n.isSync(); });
    if (i) g.eraseNode(NodeId(*i));
    return i.has_value();
  }

  bool narrowSync(Graph& g) {
    auto i = pickIndex<Node>(g.nodes(), [](const Node& n) { return !n.erased && n.isSync() && n.syncScope() != Scope::Unit; });
    if (!i) return false;
    auto& p = std::get<SyncPayload>(g.node(NodeId(*i)).payload);
    p.scope = p.scope == Scope::Device ? Scope::Block : Scope::Unit;
    return true;
  }

  bool narrowBuffer(Graph& g) {
    auto i = pickIndex<Buffer>(g.buffers(), [](const Buffer& b) { return !b.erased && b.role == BufferRole::Temp && b.level != "reg"; });
    if (!i) return false;
    Buffer& b = g.buffer(BufferId(*i));
    b.level = b.level == "dram" ? "smem" : "reg";
    return true;
  }

  bool shiftOffset(Graph& g) {
    auto i = pickIndex<MemorySlice>(g.slices(), [](const MemorySlice& s) { return !s.erased; });
    if (!i) return false;
    MemorySlice& s = g.slice(SliceId(*i));
    int64_t by = std::uniform_int_distribution<int>(0, 1)(rng_) ? 1 : s.shape[0];
    s.offset.addConstant(std::uniform_int_distribution<int>(0, 1)(rng_) ? by : -by);
    return true;
  }

  // One more element per unit on both sides of a move: reads past what was written, writes into a
  // neighbour's elements, or past the buffer.
  bool widenMove(Graph& g) {
    auto i = pickIndex<Node>(g.nodes(), [](const Node& n) { return !n.erased && n.isMove(); });
    if (!i) return false;
    const Node& n = g.node(NodeId(*i));
    for (SliceId s : {n.inputs[0], n.outputs[0]}) g.slice(s).shape[0] += 1;
    return true;
  }

  bool squeezeUnitStride(Graph& g) {
    auto i = pickIndex<MemorySlice>(g.slices(), [](const MemorySlice& s) {
      return !s.erased && !s.offset.terms().empty() && s.offset.terms()[0].kind == UnitTermKind::Identity && s.offset.terms()[0].coeff > 1;
    });
    if (!i) return false;
    MemorySlice& s = g.slice(SliceId(*i));
    s.offset.addTerm(UnitTermKind::Identity, 1, -1);
    return true;
  }

  bool shrinkCapacity(Graph& g) {
    for (auto& l : g.levels)
      if (l.name == "reg") l.capacityBytes = 4 * std::uniform_int_distribution<int>(4, 24)(rng_);
    return true;
  }

  std::mt19937_64 rng_;
};

struct Tally {
  int compared = 0, racy = 0, boundsCompared = 0, skipped = 0;
  std::map<FindingKind, int> kinds;
};

// Compares the checkers on one graph; bounds against the unit-by-unit scan when it does not verify.
void compare(const Graph& g, uint64_t seed, Tally& t) {
  auto verified = verifyGraph(g);
  std::string perUnit = test::perUnitBoundsError(g);
  if (!verified) {
    bool bounds = verified.error().message.find("falls outside") != std::string::npos;
    if (bounds) CHECK(verified.error().message == perUnit);
    t.boundsCompared += bounds;
    t.skipped += !bounds;
    return;
  }
  REQUIRE(perUnit == "");
  auto dynamic = checkMemoryModel(g, randomInputs(g, seed));
  REQUIRE(dynamic);
  auto symbolic = checkMemoryModelSymbolic(g);
  REQUIRE(symbolic);
  INFO("element-level:\n" << dynamic->str() << "symbolic:\n" << symbolic->str());
  REQUIRE(dynamic->clean() == symbolic->clean());
  REQUIRE(test::kindList(test::findingKinds(*dynamic)) == test::kindList(test::findingKinds(*symbolic)));
  for (const MemoryFinding& f : symbolic->findings) REQUIRE(test::witnessProblem(g, f) == "");
  ++t.compared;
  t.racy += !symbolic->clean();
  for (FindingKind k : test::findingKinds(*symbolic)) ++t.kinds[k];
}

Graph optimized(const Graph& g, uint64_t seed) {
  Stepper st(g, std::nullopt, /*checked=*/false, seed);
  GreedyOptions opt;
  opt.maxSteps = 10000;
  opt.seed = seed;
  runGreedy(st, opt);
  return st.graph();
}

}  // namespace

TEST_CASE("symbolic and element-level checkers agree on random graphs and their racy variants", "[rewrite][property][symbolic]") {
  Tally t;
  for (uint64_t seed = 1; seed <= 225; ++seed) {
    INFO("seed " << seed);
    Graph base = test::randomMergedGraph(seed);
    std::vector<Graph> graphs = {base};
    if (seed % 2 == 0) graphs.push_back(optimized(base, seed));
    Mutator m(seed);
    for (size_t i = 0, n = graphs.size(); i < n; ++i)
      for (int k = 0; k < 4; ++k) {
        Graph g = graphs[i];
        std::string what = m.mutate(g);
        if (k % 2 == 1) what += ", " + m.mutate(g);
        if (!what.empty()) graphs.push_back(std::move(g));
      }
    for (size_t i = 0; i < graphs.size(); ++i) {
      INFO("graph " << i << " of the seed");
      compare(graphs[i], seed, t);
    }
  }
  INFO("compared " << t.compared << ", racy " << t.racy << ", bounds " << t.boundsCompared << ", skipped " << t.skipped);
  CHECK(t.compared >= 1000);
  CHECK(t.racy >= 200);
  CHECK(t.boundsCompared >= 50);
  for (FindingKind k : {FindingKind::Race, FindingKind::WriteWriteConflict, FindingKind::UninitializedRead, FindingKind::ScopeViolation,
                        FindingKind::CapacityOverflow})
    CHECK(t.kinds[k] > 0);
  WARN("compared " << t.compared << " graphs (" << t.racy << " with findings), " << t.boundsCompared << " bounds verdicts, "
                   << t.skipped << " variants that do not verify for other reasons");
}
