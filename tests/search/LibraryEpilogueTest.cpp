// Library-op epilogues (core/compute/LibraryFusion.h): which ops fold into a compute-bound call on
// small hand-built graphs, what stops an epilogue, the bytes that move, that the moved boundaries
// still compute the model (every call and subgraph evaluated from its declared inputs alone,
// against the reference evaluator on the whole graph), a golden of the transformer block, and the
// planners on the moved boundaries (every plan valid, fewer bytes; the option off changes nothing).
#include <catch2/catch.hpp>

#include <algorithm>
#include <map>
#include <random>
#include <set>

#include "core/compute/GraphBuilder.h"
#include "core/compute/LibraryFusion.h"
#include "core/compute/Preprocess.h"
#include "core/compute/ReferenceEvaluator.h"
#include "core/onnx/OnnxImporter.h"
#include "search/ModelPlanner.h"
#include "tests/support/TestSupport.h"

using namespace gir;
using compute::Dims;
using compute::OpId;
using compute::TensorId;

namespace {

template <typename T>
T valueOrFail(Expected<T> e) {
  if (!e) FAIL(e.error().str());
  return std::move(*e);
}

TensorId input(compute::Graph& g, const std::string& name, Dims dims) {
  TensorId t = g.addTensor(name, compute::DType::F32, std::move(dims));
  g.inputs.push_back(t);
  return t;
}

TensorId constant(compute::GraphBuilder& b, const std::string& name, Dims dims) {
  compute::TensorData d{compute::DType::F32, dims, {}};
  for (int64_t i = 0; i < compute::numElements(dims); ++i) d.values.push_back(compute::roundToDType(compute::DType::F32, 0.01 * (i % 17) - 0.08));
  return b.constant(std::move(d), name);
}

// x[64,256] * w[256,512] on cpu-host: 16.8 MFLOP over 720,896 B, intensity 23 > ridge 5.
TensorId computeBoundMatmul(compute::GraphBuilder& b, TensorId x) {
  b.setContext("mm", "MatMul");
  return valueOrFail(b.matmul(x, constant(b, "w", {256, 512})));
}

TensorId addBias(compute::GraphBuilder& b, TensorId t, Dims biasDims) {
  b.setContext("bias_add", "Add");
  return valueOrFail(b.binary(ElementwiseOp::Add, t, constant(b, "bias", std::move(biasDims))));
}

const HardwareDesc& cpuHost() {
  static HardwareDesc hw = [] {
    auto h = loadHardwareByName("cpu-host");
    if (!h) FAIL(h.error().str());
    return *h;
  }();
  return hw;
}

compute::LibraryBoundaries fold(const compute::Graph& g, const HardwareDesc& hw = cpuHost()) {
  auto pre = valueOrFail(compute::preprocess(g, hw));
  return valueOrFail(compute::foldLibraryEpilogues(g, pre));
}

std::vector<std::string> opNames(const compute::Graph& g, const std::vector<OpId>& ops) {
  std::vector<std::string> names;
  for (OpId id : ops) names.push_back(g.op(id).name);
  return names;
}

std::vector<std::string> tensorNames(const compute::Graph& g, const std::vector<TensorId>& ts) {
  std::vector<std::string> names;
  for (TensorId t : ts) names.push_back(g.tensor(t).name);
  return names;
}

// A compute-bound call with its epilogue, or a subgraph: what it computes and what crosses DRAM.
struct Unit {
  std::string name;
  std::vector<OpId> ops;
  std::vector<TensorId> in, out;
};

std::vector<Unit> unitsOf(const compute::Graph& g, const compute::LibraryBoundaries& b) {
  std::vector<Unit> units;
  std::map<int32_t, const compute::LibraryEpilogue*> epilogueOf;
  for (const auto& e : b.epilogues) epilogueOf[index(e.library)] = &e;
  for (const auto& d : b.pre.library) {
    if (!d.computeBound) continue;
    const auto& op = g.op(d.op);
    Unit u{"call '" + op.name + "'", {d.op}, op.inputs, op.outputs};
    if (auto it = epilogueOf.find(index(d.op)); it != epilogueOf.end()) {
      u.ops.insert(u.ops.end(), it->second->ops.begin(), it->second->ops.end());
      u.in.insert(u.in.end(), it->second->sideInputs.begin(), it->second->sideInputs.end());
      u.out = {it->second->output};
    }
    units.push_back(std::move(u));
  }
  for (size_t i = 0; i < b.pre.subgraphs.size(); ++i)
    units.push_back(Unit{"subgraph " + std::to_string(i), b.pre.subgraphs[i].ops, b.pre.subgraphs[i].inputs, b.pre.subgraphs[i].outputs});
  return units;
}

// Runs one unit from its declared inputs only and stores its declared outputs in `dram`.
void runUnit(const compute::Graph& g, const Unit& unit, std::map<TensorId, compute::TensorData>& dram) {
  std::map<TensorId, compute::TensorData> local;
  for (TensorId t : unit.in) local[t] = dram[t];
  std::vector<OpId> ops = unit.ops;
  std::sort(ops.begin(), ops.end(), [](OpId a, OpId c) { return index(a) < index(c); });
  for (OpId id : ops) {
    const auto& op = g.op(id);
    std::vector<const compute::TensorData*> ins;
    for (TensorId t : op.inputs) {
      INFO(unit.name << ": op '" << op.name << "' reads '" << g.tensor(t).name << "'");
      REQUIRE(local.count(t) == 1);
      ins.push_back(&local[t]);
    }
    auto outs = valueOrFail(compute::evalOp(g, op, ins));
    for (size_t k = 0; k < op.outputs.size(); ++k) local[op.outputs[k]] = std::move(outs[k]);
  }
  for (TensorId t : unit.out) {
    INFO(unit.name << " declares output '" << g.tensor(t).name << "'");
    REQUIRE(local.count(t) == 1);
    dram[t] = local[t];
  }
}

// Runs every unit as soon as its declared inputs exist and returns the graph outputs. A unit that
// reads an undeclared tensor, or units that wait on each other (a cycle), fail the test.
std::vector<compute::TensorData> evaluateByUnits(const compute::Graph& g, const compute::LibraryBoundaries& b,
                                                 const std::vector<compute::TensorData>& inputs) {
  std::vector<Unit> units = unitsOf(g, b);
  std::map<TensorId, compute::TensorData> dram;
  for (size_t i = 0; i < g.inputs.size(); ++i) dram[g.inputs[i]] = inputs[i];
  for (const auto& t : g.tensors)
    if (t.constant) dram[t.id] = compute::TensorData{t.dtype, t.dims, *t.constant};
  std::vector<bool> done(units.size(), false);
  auto ready = [&](const Unit& u) { return std::all_of(u.in.begin(), u.in.end(), [&](TensorId t) { return dram.count(t) > 0; }); };
  for (size_t round = 0; round < units.size(); ++round)
    for (size_t u = 0; u < units.size(); ++u)
      if (!done[u] && ready(units[u])) {
        runUnit(g, units[u], dram);
        done[u] = true;
      }
  for (size_t u = 0; u < units.size(); ++u) {
    INFO(units[u].name << " never had its inputs");
    REQUIRE(done[u]);
  }
  std::vector<compute::TensorData> out;
  for (TensorId t : g.outputs) {
    INFO("graph output '" << g.tensor(t).name << "'");
    REQUIRE(dram.count(t) == 1);
    out.push_back(dram[t]);
  }
  return out;
}

void checkComputesModel(const compute::Graph& g, const compute::LibraryBoundaries& b) {
  std::mt19937_64 rng(5);
  std::uniform_real_distribution<double> dist(-1, 1);
  std::vector<compute::TensorData> inputs;
  for (TensorId t : g.inputs) {
    compute::TensorData d{g.tensor(t).dtype, g.tensor(t).dims, {}};
    for (int64_t i = 0; i < compute::numElements(d.dims); ++i) d.values.push_back(compute::roundToDType(d.dtype, dist(rng)));
    inputs.push_back(std::move(d));
  }
  auto expected = valueOrFail(compute::evaluate(g, inputs));
  auto actual = evaluateByUnits(g, b, inputs);
  REQUIRE(actual.size() == expected.size());
  for (size_t i = 0; i < actual.size(); ++i) CHECK(actual[i].values == expected[i].values);  // same ops, same order: exact
}

// Every op in exactly one place: a subgraph, a compute-bound call, or one call's epilogue.
void checkCoverage(const compute::Graph& g, const compute::LibraryBoundaries& b) {
  std::vector<int> seen(g.ops.size(), 0);
  for (const auto& s : b.pre.subgraphs)
    for (OpId id : s.ops) ++seen[index(id)];
  for (const auto& d : b.pre.library)
    if (d.computeBound) ++seen[index(d.op)];
  for (const auto& e : b.epilogues)
    for (OpId id : e.ops) {
      ++seen[index(id)];
      CHECK(b.pre.subgraphOf[index(id)] == -1);
    }
  for (const auto& op : g.ops) {
    INFO("op '" << op.name << "'");
    CHECK(seen[index(op.id)] == 1);
  }
}

compute::Graph scenario(const std::string& name) {
  return valueOrFail(compute::importOnnxFile(test::sourcePath("scenarios/" + name + ".onnx")));
}

}  // namespace

