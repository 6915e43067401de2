// The symbolic checks (docs/gir.md, "Symbolic checks"): golden graphs get the element-level
// checker's verdict and kinds with real witnesses, bounds messages match a unit-by-unit scan, and a
// million-unit row program is decided in well under a second, racy or not.
#include <catch2/catch.hpp>

#include <chrono>
#include <filesystem>

#include "core/gir/Json.h"
#include "core/gir/Parser.h"
#include "core/gir/SymbolicBounds.h"
#include "core/gir/SymbolicCheck.h"
#include "core/gir/Verifier.h"
#include "tests/support/CheckerAgreement.h"
#include "tests/support/TestSupport.h"

using namespace gir;

namespace {

// Element-level and symbolic checkers agree on `g`: same kinds, and each symbolic witness is real.
void requireAgreement(const Graph& g) {
  auto dynamic = checkMemoryModel(g, randomInputs(g, 1));
  REQUIRE(dynamic);
  auto symbolic = checkMemoryModelSymbolic(g);
  REQUIRE(symbolic);
  INFO("element-level:\n" << dynamic->str() << "symbolic:\n" << symbolic->str());
  CHECK(dynamic->clean() == symbolic->clean());
  CHECK(test::kindList(test::findingKinds(*dynamic)) == test::kindList(test::findingKinds(*symbolic)));
  for (const MemoryFinding& f : symbolic->findings) CHECK(test::witnessProblem(g, f) == "");
}

MemorySlice row(BufferId b, int64_t width, AffineIndex off) { return MemorySlice{b, off, {width}, {1}}; }

// A LayerNorm-style row program: a row of 4*1024 floats per block of 4 units, each unit a quarter row
// in registers; partial sums cross units through shared memory behind a block sync (the mean), and
// each unit subtracts it. `withSync` false deletes the sync: the partial sums race.
Graph rowProgram(int64_t units, bool withSync) {
  const int64_t w = 1024, block = 4;
  Graph g;
  g.name = "row_program";
  g.units = units;
  g.unitsPerBlock = block;
  g.levels = {{"dram", Scope::Device, 0}, {"smem", Scope::Block, 232448}, {"reg", Scope::Unit, 32640}};
  auto buf = [&](const char* n, const char* level, int64_t numel, BufferRole r = BufferRole::Temp) {
    return g.addBuffer(Buffer{n, level, {numel}, r});
  };
  BufferId x = buf("x", "dram", units * w, BufferRole::Input), y = buf("y", "dram", units * w, BufferRole::Output);
  BufferId xr = buf("xr", "reg", units * w), ps = buf("ps", "reg", units), pss = buf("ps_s", "smem", units);
  BufferId parts = buf("parts", "reg", units * block), tot = buf("tot", "reg", units), mean = buf("mean", "reg", units);
  BufferId mb = buf("mean_b", "reg", units * w), d = buf("d", "reg", units * w);
  AffineIndex rowOff = AffineIndex::unit(w), unitOff = AffineIndex::unit(1);
  SliceId sx = g.addSlice(row(x, w, rowOff)), sxr = g.addSlice(row(xr, w, rowOff)), sps = g.addSlice(row(ps, 1, unitOff));
  SliceId spsw = g.addSlice(row(pss, 1, unitOff)), spsr = g.addSlice(row(pss, block, AffineIndex().addTerm(UnitTermKind::Div, block, block)));
  SliceId sparts = g.addSlice(row(parts, block, AffineIndex::unit(block))), stot = g.addSlice(row(tot, 1, unitOff));
  SliceId smean = g.addSlice(row(mean, 1, unitOff)), smb = g.addSlice(row(mb, w, rowOff)), sd = g.addSlice(row(d, w, rowOff));
  SliceId sy = g.addSlice(row(y, w, rowOff));
  g.addNode(Node{MovePayload{}, {sx}, {sxr}, std::nullopt});
  g.addNode(Node{ReducePayload{ReduceOp::Sum, {0}}, {sxr}, {sps}, std::nullopt});
  g.addNode(Node{MovePayload{}, {sps}, {spsw}, std::nullopt});
  if (withSync) g.addNode(Node{SyncPayload{Scope::Block}, {spsw}, {spsr}, std::nullopt});
  g.addNode(Node{MovePayload{}, {spsr}, {sparts}, std::nullopt});
  g.addNode(Node{ReducePayload{ReduceOp::Sum, {0}}, {sparts}, {stot}, std::nullopt});
  g.addNode(Node{ElementwisePayload{ElementwiseOp::Mul, {{0, 0}, {-1, 1.0 / (block * w)}}}, {stot}, {smean}, std::nullopt});
  g.addNode(Node{BroadcastPayload{{0}}, {smean}, {smb}, std::nullopt});
  g.addNode(Node{ElementwisePayload{ElementwiseOp::Sub, {{0, 0}, {1, 0}}}, {sxr, smb}, {sd}, std::nullopt});
  g.addNode(Node{MovePayload{}, {sd}, {sy}, std::nullopt});
  return g;
}

}  // namespace

