// The hand-built GIR examples of the paper's figures (tests/golden/gir): valid ones match an independent
// plain-loop reference; broken ones get the finding that names buffer, element and units.
#include <catch2/catch.hpp>

#include <cmath>

#include "core/gir/Json.h"
#include "core/gir/Validity.h"
#include "tests/support/TestSupport.h"

using namespace gir;

namespace {

Graph load(const std::string& name) {
  auto g = loadGirFile(test::sourcePath("tests/golden/gir/" + name));
  INFO((g ? "" : g.error().str()));
  REQUIRE(g);
  return *g;
}

void requireClose(const std::vector<float>& actual, const std::vector<double>& expected) {
  REQUIRE(actual.size() == expected.size());
  double worst = 0;
  for (size_t i = 0; i < actual.size(); ++i)
    worst = std::max(worst, std::fabs(actual[i] - expected[i]) / std::max(std::fabs(expected[i]), 1e-30));
  CHECK(worst <= 1e-6);
}

}  // namespace

TEST_CASE("relu example is valid and computes max(x, 0)", "[examples]") {
  Graph g = load("relu.gir");
  for (uint64_t seed : {1, 2, 3}) {
    TensorMap in = randomInputs(g, seed);
    ValidityReport r = checkValidity(g, in);
    INFO(r.str());
    REQUIRE(r.valid());
    const auto& x = in.at("x");
    std::vector<double> want(x.size());
    for (size_t i = 0; i < x.size(); ++i) want[i] = x[i] > 0 ? x[i] : 0.0;
    requireClose(r.outputs.at("y"), want);
  }
}

TEST_CASE("block-shared row softmax is valid and matches a plain-loop softmax", "[examples]") {
  Graph g = load("softmax_block.gir");
  CHECK(kernelCount(g) == 1);
  for (uint64_t seed : {7, 8}) {
    TensorMap in = randomInputs(g, seed);
    ValidityReport r = checkValidity(g, in);
    INFO(r.str());
    REQUIRE(r.valid());
    const auto& x = in.at("x");
    std::vector<double> want(x.size());
    for (int row = 0; row < 8; ++row) {
      double m = -INFINITY, s = 0;
      for (int c = 0; c < 64; ++c) m = std::max(m, double(x[row * 64 + c]));
      for (int c = 0; c < 64; ++c) s += std::exp(double(x[row * 64 + c]) - m);
      for (int c = 0; c < 64; ++c) want[row * 64 + c] = std::exp(double(x[row * 64 + c]) - m) / s;
    }
    requireClose(r.outputs.at("y"), want);
  }
}

TEST_CASE("deleting the block sync is reported as a race naming buffer, element and units", "[examples]") {
  Graph g = load("softmax_race.gir");
  ValidityReport r = checkValidity(g, randomInputs(g, 1));
  REQUIRE(r.verified);
  REQUIRE_FALSE(r.memory.clean());
  const MemoryFinding& f = r.memory.findings.front();
  CHECK(f.kind == FindingKind::Race);
  CHECK(f.buffer == "pmax_s");
  CHECK(f.element >= 0);
  CHECK(f.firstUnit != f.secondUnit);
  CHECK(g.blockOf(f.firstUnit) == g.blockOf(f.secondUnit));
  CHECK_THAT(f.message, Catch::Contains("pmax_s") && Catch::Contains("unit " + std::to_string(f.firstUnit)) &&
                            Catch::Contains("unit " + std::to_string(f.secondUnit)));
}

TEST_CASE("a row split across two blocks through shared memory is a scope error", "[examples]") {
  Graph g = load("softmax_scope.gir");
  ValidityReport r = checkValidity(g, randomInputs(g, 1));
  REQUIRE(r.verified);
  bool scopeError = false;
  for (const auto& f : r.memory.findings)
    if (f.kind == FindingKind::ScopeViolation) {
      scopeError = true;
      CHECK(g.blockOf(f.firstUnit) != g.blockOf(f.secondUnit));
      CHECK_THAT(f.message, Catch::Contains("smem") && Catch::Contains("block"));
    }
  CHECK(scopeError);
}

TEST_CASE("two kernels joined by a device sync", "[examples]") {
  Graph g = load("two_kernels.gir");
  CHECK(kernelCount(g) == 2);
  TensorMap in = randomInputs(g, 5);
  ValidityReport r = checkValidity(g, in);
  INFO(r.str());
  REQUIRE(r.valid());
  const auto& x = in.at("x");
  std::vector<double> want(x.size());
  for (int u = 0; u < 64; ++u)
    for (int i = 0; i < 16; ++i) want[u * 16 + i] = double(std::exp(double(x[(63 - u) * 16 + i]))) + 1.0;
  requireClose(r.outputs.at("y"), want);
}

TEST_CASE("lowering the device sync of the two-kernel graph to block scope is caught", "[examples]") {
  Graph g = load("two_kernels.gir");
  for (uint32_t i = 0; i < g.nodes().size(); ++i)
    if (g.node(NodeId(i)).isSync()) g.node(NodeId(i)).payload = SyncPayload{Scope::Block};
  ValidityReport r = checkValidity(g, randomInputs(g, 5));
  REQUIRE(r.verified);
  REQUIRE_FALSE(r.memory.clean());
  CHECK(r.memory.findings.front().kind == FindingKind::Race);
}