TEST_CASE("a bias add and a relu fold into a compute-bound matmul, the reduction after them stays", "[search][library-epilogue]") {
  compute::Graph g;
  compute::GraphBuilder b(g);
  TensorId x = input(g, "x", {64, 256});
  TensorId h = addBias(b, computeBoundMatmul(b, x), {512});
  b.setContext("act", "Relu");
  TensorId r = valueOrFail(b.unary(ElementwiseOp::Relu, h));
  b.setContext("rowsum", "ReduceSum");
  g.outputs = {valueOrFail(b.reduce(ReduceOp::Sum, r, {1}, true))};

  auto pre = valueOrFail(compute::preprocess(g, cpuHost()));
  REQUIRE(pre.subgraphs.size() == 1);
  CHECK(pre.subgraphs[0].ops.size() == 4);
  auto f = valueOrFail(compute::foldLibraryEpilogues(g, pre));
  REQUIRE(f.epilogues.size() == 1);
  const auto& e = f.epilogues[0];
  CHECK(g.op(e.library).name == "mm");
  CHECK(opNames(g, e.ops) == std::vector<std::string>{"bias_add", "bias_add#1", "act"});
  CHECK(e.output == r);
  CHECK(tensorNames(g, e.sideInputs) == std::vector<std::string>{"bias"});
  CHECK(e.rawBytes == 64 * 512 * 4);
  CHECK(e.sideBytes == 512 * 4);
  REQUIRE(f.pre.subgraphs.size() == 1);
  CHECK(opNames(g, f.pre.subgraphs[0].ops) == std::vector<std::string>{"rowsum"});
  CHECK(f.pre.subgraphs[0].inputs == std::vector<TensorId>{r});
  // Before: the subgraph loads mm (131072 B) and the bias (2048 B) and stores 64 sums; after: it loads
  // the relu's output instead, and the call loads the bias.
  CHECK(f.subgraphBytesBefore == 131072 + 2048 + 256);
  CHECK(f.subgraphBytesAfter == 131072 + 256);
  CHECK(f.libraryBytesBefore == (64 * 256 + 256 * 512 + 64 * 512) * 4);
  CHECK(f.libraryBytesAfter == f.libraryBytesBefore + 2048);
  checkCoverage(g, f);
  checkComputesModel(g, f);
}