TEST_CASE("symbolic checker: every golden GIR graph gets the element-level verdict and kinds", "[symbolic]") {
  int clean = 0, racy = 0;
  for (const auto& entry : std::filesystem::directory_iterator(test::sourcePath("tests/golden/gir"))) {
    auto g = loadGirFile(entry.path().string());
    REQUIRE(g);
    INFO(entry.path().filename().string());
    requireAgreement(*g);
    auto r = checkMemoryModelSymbolic(*g);
    REQUIRE(r);
    (r->clean() ? clean : racy) += 1;
  }
  CHECK(clean >= 6);
  CHECK(racy == 2);  // softmax_race and softmax_scope
}

TEST_CASE("symbolic checker: the deleted block sync is a race with a real witness", "[symbolic]") {
  auto g = loadGirFile(test::sourcePath("tests/golden/gir/softmax_race.gir"));
  REQUIRE(g);
  auto r = checkMemoryModelSymbolic(*g);
  REQUIRE(r);
  REQUIRE_FALSE(r->clean());
  const MemoryFinding& f = r->findings.front();
  CHECK(f.kind == FindingKind::Race);
  CHECK(f.buffer == "pmax_s");
  CHECK(f.firstUnit / 4 == f.secondUnit / 4);
  CHECK(f.firstUnit != f.secondUnit);
  CHECK_THAT(f.message, Catch::Contains("buffer '%pmax_s' (smem) element") && Catch::Contains("with no sync covering both units"));
}

TEST_CASE("symbolic checker: a row split across blocks through shared memory is a scope violation", "[symbolic]") {
  auto g = loadGirFile(test::sourcePath("tests/golden/gir/softmax_scope.gir"));
  REQUIRE(g);
  auto r = checkMemoryModelSymbolic(*g);
  REQUIRE(r);
  auto kinds = test::findingKinds(*r);
  CHECK(kinds.count(FindingKind::ScopeViolation));
  for (const auto& f : r->findings)
    if (f.kind == FindingKind::ScopeViolation) CHECK_THAT(f.message, Catch::Contains("belongs to block") && Catch::Contains("is shared only within one block"));
}

TEST_CASE("symbolic checker: capacity overflow names level, bytes and the live buffers", "[symbolic]") {
  auto g = loadGirFile(test::sourcePath("tests/golden/gir/relu.gir"));
  REQUIRE(g);
  for (auto& l : g->levels)
    if (l.name == "reg") l.capacityBytes = 48;
  auto r = checkMemoryModelSymbolic(*g);
  REQUIRE(r);
  REQUIRE_FALSE(r->clean());
  const MemoryFinding& f = r->findings.back();
  CHECK(f.kind == FindingKind::CapacityOverflow);
  CHECK_THAT(f.message, Catch::Contains("'reg' needs 64 bytes per unit") && Catch::Contains("capacity of 48") && Catch::Contains("'%xr', '%yr'"));
}

