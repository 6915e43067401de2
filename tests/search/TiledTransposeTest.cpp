// Transposes tiled through shared memory (search/lowering/TiledTranspose.h): each block stages a
// square through a scratch tile so that both the DRAM reads and the DRAM writes are contiguous.
// Every instance is verified, memory-checked and compared with the reference evaluator, before and
// after the greedy optimizer, and the optimizer must find that the scratch stays within a block.
#include <catch2/catch.hpp>


#include "core/compute/GraphBuilder.h"
#include "rewrite/Cost.h"
#include "search/GirSearch.h"
#include "search/lowering/SubgraphLowering.h"
#include "search/lowering/TiledTranspose.h"
#include "tests/baselines/BaselineTestUtil.h"
#include "tests/search/TemplateCheck.h"

using gir::Scope;
using gir::loadHardwareByName;
using gir::test::addInput;
using gir::test::syncs;
using gir::test::wholeGraph;
using gir::test::valueOrFail;
namespace search = gir::search;
using namespace gir::compute;

namespace {

Graph transposeGraph(const std::string& name, std::vector<int64_t> dims, std::vector<int> perm) {
  Graph g;
  g.name = name;
  GraphBuilder b(g);
  g.outputs = {valueOrFail(b.transpose(addInput(g, "x", dims), perm))};
  return g;
}

std::optional<search::OpTemplate> tiledOption(const Graph& g, const Subgraph& sub, const gir::HardwareDesc& hw) {
  for (const auto& t : search::templateOptions(g, sub, 0, search::boxElementBudget(hw)))
    if (t.kind == search::OpTemplate::Kind::Tiled) return t;
  return std::nullopt;
}

// Lowered and optimized: both valid and exactly equal to the reference (a copy); the optimized graph.
gir::Graph checkTemplate(const Graph& g, const Subgraph& sub, const gir::HardwareDesc& hw, const search::OpTemplate& t) {
  return gir::test::checkLoweredAndOptimized(g, sub, hw, {t}, 0).second;
}

}  // namespace

TEST_CASE("a tiled transpose stages each square through a block's shared memory", "[search][tiled-transpose]") {
  auto hw = valueOrFail(loadHardwareByName("nvidia-h100"));
  Graph g = transposeGraph("transpose_2d", {64, 96}, {1, 0});
  Subgraph sub = wholeGraph(g);
  auto tiled = tiledOption(g, sub, hw);
  REQUIRE(tiled);
  CHECK(tiled->str() == "tiled32/4");
  gir::Graph opt = checkTemplate(g, sub, hw, *tiled);
  CHECK(syncs(opt, Scope::Device) == 0);
  CHECK(syncs(opt, Scope::Block) >= 1);
  std::string level;
  for (const auto& b : opt.buffers())
    if (!b.erased && b.name.find("_tile") != std::string::npos) level = b.level;
  CHECK(level == "smem");
  // Contiguous on both DRAM sides: the DRAM term is at full efficiency (bytes over bandwidth).
  auto cost = gir::computeCost(opt, &hw);
  REQUIRE(cost.perKernel.size() == 1);
  CHECK(cost.dramBytes == 2 * 64 * 96 * 4);
  CHECK(cost.perKernel[0].dramUs <= static_cast<double>(cost.dramBytes) / (hw.dramBandwidthGBs() * 1e3) * (1 + 1e-9));
}

TEST_CASE("tiled transposes of higher rank, sides 32 and 16, match the reference", "[search][tiled-transpose]") {
  for (auto hwName : {"nvidia-h100", "cpu-host"}) {
    auto hw = valueOrFail(loadHardwareByName(hwName));
    // NCHW -> NHWC: the source's innermost is W, the destination's is C.
    Graph nhwc = transposeGraph("nchw_to_nhwc", {2, 32, 4, 16}, {0, 2, 3, 1});
    auto t1 = tiledOption(nhwc, wholeGraph(nhwc), hw);
    REQUIRE(t1);
    CHECK(t1->tile == 16);
    checkTemplate(nhwc, wholeGraph(nhwc), hw, *t1);
    // The attention head split: [B, S, H, D] -> [B, H, D, S].
    Graph heads = transposeGraph("heads", {1, 64, 2, 32}, {0, 2, 3, 1});
    auto t2 = tiledOption(heads, wholeGraph(heads), hw);
    REQUIRE(t2);
    CHECK(t2->tile == 32);
    checkTemplate(heads, wholeGraph(heads), hw, *t2);
  }
}

TEST_CASE("no tiled template where there is nothing to stage", "[search][tiled-transpose]") {
  auto hw = valueOrFail(loadHardwareByName("nvidia-h100"));
  // The innermost dim stays innermost: rows move, each row is contiguous on both sides.
  Graph rows = transposeGraph("rows", {4, 32, 32}, {1, 0, 2});
  CHECK_FALSE(tiledOption(rows, wholeGraph(rows), hw));
  // Neither 32 nor 16 divides 24.
  Graph odd = transposeGraph("odd", {24, 64}, {1, 0});
  CHECK_FALSE(tiledOption(odd, wholeGraph(odd), hw));
  auto st = search::tiledBoxes(valueOrFail(search::iterationSpace(odd, odd.ops.front())), 32, 4);
  REQUIRE_FALSE(st);
  CHECK(st.error().message.find("does not divide") != std::string::npos);
}

TEST_CASE("the search takes the tiled transpose for a large transpose", "[search][tiled-transpose]") {
  auto hw = valueOrFail(loadHardwareByName("nvidia-h100"));
  Graph g = transposeGraph("big_transpose", {256, 512}, {1, 0});
  auto found = valueOrFail(search::searchTemplates(g, wholeGraph(g), hw));
  CHECK(found.choice.front().kind == search::OpTemplate::Kind::Tiled);
  CHECK(found.cost.kernels == 1);
  CHECK(found.cost.dramBytes == 2 * 256 * 512 * 4);
}
