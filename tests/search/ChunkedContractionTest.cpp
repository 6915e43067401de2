// Memory-bound contractions whose K does not fit a unit's registers with its output part
// (docs/plans.md "Templates"): the unit accumulates K in chunks. Matrix-vector and batched
// matrix-vector products (GPT-2 decode attention with a KV cache, a decode-step projection) at
// small sizes under a small register budget, every template instance checked against the reference
// before and after the greedy optimizer; random shapes too.
#include <catch2/catch.hpp>

#include <random>

#include "core/compute/GraphBuilder.h"
#include "search/lowering/SubgraphLowering.h"
#include "tests/baselines/BaselineTestUtil.h"
#include "tests/search/TemplateCheck.h"

using gir::test::addInput;
using gir::test::checkAllTemplates;
using gir::test::valueOrFail;
using gir::test::wholeGraph;
namespace search = gir::search;
using namespace gir::compute;

namespace {

// How many of the op's offered templates cut its K in chunks.
int chunkedOptions(const Graph& g, const gir::HardwareDesc& hw) {
  int64_t budget = search::boxElementBudget(hw);
  auto sub = wholeGraph(g);
  int chunked = 0;
  for (const auto& t : search::templateOptions(g, sub, 0, budget)) {
    auto state = valueOrFail(search::TemplateState::make(g, sub, budget));
    if (!state.push(t)) continue;
    const auto& b = state.boxes(0);
    if (b.chunk > 0 && b.chunk < b.ext.back()) ++chunked;
  }
  return chunked;
}

}  // namespace

TEST_CASE("matrix-vector products accumulate K in chunks and match the reference", "[search][templates][contract]") {
  // 1 KiB of registers: 85 elements per box, so one output's K of 96 or more no longer fits and no
  // whole-K split exists: K is taken in chunks (whole-K splits are preferred where they exist).
  auto hw = gir::test::smallRegisters("nvidia-h100", 1024);
  SECTION("q.K^T of decode attention: [1,2,1,96] x [1,2,96,8]") {
    Graph g = gir::test::matmulGraph("qk", {1, 2, 1, 96}, {1, 2, 96, 8});
    CHECK(chunkedOptions(g, hw) > 0);
    checkAllTemplates(g, hw);
  }
  SECTION("probs.V of decode attention: [2,2,1,128] x [2,2,128,8]") {
    Graph g = gir::test::matmulGraph("pv", {2, 2, 1, 128}, {2, 2, 128, 8});
    CHECK(chunkedOptions(g, hw) > 0);
    checkAllTemplates(g, hw);
  }
  SECTION("a decode-step projection with a shared weight: [2,1,192] x [192,16]") {
    Graph g = gir::test::matmulGraph("proj", {2, 1, 192}, {192, 16});
    CHECK(chunkedOptions(g, hw) > 0);
    checkAllTemplates(g, hw);
  }
  SECTION("gemm with transposed B, alpha and C: [1,96] x [24,96]^T * 0.5 + c") {
    Graph g;
    g.name = "gemv";
    GraphBuilder b(g);
    GemmAttrs ga;
    ga.transB = true;
    ga.alpha = 0.5;
    g.outputs = {valueOrFail(b.gemm(addInput(g, "a", {1, 96}), addInput(g, "w", {24, 96}), addInput(g, "c", {1, 24}), ga))};
    CHECK(chunkedOptions(g, hw) > 0);
    checkAllTemplates(g, hw);
  }
}

TEST_CASE("chunked contractions over random shapes match the reference", "[search][templates][contract][property]") {
  auto hw = gir::test::smallRegisters("cpu-host", 768);  // 64 elements per box
  std::mt19937 rng(20261207);
  int chunked = 0;
  for (int trial = 0; trial < 8; ++trial) {
    int64_t batch = 1 + static_cast<int64_t>(rng() % 3), m = 1 + static_cast<int64_t>(rng() % 2);
    int64_t k = 8 * (4 + static_cast<int64_t>(rng() % 12)), n = 1 + static_cast<int64_t>(rng() % 24);
    Graph g = gir::test::matmulGraph("random_contract_" + std::to_string(trial), {batch, m, k}, trial % 2 ? Dims{k, n} : Dims{batch, k, n});
    INFO(g.name << ": [" << batch << "," << m << "," << k << "] x [" << k << "," << n << "]");
    chunked += chunkedOptions(g, hw);
    checkAllTemplates(g, hw);
  }
  CHECK(chunked > 0);
}