TEST_CASE("symbolic bounds: the first unit out of bounds and its range, as a unit-by-unit scan finds them", "[symbolic]") {
  for (const char* off : {"u", "3*u-2", "5*(u%4)+2*(u/4)", "-2*u+20", "7*(u/3)-(u%3)", "0"}) {
    for (int64_t numel : {8, 16, 24, 40}) {
      MemorySlice s{BufferId(0), *AffineIndex::parse(off), {2, 3}, {4, -1}};
      INFO(off << " numel " << numel);
      auto got = firstOutOfBounds(s, UnitDomain{1, 12}, numel);
      REQUIRE(got);
      std::optional<OutOfBounds> want;
      for (int64_t u = 1; u < 12 && !want; ++u) {
        auto [lo, hi] = sliceExtent(s, u);
        if (lo < 0 || hi >= numel) want = OutOfBounds{u, lo, hi};
      }
      REQUIRE(got->has_value() == want.has_value());
      if (!want) continue;
      CHECK((*got)->unit == want->unit);
      CHECK((*got)->lo == want->lo);
      CHECK((*got)->hi == want->hi);
    }
  }
}

TEST_CASE("symbolic bounds: a range past 64 bits is an error, not a wrapped index", "[symbolic]") {
  MemorySlice huge{BufferId(0), AffineIndex::unit(INT64_MAX / 2), {4}, {1}};
  auto r = firstOutOfBounds(huge, UnitDomain{3, 8}, 100);  // unit 3: 3*(2^62-1) does not fit
  REQUIRE_FALSE(r);
  CHECK_THAT(r.error().message, Catch::Contains("overflow 64-bit indices"));
  MemorySlice wide{BufferId(0), AffineIndex(0), {3, 1 << 30}, {INT64_MAX / 2, 1}};
  auto w = firstOutOfBounds(wide, UnitDomain{0, 8}, 100);
  REQUIRE_FALSE(w);
}

TEST_CASE("scale: a million-unit row program is verified and checked in well under a second", "[symbolic][scale]") {
  for (bool withSync : {true, false}) {
    Graph g = rowProgram(1'000'000, withSync);
    auto start = std::chrono::steady_clock::now();
    auto verified = verifyGraph(g);
    auto r = checkMemoryModelSymbolic(g);
    double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    INFO("with sync " << withSync << ": " << seconds << " s");
    REQUIRE(verified);
    REQUIRE(r);
    // A bound with a wide margin, not a speed claim (0.05 s in optimized builds, bench numbers in
    // docs/scale.md): the guard is against work per unit, which takes minutes at a million units.
    CHECK(seconds < 5.0);
    if (withSync) {
      CHECK(r->clean());
      continue;
    }
    REQUIRE_FALSE(r->clean());
    CHECK(test::findingKinds(*r) == std::set<FindingKind>{FindingKind::Race});
    CHECK(test::witnessProblem(g, r->findings.front()) == "");
  }
}

TEST_CASE("scale: the row program at 64 units gets the element-level checker's verdict", "[symbolic][scale]") {
  for (bool withSync : {true, false}) requireAgreement(rowProgram(64, withSync));
}

// Plans of real models that spent isl's whole budget before (tests/data/gir-models/README.md): each
// is decided, clean, as the element-level checker decides it; and with one of its device syncs
// deleted (every other one in turn), both checkers give the same verdict and kinds (the larger decode plan: symbolic only, its
// element-level check takes 20 s).
TEST_CASE("symbolic checker: real models' plans are decided within isl's budget, as the element-level checker decides them", "[symbolic][models]") {
  for (const char* name : {"efficientnet_b0_sg0_se_block", "efficientnet_b0_sg4_conv5x5", "gpt2_decode_b8_xla_groups"}) {
    INFO(name);
    std::string path = test::sourcePath(std::string("tests/data/gir-models/") + name + ".gir");
    auto g = loadGirFile(path);
    REQUIRE(g);
    auto r = checkMemoryModelSymbolic(*g);
    REQUIRE(r);
    CHECK(r->clean());
    if (g->units > 10000) continue;
    requireAgreement(*g);
    std::string text = test::readText(path);
    int variants = 0, syncs = 0;
    for (size_t at = text.find("\nsync device"); at != std::string::npos; at = text.find("\nsync device", at + 1)) {
      if (syncs++ % 2) continue;  // every other one: the element-level checks of racy plans take seconds
      std::string without = text.substr(0, at) + text.substr(text.find('\n', at + 1));
      auto racy = parseGirText(without, name);
      REQUIRE(racy);
      INFO("without the sync at offset " << at);
      requireAgreement(*racy);
      ++variants;
    }
    CHECK(variants >= 3);
  }
}
