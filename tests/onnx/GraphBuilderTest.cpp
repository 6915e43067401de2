// The computation graph mostly without ONNX: builder shape inference and folding, evaluator semantics of
// the layout ops, and the partition rule that keeps subgraphs and library calls acyclic.
#include <catch2/catch.hpp>

#include "core/compute/GraphBuilder.h"
#include "core/compute/Preprocess.h"
#include "core/compute/ReferenceEvaluator.h"
#include "core/onnx/OnnxImporter.h"
#include "tests/support/TestSupport.h"

using namespace gir;
using namespace gir::compute;

namespace {

TensorId input(Graph& g, const std::string& name, Dims dims) {
  TensorId t = g.addTensor(name, DType::F32, std::move(dims));
  g.inputs.push_back(t);
  return t;
}

std::vector<double> iota(int64_t n) {
  std::vector<double> v;
  for (int64_t i = 0; i < n; ++i) v.push_back(static_cast<double>(i));
  return v;
}

HardwareDesc ridge(double flopsPerByte) {
  HardwareDesc hw;
  hw.name = "test";
  hw.levels.push_back(MemoryLevelDesc{"dram", Scope::Device, 1 << 30, 100.0, 64});
  hw.peakGflops = flopsPerByte * 100.0;
  return hw;
}

}  // namespace

TEST_CASE("all-constant ops fold, a constant broadcast into a run-time op stays an op", "[onnx][builder]") {
  Graph g;
  GraphBuilder b(g);
  TensorId x = input(g, "x", {2, 3});
  TensorId c = b.constant(TensorData{DType::I64, {3}, {1, 2, 3}});
  auto doubled = b.binary(ElementwiseOp::Mul, c, 2.0);
  REQUIRE(doubled.ok());
  CHECK(b.isConstant(*doubled));
  CHECK(*g.tensor(*doubled).constant == std::vector<double>{2, 4, 6});
  CHECK(g.ops.empty());
  auto bias = b.constant(TensorData{DType::F32, {3}, {1, 1, 1}});
  auto y = b.binary(ElementwiseOp::Add, x, bias);
  REQUIRE(y.ok());
  REQUIRE(g.ops.size() == 2);  // broadcast of the [3] bias, then the add
  CHECK(g.ops[0].kind() == OpKind::Broadcast);
  CHECK(g.tensor(g.ops[0].inputs[0]).dims == Dims{3});
}

TEST_CASE("one-element constants become scalar operands", "[onnx][builder]") {
  Graph g;
  GraphBuilder b(g);
  TensorId x = input(g, "x", {4});
  auto y = b.binary(ElementwiseOp::Div, x, b.scalar(2.0));
  REQUIRE(y.ok());
  REQUIRE(g.ops.size() == 1);
  const auto& attrs = std::get<ElementwiseAttrs>(g.ops[0].attrs);
  CHECK(attrs.args[1].input == -1);
  CHECK(attrs.args[1].scalar == 2.0);
}

TEST_CASE("shape errors are values, not crashes", "[onnx][builder]") {
  Graph g;
  GraphBuilder b(g);
  TensorId x = input(g, "x", {2, 3});
  CHECK_FALSE(b.reshape(x, {4, 4}).ok());
  CHECK_FALSE(b.transpose(x, {0, 0}).ok());
  CHECK_FALSE(b.matmul(x, x).ok());
  CHECK_FALSE(b.slice(x, {0, 3}, {1, 1}, {2, 1}).ok());
  CHECK_FALSE(b.broadcastTo(x, {-1, 3}).ok());
}

TEST_CASE("slice with a negative step, transpose and reduce evaluate as numpy does", "[onnx][evaluator]") {
  Graph g;
  GraphBuilder b(g);
  TensorId x = input(g, "x", {2, 3});
  auto rev = b.slice(x, {0, 2}, {1, -1}, {2, 3});  // x[:, ::-1]
  auto tr = b.transpose(*rev, {1, 0});
  auto red = b.reduce(ReduceOp::Sum, *tr, {1}, false);
  REQUIRE(red.ok());
  g.outputs = {*rev, *tr, *red};
  auto out = evaluate(g, {TensorData{DType::F32, {2, 3}, iota(6)}});
  REQUIRE(out.ok());
  CHECK((*out)[0].values == std::vector<double>{2, 1, 0, 5, 4, 3});
  CHECK((*out)[1].values == std::vector<double>{2, 5, 1, 4, 0, 3});
  CHECK((*out)[2].values == std::vector<double>{7, 5, 3});
}

