// The pooling template (docs/plans.md "Templates"): MaxPool and AveragePool as the depthwise
// convolution's padded window without weights. Every template instance at small sizes is lowered,
// checked against the reference evaluator, optimized and checked again; random shapes, kernels,
// strides, pads, ceil_mode and count_include_pad under a small register budget (bands of rows) too.
#include <catch2/catch.hpp>

#include <random>

#include "core/compute/GraphBuilder.h"
#include "core/compute/Preprocess.h"
#include "search/lowering/IterationSpace.h"
#include "search/lowering/SubgraphLowering.h"
#include "tests/baselines/BaselineTestUtil.h"
#include "tests/search/TemplateCheck.h"

using gir::ElementwiseOp;
using gir::test::addInput;
using gir::test::checkAllTemplates;
using gir::test::valueOrFail;
using gir::test::wholeGraph;
namespace search = gir::search;
using namespace gir::compute;

namespace {

PoolAttrs poolAttrs(PoolKind kind, int64_t k, int64_t stride, std::vector<int64_t> pads, bool countIncludePad = false) {
  PoolAttrs a;
  a.kind = kind;
  a.kernel = {k, k};
  a.strides = {stride, stride};
  a.pads = std::move(pads);
  a.countIncludePad = countIncludePad;
  return a;
}

// relu -> pool, so the pool is also checked following its producer's planes.
Graph pooled(const std::string& name, Dims x, const PoolAttrs& a, bool ceilMode) {
  Graph g;
  g.name = name;
  GraphBuilder b(g);
  TensorId r = valueOrFail(b.unary(ElementwiseOp::Relu, addInput(g, "x", std::move(x))));
  g.outputs = {valueOrFail(b.pool(r, a, ceilMode))};
  return g;
}

}  // namespace

TEST_CASE("pooling has an iteration space: output planes in bands of rows, the window read by the emitter", "[search][templates][pool]") {
  Graph g = pooled("stem", {1, 24, 112, 112}, poolAttrs(PoolKind::Max, 3, 2, {1, 1, 1, 1}), false);
  auto s = valueOrFail(search::iterationSpace(g, g.ops[1]));
  CHECK(s.compute == search::ComputeKind::Pool);
  CHECK(s.dims == std::vector<int64_t>{1, 24, 56, 56});
  CHECK(s.band[2]);
  CHECK(s.whole[3]);
  // ShuffleNetV2's stem plane (56x56 out of 112x112) does not fit cpu-host's registers with its
  // window: bands of rows are offered, each within the budget counted on the window.
  auto hw = valueOrFail(gir::loadHardwareByName("cpu-host"));
  // Pooling is memory-bound (9 compares per output, 20 bytes moved): it joins the ReLU's subgraph.
  auto pre = valueOrFail(preprocess(g, hw));
  REQUIRE(pre.subgraphs.size() == 1);
  CHECK(pre.subgraphs[0].ops.size() == 2);
  int64_t budget = search::boxElementBudget(hw);
  auto options = search::templateOptions(g, wholeGraph(g), 1, budget);
  REQUIRE_FALSE(options.empty());
  bool banded = false;
  for (const auto& t : options)
    if (t.kind == search::OpTemplate::Kind::Natural) {
      banded = banded || t.outer.front() == 2;
      auto boxes = valueOrFail(search::naturalBoxes(s, t.outer, t.tile));
      CHECK(search::liveBoxElements(s, boxes.ext, budget) <= budget);
    }
  CHECK(banded);
}

TEST_CASE("every pooling template instance matches the reference", "[search][templates][pool]") {
  SECTION("max 3x3 stride 2 pad 1 (ShuffleNetV2's stem, small)") {
    checkAllTemplates(pooled("maxpool_stem", {1, 4, 14, 14}, poolAttrs(PoolKind::Max, 3, 2, {1, 1, 1, 1}), false));
  }
  SECTION("max 2x2 stride 2, no padding, ceil_mode on odd planes") {
    checkAllTemplates(pooled("maxpool_ceil", {2, 3, 9, 7}, poolAttrs(PoolKind::Max, 2, 2, {0, 0, 0, 0}), true));
  }
  SECTION("average 3x3 stride 1 pad 1 without the pads in the count") {
    checkAllTemplates(pooled("avgpool_exclude", {1, 3, 8, 8}, poolAttrs(PoolKind::Average, 3, 1, {1, 1, 1, 1}), false));
  }
  SECTION("average 3x3 stride 2 pad 1 with the pads in the count, ceil_mode past the pads") {
    checkAllTemplates(pooled("avgpool_include", {1, 2, 10, 10}, poolAttrs(PoolKind::Average, 3, 2, {1, 1, 1, 1}, true), true));
  }
  SECTION("average 2x2 stride 2 (a ResNet-D shortcut), ceil_mode without the pads in the count") {
    checkAllTemplates(pooled("avgpool_resnet", {1, 4, 7, 7}, poolAttrs(PoolKind::Average, 2, 2, {0, 0, 0, 0}), true));
  }
}

TEST_CASE("pooling over random shapes, kernels, strides and pads matches the reference in bands", "[search][templates][pool][property]") {
  // 1 KiB of registers: a box of about 85 window elements, so most planes are cut in bands.
  auto hw = gir::test::smallRegisters("nvidia-h100", 1024);
  std::mt19937 rng(20261207);
  for (int trial = 0; trial < 10; ++trial) {
    int64_t k = 2 + static_cast<int64_t>(rng() % 2), stride = 1 + static_cast<int64_t>(rng() % 2);
    int64_t pad = static_cast<int64_t>(rng() % k);
    std::vector<int64_t> pads{pad, static_cast<int64_t>(rng() % k), static_cast<int64_t>(rng() % k), pad};
    PoolAttrs a = poolAttrs(trial % 2 ? PoolKind::Max : PoolKind::Average, k, stride, pads, rng() % 2);
    Dims x{1 + static_cast<int64_t>(rng() % 2), 1 + static_cast<int64_t>(rng() % 3), 5 + static_cast<int64_t>(rng() % 8),
           5 + static_cast<int64_t>(rng() % 8)};
    Graph g = pooled("random_pool_" + std::to_string(trial), x, a, rng() % 2);
    INFO(g.name << ": kernel " << k << " stride " << stride << " pads " << pads[0] << "," << pads[1] << "," << pads[2] << "," << pads[3]);
    checkAllTemplates(g, hw);
  }
}