TEST_CASE("a bias and an erf gelu (a DAG of elementwise ops) fold whole: the subgraph disappears", "[search][library-epilogue]") {
  compute::Graph g;
  compute::GraphBuilder b(g);
  TensorId h = addBias(b, computeBoundMatmul(b, input(g, "x", {64, 256})), {1, 512});
  b.setContext("gelu", "Gelu");
  TensorId d = valueOrFail(b.binary(ElementwiseOp::Div, h, 1.4142135));
  TensorId erf = valueOrFail(b.unary(ElementwiseOp::Erf, d));
  TensorId one = valueOrFail(b.binary(ElementwiseOp::Add, erf, 1.0));
  TensorId mul = valueOrFail(b.binary(ElementwiseOp::Mul, h, one));
  TensorId y = valueOrFail(b.binary(ElementwiseOp::Mul, mul, 0.5));
  g.outputs = {y};
  auto f = fold(g);
  REQUIRE(f.epilogues.size() == 1);
  CHECK(f.epilogues[0].ops.size() == 7);  // the bias broadcast, its add, the five gelu ops
  CHECK(f.epilogues[0].output == y);
  CHECK(f.pre.subgraphs.empty());
  CHECK(f.subgraphBytesAfter == 0);
  checkCoverage(g, f);
  checkComputesModel(g, f);
}