TEST_CASE("a path through a library call splits memory-bound ops into two subgraphs", "[onnx][preprocess]") {
  // a = relu(x); m = a @ w (compute-bound); y = m + a. Joining `a`'s op with the add would make a
  // cycle subgraph -> matmul -> subgraph, so they must be apart.
  Graph g;
  GraphBuilder b(g);
  TensorId x = input(g, "x", {64, 64});
  TensorId w = input(g, "w", {64, 64});
  auto a = b.unary(ElementwiseOp::Relu, x);
  auto m = b.matmul(*a, w);
  auto y = b.binary(ElementwiseOp::Add, *m, *a);
  REQUIRE(y.ok());
  g.outputs = {*y};
  auto lowRidge = preprocess(g, ridge(1.0));
  REQUIRE(lowRidge.ok());
  REQUIRE(lowRidge->library.size() == 1);
  CHECK(lowRidge->library[0].computeBound);  // 2*64^3 / (3*64*64*4) = 10.7 FLOP/byte
  CHECK(lowRidge->subgraphs.size() == 2);
  auto highRidge = preprocess(g, ridge(100.0));
  REQUIRE(highRidge.ok());
  CHECK_FALSE(highRidge->library[0].computeBound);
  CHECK(highRidge->subgraphs.size() == 1);  // all memory-bound: one subgraph
  CHECK(highRidge->subgraphs[0].minBytes == 3 * 64 * 64 * 4);
}

TEST_CASE("a memory-bound convolution without a GIR template is a library call, pointwise and depthwise ones are GIR's", "[onnx][preprocess]") {
  // ShuffleNetV2's stem: a dense 3x3 convolution over 3 channels, memory-bound where the ridge point
  // is high. GIR has no template for it, so it must be a library call (the relu after it stays a
  // subgraph of its own) rather than a subgraph that cannot plan.
  Graph g;
  GraphBuilder b(g);
  ConvAttrs dense;
  dense.strides = {2, 2};
  dense.pads = {1, 1, 1, 1};
  TensorId x = input(g, "x", {1, 3, 32, 32});
  auto stem = b.conv(x, input(g, "w_stem", {24, 3, 3, 3}), std::nullopt, dense);
  REQUIRE(stem.ok());
  auto act = b.unary(ElementwiseOp::Relu, *stem);
  ConvAttrs depthwise;
  depthwise.pads = {1, 1, 1, 1};
  depthwise.group = 24;
  auto dw = b.conv(*act, input(g, "w_dw", {24, 1, 3, 3}), std::nullopt, depthwise);
  auto pw = b.conv(*dw, input(g, "w_pw", {24, 24, 1, 1}), std::nullopt, ConvAttrs{});
  REQUIRE(pw.ok());
  g.outputs = {*pw};
  CHECK(convTemplate(g, g.ops[0]) == ConvTemplate::None);
  auto pre = preprocess(g, ridge(1000.0));  // every call memory-bound by intensity
  REQUIRE(pre.ok());
  REQUIRE(pre->library.size() == 3);
  CHECK_FALSE(pre->library[0].computeBound);
  CHECK(pre->library[0].noTemplate);
  CHECK(pre->library[0].libraryCall());
  CHECK(pre->library[0].verdict() == "memory-bound, no GIR template: library call");
  for (size_t i : {1, 2}) {
    CHECK_FALSE(pre->library[i].libraryCall());
    CHECK(pre->library[i].verdict() == "memory-bound: lowered to GIR");
  }
  CHECK(pre->subgraphOf[0] == -1);
  REQUIRE(pre->subgraphs.size() == 1);  // relu, depthwise and pointwise: one subgraph after the call
  CHECK(pre->subgraphs[0].ops.size() == 3);
  auto text = printPreprocessSummary(g, *pre);
  CHECK_THAT(text, Catch::Contains("-> memory-bound, no GIR template: library call"));
}

TEST_CASE("1-D Conv (strided, padded, dilated, grouped) and 1-D AveragePool match numpy", "[onnx][evaluator]") {
  // tests/onnx/data/make_conv1d.py computes the expected output with its own numpy loops.
  auto g = importOnnxFile(test::sourcePath("tests/onnx/data/conv1d.onnx"));
  REQUIRE(g.ok());
  auto x = loadOnnxTensorFile(test::sourcePath("tests/onnx/data/conv1d_input.pb"));
  auto expected = loadOnnxTensorFile(test::sourcePath("tests/onnx/data/conv1d_output.pb"));
  REQUIRE(x.ok());
  REQUIRE(expected.ok());
  auto out = evaluate(*g, {*x});
  REQUIRE(out.ok());
  REQUIRE((*out)[0].dims == expected->dims);
  for (size_t i = 0; i < expected->values.size(); ++i)
    CHECK((*out)[0].values[i] == Approx(expected->values[i]).margin(1e-5));
}

TEST_CASE("masks built from Range and comparisons fold, Where applies them at run time", "[onnx][evaluator]") {
  // tests/onnx/data/make_mask.py: Range, Unsqueeze, Greater, Not, GreaterOrEqual, And, Equal, Or,
  // Less, Xor all fold; only the mask broadcast and the Where select remain.
  auto g = importOnnxFile(test::sourcePath("tests/onnx/data/mask.onnx"));
  REQUIRE(g.ok());
  for (const Op& op : g->ops) CHECK((op.kind() == OpKind::Elementwise || op.kind() == OpKind::Broadcast));
  auto x = loadOnnxTensorFile(test::sourcePath("tests/onnx/data/mask_input.pb"));
  auto expected = loadOnnxTensorFile(test::sourcePath("tests/onnx/data/mask_output.pb"));
  REQUIRE(x.ok());
  REQUIRE(expected.ok());
  auto out = evaluate(*g, {*x});
  REQUIRE(out.ok());
  CHECK((*out)[0].values == expected->values);
}
