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

TEST_CASE("all-constant ops fold; a constant broadcast into a run-time op stays an op", "[onnx][builder]") {
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

TEST_CASE("masks built from Range and comparisons fold; Where applies them at run time", "[onnx][evaluator]") {
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