TEST_CASE("what stops an epilogue", "[search][library-epilogue]") {
  compute::Graph g;
  compute::GraphBuilder b(g);
  TensorId x = input(g, "x", {64, 256});
  SECTION("the raw output is a graph output") {
    TensorId mm = computeBoundMatmul(b, x);
    g.outputs = {mm, valueOrFail(b.unary(ElementwiseOp::Relu, mm))};
    CHECK(fold(g).epilogues.empty());
  }
  SECTION("two chains read the raw output and never meet") {
    TensorId mm = computeBoundMatmul(b, x);
    g.outputs = {valueOrFail(b.unary(ElementwiseOp::Relu, mm)), valueOrFail(b.unary(ElementwiseOp::Exp, mm))};
    CHECK(fold(g).epilogues.empty());
  }
  SECTION("a full-size residual is not a small side operand: the epilogue ends before it") {
    TensorId h = addBias(b, computeBoundMatmul(b, x), {512});
    b.setContext("residual", "Add");
    g.outputs = {valueOrFail(b.binary(ElementwiseOp::Add, h, input(g, "res", {64, 512})))};
    auto f = fold(g);
    REQUIRE(f.epilogues.size() == 1);
    CHECK(opNames(g, f.epilogues[0].ops) == std::vector<std::string>{"bias_add", "bias_add#1"});
    CHECK(f.epilogues[0].output == h);
    REQUIRE(f.pre.subgraphs.size() == 1);
    CHECK(opNames(g, f.pre.subgraphs[0].ops) == std::vector<std::string>{"residual"});
    checkComputesModel(g, f);
  }
  SECTION("a computed bias would order the call after its producer") {
    b.setContext("colsum", "ReduceSum");
    TensorId s = valueOrFail(b.reduce(ReduceOp::Sum, input(g, "z", {64, 512}), {0}, true));
    TensorId mm = computeBoundMatmul(b, x);
    g.outputs = {valueOrFail(b.binary(ElementwiseOp::Add, mm, s))};
    CHECK(fold(g).epilogues.empty());
  }
  SECTION("a side operand with two wide axes is not a vector") {
    b.setContext("mm", "MatMul");
    TensorId mm = valueOrFail(b.matmul(input(g, "x3", {4, 64, 256}), constant(b, "w", {256, 512})));
    g.outputs = {addBias(b, mm, {4, 1, 512})};
    CHECK(fold(g).epilogues.empty());
  }
  SECTION("select is not an epilogue op") {
    TensorId mm = computeBoundMatmul(b, x);
    g.outputs = {valueOrFail(b.elementwise(ElementwiseOp::Select, {constant(b, "mask", {512}), mm, 0.0}))};
    CHECK(fold(g).epilogues.empty());
  }
  SECTION("a reshape is never the last epilogue op: it stays with its readers") {
    TensorId h = addBias(b, computeBoundMatmul(b, x), {512});
    b.setContext("heads", "Reshape");
    TensorId r = valueOrFail(b.reshape(h, {64, 8, 64}));
    g.outputs = {valueOrFail(b.transpose(r, {1, 0, 2}))};
    auto f = fold(g);
    REQUIRE(f.epilogues.size() == 1);
    CHECK(f.epilogues[0].output == h);
    REQUIRE(f.pre.subgraphs.size() == 1);
    CHECK(f.pre.subgraphs[0].ops.size() == 2);
    checkComputesModel(g, f);
  }
  SECTION("a memory-bound matrix-vector product stays in its subgraph with its bias") {
    b.setContext("mv", "MatMul");
    TensorId mv = valueOrFail(b.matmul(input(g, "v", {1, 256}), constant(b, "w", {256, 512})));
    g.outputs = {addBias(b, mv, {512})};
    auto f = fold(g);
    CHECK(f.epilogues.empty());
    REQUIRE(f.pre.subgraphs.size() == 1);
    CHECK(f.pre.subgraphs[0].ops.size() == 3);
  }
}

