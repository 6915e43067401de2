// Every template instance of every op kind is valid by construction: each op alone (and a few
// chains), under every template the search may offer, lowers to a GIR-Graph that verifies, passes
// the memory-model checker, and matches the reference evaluator; after the greedy optimizer too.
#include <catch2/catch.hpp>

#include <functional>
#include <set>

#include "core/compute/GraphBuilder.h"
#include "core/compute/Preprocess.h"
#include "search/GirSearch.h"
#include "search/lowering/SubgraphLowering.h"
#include "tests/baselines/BaselineTestUtil.h"
#include "tests/search/TemplateCheck.h"

using gir::ElementwiseOp;
using gir::Expected;
using gir::ReduceOp;
using gir::loadHardwareByName;
using gir::test::addInput;
using gir::test::wholeGraph;
using gir::test::valueOrFail;
namespace search = gir::search;
using namespace gir::compute;

namespace {

using gir::test::checkAllTemplates;

}  // namespace

TEST_CASE("every template of every op kind lowers to a valid graph that matches the reference", "[search][templates]") {
  SECTION("elementwise and broadcast") {
    Graph g;
    g.name = "ew";
    GraphBuilder b(g);
    TensorId x = addInput(g, "x", {8, 32});
    TensorId v = addInput(g, "v", {32});
    g.outputs = {valueOrFail(b.binary(ElementwiseOp::Mul, valueOrFail(b.unary(ElementwiseOp::Exp, x)), v))};
    checkAllTemplates(g);
  }
  SECTION("row and column reductions") {
    Graph g;
    g.name = "reduce";
    GraphBuilder b(g);
    TensorId x = addInput(g, "x", {16, 24});
    g.outputs = {valueOrFail(b.reduce(ReduceOp::Sum, x, {0}, false)), valueOrFail(b.reduce(ReduceOp::Max, x, {1}, true))};
    checkAllTemplates(g);
  }
  SECTION("transpose, reshape, concat, split, slice") {
    Graph g;
    g.name = "layout";
    GraphBuilder b(g);
    TensorId x0 = addInput(g, "x0", {1, 6, 4, 4});
    TensorId x1 = addInput(g, "x1", {1, 6, 4, 4});
    TensorId c = valueOrFail(b.concat({x0, x1}, 1));
    TensorId t = valueOrFail(b.reshape(valueOrFail(b.transpose(valueOrFail(b.reshape(c, {1, 2, 6, 4, 4})), {0, 2, 1, 3, 4})), {1, 12, 4, 4}));
    auto ys = valueOrFail(b.split(t, 1, {6, 6}));
    g.outputs = {ys[0], ys[1], valueOrFail(b.slice(x0, {0, 1, 0, 0}, {1, 2, 1, 1}, {1, 3, 4, 4}))};
    checkAllTemplates(g);
  }
  SECTION("a concat of computed inputs: leads through a chain, on either input") {
    Graph g;
    g.name = "lead";
    GraphBuilder b(g);
    TensorId x = addInput(g, "x", {1, 4, 4, 4});
    TensorId e = valueOrFail(b.unary(ElementwiseOp::Relu, valueOrFail(b.unary(ElementwiseOp::Exp, x))));
    TensorId c = valueOrFail(b.concat({addInput(g, "x_pass", {1, 2, 4, 4}), e, valueOrFail(b.unary(ElementwiseOp::Neg, x))}, 1));
    g.outputs = {valueOrFail(b.reshape(valueOrFail(b.transpose(c, {0, 2, 1, 3})), {4, 40}))};
    auto hw = valueOrFail(loadHardwareByName("nvidia-h100"));
    std::set<size_t> leading;  // exp and relu (the chain) and neg lead the concat
    for (size_t i = 0; i < g.ops.size(); ++i)
      for (const auto& t : search::templateOptions(g, wholeGraph(g), i, search::boxElementBudget(hw)))
        if (t.kind == search::OpTemplate::Kind::Lead) leading.insert(i);
    CHECK(leading == std::set<size_t>{0, 1, 2});
    checkAllTemplates(g);
  }
  SECTION("batched matmul with a broadcast batch, and gemm") {
    Graph g;
    g.name = "contract";
    GraphBuilder b(g);
    TensorId q = addInput(g, "q", {1, 4, 1, 16});
    TensorId k = addInput(g, "k", {1, 4, 16, 9});
    TensorId a = addInput(g, "a", {6, 8});
    TensorId w = addInput(g, "w", {5, 8});
    TensorId c = addInput(g, "c", {6, 5});
    GemmAttrs ga;
    ga.transB = true;
    ga.alpha = 0.5;
    g.outputs = {valueOrFail(b.matmul(q, k)), valueOrFail(b.gemm(a, w, c, ga))};
    checkAllTemplates(g);
  }
  SECTION("batch norm, a depthwise convolution with padding and stride, a pointwise convolution") {
    Graph g;
    g.name = "conv";
    GraphBuilder b(g);
    TensorId x = addInput(g, "x", {1, 4, 7, 7});
    std::vector<TensorId> bn{x};
    for (const char* n : {"scale", "bias", "mean", "var"}) bn.push_back(addInput(g, n, {4}));
    g.tensor(bn[4]).constant = std::vector<double>{0.5, 1.0, 2.0, 0.25};
    TensorId w = addInput(g, "w", {4, 1, 3, 3});
    TensorId bias = addInput(g, "b", {4});
    ConvAttrs ca;
    ca.group = 4;
    ca.pads = {1, 1, 1, 1};
    ca.strides = {2, 2};
    TensorId dw = valueOrFail(b.conv(valueOrFail(b.batchNorm(bn, {})), w, bias, ca));
    g.outputs = {valueOrFail(b.conv(dw, addInput(g, "pw", {3, 4, 1, 1}), addInput(g, "pb", {3}), ConvAttrs{}))};
    checkAllTemplates(g);
  }
  SECTION("a depthwise convolution in bands of rows: asymmetric padding, dilation, edge bands clipped") {
    Graph g;
    g.name = "conv_bands";
    GraphBuilder b(g);
    TensorId x = addInput(g, "x", {1, 3, 20, 18});
    ConvAttrs ca;
    ca.group = 3;
    ca.pads = {2, 1, 1, 0};
    ca.dilations = {1, 2};
    TensorId y = valueOrFail(b.conv(x, addInput(g, "w", {3, 1, 5, 3}), addInput(g, "b", {3}), ca));
    g.outputs = {valueOrFail(b.unary(ElementwiseOp::Relu, y))};
    // The search must be offered bands (rows outermost), not only whole planes.
    auto hw = valueOrFail(loadHardwareByName("nvidia-h100"));
    bool banded = false;
    for (const auto& t : search::templateOptions(g, wholeGraph(g), 0, search::boxElementBudget(hw)))
      banded = banded || (t.kind == search::OpTemplate::Kind::Natural && t.outer.front() == 2);
    CHECK(banded);
    checkAllTemplates(g);
  }
}
