// The xla-like planner's gemm_epilogue option (docs/baselines.md, "Library epilogue options";
// XlaGemmEpilogue.h): a library call takes its bias/activation epilogue as one Library kernel, the
// operand-side op (a prologue) stays a kernel of its own, and on the transformer block the calls take
// exactly the ops that planModel's --library-epilogue folds (core/compute/LibraryFusion.h: one rule for
// both).
#include <catch2/catch.hpp>

#include <set>

#include "core/compute/LibraryFusion.h"
#include "core/compute/Preprocess.h"
#include "core/onnx/OnnxImporter.h"
#include "search/baselines/PlanPrinter.h"
#include "search/baselines/XlaPlanner.h"
#include "tests/baselines/BaselineTestUtil.h"
#include "tests/support/TestSupport.h"

using namespace gir;
using compute::TensorId;
using test::addInput;
using test::valueOrFail;

namespace {

TensorId constant(compute::GraphBuilder& b, const std::string& name, compute::Dims dims) {
  compute::TensorData d{compute::DType::F32, dims, std::vector<double>(compute::numElements(dims), 0.5)};
  return b.constant(std::move(d), name);
}

search::Plan planXla(const search::PlanProblem& p, bool gemmEpilogue) {
  search::XlaOptions o;
  o.gemmEpilogue = gemmEpilogue;
  return valueOrFail(search::planXla(p, o));
}

const search::PlannedKernel& libraryKernel(const search::Plan& plan) {
  for (const auto& k : plan.kernels)
    if (k.kind == search::KernelKind::Library) return k;
  FAIL("no library kernel");
  return plan.kernels.front();
}

bool logged(const search::Plan& plan, const std::string& rule) {
  for (const auto& d : plan.decisions)
    if (d.ruleId == rule && d.accepted) return true;
  return false;
}

}  // namespace

TEST_CASE("xla gemm_epilogue: bias and relu join the call, the negation before it does not", "[baselines][library-epilogue]") {
  compute::Graph g;
  compute::GraphBuilder b(g);
  TensorId a = addInput(g, "a", {64, 256});
  TensorId mm = valueOrFail(b.matmul(valueOrFail(b.unary(ElementwiseOp::Neg, a)), constant(b, "w", {256, 512})));
  TensorId h = valueOrFail(b.binary(ElementwiseOp::Add, mm, constant(b, "bias", {512})));
  g.outputs = {valueOrFail(b.unary(ElementwiseOp::Relu, h))};
  auto p = valueOrFail(search::makeProblem(g));
  search::Plan off = planXla(p, false), on = planXla(p, true);
  INFO(search::printPlan(p, on));
  CHECK(off.totals.kernels == 3);
  CHECK(on.totals.kernels == 2);
  CHECK(libraryKernel(on).instances.size() == 4);  // matmul, bias broadcast, add, relu
  CHECK(libraryKernel(on).outputs == g.outputs);
  // The call stores relu(mm + bias) instead of mm; nobody loads mm back.
  CHECK(on.totals.dramBytes() == off.totals.dramBytes() - 2 * 64 * 512 * 4);
  CHECK(logged(on, "xla.gemm_epilogue"));
  CHECK_FALSE(logged(off, "xla.gemm_epilogue"));
  CHECK(on.options.find("gemm_epilogue=1") != std::string::npos);
  CHECK(off.options.find("gemm_epilogue") == std::string::npos);
}

TEST_CASE("xla gemm_epilogue: a full-size residual ends the epilogue", "[baselines][library-epilogue]") {
  compute::Graph g;
  compute::GraphBuilder b(g);
  TensorId mm = valueOrFail(b.matmul(addInput(g, "a", {64, 256}), constant(b, "w", {256, 512})));
  TensorId h = valueOrFail(b.binary(ElementwiseOp::Add, mm, constant(b, "bias", {512})));
  g.outputs = {valueOrFail(b.binary(ElementwiseOp::Add, h, addInput(g, "res", {64, 512})))};
  auto p = valueOrFail(search::makeProblem(g));
  search::Plan on = planXla(p, true);
  INFO(search::printPlan(p, on));
  CHECK(on.totals.kernels == 2);
  CHECK(libraryKernel(on).instances.size() == 3);
  CHECK(libraryKernel(on).outputs == std::vector<TensorId>{h});
}

TEST_CASE("xla gemm_epilogue on the transformer block takes the ops --library-epilogue folds on cpu-host", "[baselines][library-epilogue]") {
  auto g = valueOrFail(compute::importOnnxFile(test::sourcePath("scenarios/transformer_block.onnx")));
  auto hw = valueOrFail(loadHardwareByName("cpu-host"));
  auto folded = valueOrFail(compute::foldLibraryEpilogues(g, valueOrFail(compute::preprocess(g, hw))));
  REQUIRE(folded.epilogues.size() == 7);  // every matmul is compute-bound on cpu-host; pv has no epilogue
  auto p = valueOrFail(search::makeProblem(g));
  search::Plan on = planXla(p, true);
  int libraries = 0;
  for (const auto& k : on.kernels) {
    if (k.kind != search::KernelKind::Library) continue;
    ++libraries;
    std::string call;
    std::set<std::string> ops;
    for (int n : k.instances) {
      const auto& op = p.op(n);
      if (compute::isLibraryKind(op.kind())) call = op.name;
      else ops.insert(op.name);
    }
    INFO(call);
    std::set<std::string> expected;
    for (const auto& e : folded.epilogues)
      if (g.op(e.library).name == call)
        for (auto id : e.ops) expected.insert(g.op(id).name);
    CHECK(ops == expected);
  }
  CHECK(libraries == 8);
}