TEST_CASE("a subgraph joined only through its epilogue splits into its connected parts", "[search][library-epilogue]") {
  compute::Graph g;
  compute::GraphBuilder b(g);
  TensorId h = addBias(b, computeBoundMatmul(b, input(g, "x", {64, 256})), {512});
  b.setContext("rowsum", "ReduceSum");
  TensorId s = valueOrFail(b.reduce(ReduceOp::Sum, h, {1}, true));
  b.setContext("e", "Exp");
  TensorId e = valueOrFail(b.unary(ElementwiseOp::Exp, h));
  g.outputs = {s, e};
  auto pre = valueOrFail(compute::preprocess(g, cpuHost()));
  REQUIRE(pre.subgraphs.size() == 1);
  auto f = valueOrFail(compute::foldLibraryEpilogues(g, pre));
  REQUIRE(f.epilogues.size() == 1);
  CHECK(f.epilogues[0].output == h);  // the exp is not taken: h would then have readers outside
  REQUIRE(f.pre.subgraphs.size() == 2);
  CHECK(opNames(g, f.pre.subgraphs[0].ops) == std::vector<std::string>{"rowsum"});
  CHECK(opNames(g, f.pre.subgraphs[1].ops) == std::vector<std::string>{"e"});
  for (const auto& sub : f.pre.subgraphs) CHECK(sub.inputs == std::vector<TensorId>{h});
  checkCoverage(g, f);
  checkComputesModel(g, f);
}

TEST_CASE("a preprocessing result of another graph is an error, not a crash", "[search][library-epilogue]") {
  compute::Graph g;
  compute::GraphBuilder b(g);
  g.outputs = {computeBoundMatmul(b, input(g, "x", {64, 256}))};
  auto pre = valueOrFail(compute::preprocess(g, cpuHost()));
  pre.subgraphOf.push_back(-1);
  auto f = compute::foldLibraryEpilogues(g, pre);
  REQUIRE_FALSE(f);
  CHECK(f.error().str().find("not the same graph") != std::string::npos);
}

TEST_CASE("on every scenario and target the moved boundaries cover every op once and compute the model", "[search][library-epilogue][scenarios]") {
  for (const char* name : {"bert_bias_residual_layernorm", "column_reduction", "efficientnet", "gelu", "gpt2_decode_attention", "layernorm",
                           "rmsnorm", "row_reduction", "shufflenet", "silu", "softmax", "transformer_block", "transpose_reduce"})
    for (const char* target : {"cpu-host", "nvidia-h100"}) {
      INFO(name << " on " << target);
      auto hw = valueOrFail(loadHardwareByName(target));
      compute::Graph g = scenario(name);
      auto pre = valueOrFail(compute::preprocess(g, hw));
      auto f = valueOrFail(compute::foldLibraryEpilogues(g, pre));
      checkCoverage(g, f);
      checkComputesModel(g, f);
      CHECK(f.subgraphBytesAfter <= f.subgraphBytesBefore);
      if (!f.epilogues.empty()) continue;
      // Nothing folded: the preprocessing comes back unchanged.
      CHECK(f.pre.subgraphOf == pre.subgraphOf);
      REQUIRE(f.pre.subgraphs.size() == pre.subgraphs.size());
      for (size_t i = 0; i < pre.subgraphs.size(); ++i) {
        CHECK(f.pre.subgraphs[i].ops == pre.subgraphs[i].ops);
        CHECK(f.pre.subgraphs[i].inputs == pre.subgraphs[i].inputs);
        CHECK(f.pre.subgraphs[i].outputs == pre.subgraphs[i].outputs);
        CHECK(f.pre.subgraphs[i].minBytes == pre.subgraphs[i].minBytes);
      }
    }
}

TEST_CASE("transformer block on cpu-host: the folded ops and the adjusted subgraphs (golden)", "[search][library-epilogue]") {
  compute::Graph g = scenario("transformer_block");
  auto f = fold(g);
  std::string actual = compute::printLibraryEpilogues(g, f) + compute::printPreprocessSummary(g, f.pre);
  std::string path = test::sourcePath("tests/golden/search/library_epilogue_transformer_block.txt");
  if (test::blessMode()) test::writeText(path, actual);
  CHECK(actual == test::readText(path));
}

TEST_CASE("transformer block planned with library epilogues: every plan valid, fewer bytes for every planner", "[search][library-epilogue]") {
  compute::Graph g = scenario("transformer_block");
  auto pre = valueOrFail(compute::preprocess(g, cpuHost()));
  search::PlanRequest off, on;
  on.libraryEpilogue = true;
  auto before = valueOrFail(search::planModel(g, pre, cpuHost(), off));
  auto after = valueOrFail(search::planModel(g, pre, cpuHost(), on));
  auto f = valueOrFail(compute::foldLibraryEpilogues(g, pre));
  REQUIRE(after.size() == f.pre.subgraphs.size());
  CHECK(after.size() < before.size());
  int64_t minimal = 0;
  for (const auto& sp : after) {
    INFO("subgraph " << sp.index);
    REQUIRE(sp.adjusted);
    CHECK(sp.subgraph->ops == f.pre.subgraphs[sp.index].ops);
    minimal += sp.minimalBytes;
    for (const auto& r : sp.planners) {
      INFO(r.planner << ": " << r.problem);
      CHECK(r.valid);
    }
  }
  CHECK(minimal == f.subgraphBytesAfter);
  for (const std::string& planner : search::plannerNames()) {
    INFO(planner);
    int64_t bytesBefore = 0, bytesAfter = 0, kernelsBefore = 0, kernelsAfter = 0;
    for (const auto& sp : before) bytesBefore += sp.find(planner)->lowered.cost.dramBytes, kernelsBefore += sp.find(planner)->lowered.cost.kernels;
    for (const auto& sp : after) bytesAfter += sp.find(planner)->lowered.cost.dramBytes, kernelsAfter += sp.find(planner)->lowered.cost.kernels;
    CHECK(bytesAfter < bytesBefore);
    CHECK(kernelsAfter <= kernelsBefore);
  }
}

TEST_CASE("with the option on and nothing to fold, every plan is the same as with it off", "[search][library-epilogue]") {
  compute::Graph g;  // the raw output is also a graph output: nothing folds
  compute::GraphBuilder builder(g);
  TensorId mm = computeBoundMatmul(builder, input(g, "x", {64, 256}));
  TensorId h = addBias(builder, mm, {512});
  builder.setContext("rowmax", "ReduceMax");
  g.outputs = {mm, valueOrFail(builder.reduce(ReduceOp::Max, h, {1}, true))};
  auto pre = valueOrFail(compute::preprocess(g, cpuHost()));
  REQUIRE(valueOrFail(compute::foldLibraryEpilogues(g, pre)).epilogues.empty());
  search::PlanRequest off, on;
  on.libraryEpilogue = true;
  auto a = valueOrFail(search::planModel(g, pre, cpuHost(), off));
  auto b = valueOrFail(search::planModel(g, pre, cpuHost(), on));
  REQUIRE(a.size() == b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    CHECK(a[i].subgraph->ops == b[i].subgraph->ops);
    REQUIRE(a[i].planners.size() == b[i].planners.size());
    for (size_t k = 0; k < a[i].planners.size(); ++k) {
      CHECK(a[i].planners[k].lowered.cost.dramBytes == b[i].planners[k].lowered.cost.dramBytes);
      CHECK(a[i].planners[k].lowered.cost.kernels == b[i].planners[k].lowered.cost.kernels);
      CHECK(a[i].planners[k].lowered.cost.modelledUs == b[i].planners[k].lowered.cost.modelledUs);
      CHECK(a[i].planners[k].valid == b[i].planners[k].valid);
    }
  }
}

TEST_CASE("gemm and conv take epilogues too, a subgraph left with one reshape still plans", "[search][library-epilogue]") {
  compute::Graph g;
  compute::GraphBuilder b(g);
  SECTION("gemm, bias, sigmoid") {
    b.setContext("fc", "Gemm");
    TensorId fc = valueOrFail(b.gemm(input(g, "x", {64, 256}), constant(b, "w", {512, 256}), std::nullopt, compute::GemmAttrs{false, true, 1, 1}));
    TensorId h = addBias(b, fc, {512});
    b.setContext("act", "Sigmoid");
    TensorId y = valueOrFail(b.unary(ElementwiseOp::Sigmoid, h));
    g.outputs = {y};
    auto f = fold(g);
    REQUIRE(f.epilogues.size() == 1);
    CHECK(f.epilogues[0].output == y);
    CHECK(f.pre.subgraphs.empty());
    checkComputesModel(g, f);
  }
  SECTION("pointwise conv, per-channel scale, relu") {
    b.setContext("pw", "Conv");
    TensorId c = valueOrFail(b.conv(input(g, "x", {1, 64, 28, 28}), constant(b, "w", {256, 64, 1, 1}), std::nullopt, compute::ConvAttrs{}));
    b.setContext("scale", "Mul");
    TensorId s = valueOrFail(b.binary(ElementwiseOp::Mul, c, constant(b, "gamma", {256, 1, 1})));
    b.setContext("act", "Relu");
    TensorId r = valueOrFail(b.unary(ElementwiseOp::Relu, s));
    b.setContext("pool", "GlobalAveragePool");
    g.outputs = {valueOrFail(b.reduce(ReduceOp::Sum, r, {2, 3}, true))};
    auto f = fold(g);
    REQUIRE(f.epilogues.size() == 1);
    CHECK(opNames(g, f.epilogues[0].ops) == std::vector<std::string>{"scale", "scale#1", "act"});
    CHECK(f.epilogues[0].sideBytes == 256 * 4);
    REQUIRE(f.pre.subgraphs.size() == 1);
    CHECK(opNames(g, f.pre.subgraphs[0].ops) == std::vector<std::string>{"pool"});
    checkComputesModel(g, f);
  }
  SECTION("bias, then a reshape into the next matmul") {
    TensorId h = addBias(b, computeBoundMatmul(b, input(g, "x", {64, 256})), {512});
    b.setContext("fold_rows", "Reshape");
    TensorId r = valueOrFail(b.reshape(h, {128, 256}));
    b.setContext("mm2", "MatMul");
    g.outputs = {valueOrFail(b.matmul(r, constant(b, "w2", {256, 256})))};
    auto pre = valueOrFail(compute::preprocess(g, cpuHost()));
    auto f = valueOrFail(compute::foldLibraryEpilogues(g, pre));
    REQUIRE(f.epilogues.size() == 1);
    REQUIRE(f.pre.subgraphs.size() == 1);
    CHECK(opNames(g, f.pre.subgraphs[0].ops) == std::vector<std::string>{"fold_rows"});
    checkComputesModel(g, f);
    search::PlanRequest on;
    on.libraryEpilogue = true;
    auto plans = valueOrFail(search::planModel(g, pre, cpuHost(), on));
    REQUIRE(plans.size() == 1);
    for (const auto& r : plans[0].planners) {
      INFO(r.planner << ": " << r.problem);
      CHECK(r.valid);
    }
  }
}
