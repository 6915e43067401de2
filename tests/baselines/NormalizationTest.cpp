// The shared normalizations (docs/baselines.md, "The common model") and a few single rules: reshapes are
// free aliases, a Split is one eager kernel but one slice per output for xla/tvm, library ops are
// boundaries, eager can materialize broadcasts, and the xla-like budget refuses a too-wide fusion.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "search/baselines/EagerPlanner.h"
#include "search/baselines/PlanPrinter.h"
#include "tests/baselines/BaselineTestUtil.h"

using namespace gir;
using namespace gir::compute;
using gir::test::addInput;
using gir::test::valueOrFail;

namespace {

TensorId ok(Expected<TensorId> t) { return valueOrFail(std::move(t)); }

bool logged(const search::Plan& plan, const std::string& rule, bool accepted) {
  for (const auto& d : plan.decisions)
    if (d.ruleId == rule && d.accepted == accepted) return true;
  return false;
}

}  // namespace

TEST_CASE("a reshape is a free alias: no kernel, no bytes, fusion passes through it", "[baselines]") {
  Graph g;
  GraphBuilder b(g);
  TensorId x = addInput(g, "x", {64, 256});
  TensorId r = ok(b.reshape(ok(b.unary(ElementwiseOp::Exp, x)), {256, 64}));
  g.outputs = {ok(b.unary(ElementwiseOp::Neg, r))};
  auto p = valueOrFail(search::makeProblem(g));
  CHECK(p.nodes.size() == 2);
  search::Plan eager = test::planOrFail("eager", p);
  CHECK(eager.totals.kernels == 2);
  CHECK(eager.totals.dramBytes() == 4 * 4 * 64 * 256);  // exp: R+W, neg: R+W; the reshape moves nothing
  for (const char* name : {"tvm", "xla"}) CHECK(test::planOrFail(name, p).totals.kernels == 1);
}

TEST_CASE("a split is one eager kernel but one slice per output for xla-like and tvm-like", "[baselines]") {
  Graph g;
  GraphBuilder b(g);
  TensorId x = addInput(g, "x", {64, 256});
  auto parts = valueOrFail(b.split(x, 1, {128, 128}));
  g.outputs = parts;
  auto p = valueOrFail(search::makeProblem(g));
  search::Plan eager = test::planOrFail("eager", p);
  CHECK(eager.totals.kernels == 1);
  CHECK(eager.totals.dramRead == 4 * 64 * 256);
  // Two slices, each reading x: sibling multi-output fusion needs a fusion on one side, so the
  // normalization costs xla-like and tvm-like a launch and a read of x against eager here.
  for (const char* name : {"tvm", "xla"}) {
    search::Plan plan = test::planOrFail(name, p);
    INFO(name << "\n" << search::printPlan(p, plan));
    CHECK(plan.totals.kernels == 2);
    CHECK(plan.totals.dramRead == 2 * 4 * 64 * 256);
    CHECK(plan.totals.dramWrite == 4 * 64 * 256);
  }
}

TEST_CASE("library ops are boundaries: a matmul epilogue is never fused", "[baselines]") {
  Graph g;
  GraphBuilder b(g);
  TensorId a = addInput(g, "a", {64, 64});
  TensorId w = addInput(g, "w", {64, 64});
  g.outputs = {ok(b.unary(ElementwiseOp::Relu, ok(b.matmul(ok(b.unary(ElementwiseOp::Neg, a)), w))))};
  auto p = valueOrFail(search::makeProblem(g));
  for (const std::string& name : search::baselinePlannerNames()) {
    search::Plan plan = test::planOrFail(name, p);
    INFO(name << "\n" << search::printPlan(p, plan));
    CHECK(plan.totals.kernels == 3);
    CHECK(plan.kernels[1].kind == search::KernelKind::Library);
  }
  CHECK(logged(test::planOrFail("tvm", p), "tvm.opaque", false));
  CHECK(logged(test::planOrFail("xla", p), "xla.library_boundary", false));
}

TEST_CASE("eager with materialized broadcasts runs E1 in seven kernels", "[baselines]") {
  Graph g;
  GraphBuilder b(g);
  TensorId x = addInput(g, "x", {64, 256});
  TensorId m = ok(b.reduce(ReduceOp::Max, x, {1}, true));
  TensorId e = ok(b.unary(ElementwiseOp::Exp, ok(b.binary(ElementwiseOp::Sub, x, m))));
  g.outputs = {ok(b.binary(ElementwiseOp::Div, e, ok(b.reduce(ReduceOp::Sum, e, {1}, true))))};
  auto p = valueOrFail(search::makeProblem(g));
  search::EagerOptions o;
  o.broadcastAsView = false;
  search::Plan plan = valueOrFail(search::planEager(p, o));
  const int64_t N = 64, C = 256, NC = N * C;
  CHECK(plan.totals.kernels == 7);
  // Each broadcast reads 4N and writes 4NC; d and y then read the materialized [N,C] tensor.
  CHECK(plan.totals.dramRead == 4 * (5 * NC + 2 * N) - 8 * N + 8 * N + 8 * NC);
  CHECK(plan.totals.dramWrite == 4 * (3 * NC + 2 * N) + 8 * NC);
}

// A concat of 60 binary ops: each fused producer trades one operand for two, so the fusion
// reaches 96 operands and outputs after 35 producers and the rest stay separate kernels.
TEST_CASE("xla-like refuses a fusion over 96 operands and outputs", "[baselines]") {
  Graph g;
  GraphBuilder b(g);
  std::vector<TensorId> parts;
  for (int i = 0; i < 60; ++i)
    parts.push_back(ok(b.binary(ElementwiseOp::Add, addInput(g, "x" + std::to_string(i), {4, 8}),
                                addInput(g, "y" + std::to_string(i), {4, 8}))));
  g.outputs = {ok(b.concat(parts, 0))};
  auto p = valueOrFail(search::makeProblem(g));
  search::Plan plan = test::planOrFail("xla", p);
  CHECK(logged(plan, "xla.budget", false));
  for (const auto& k : plan.kernels) CHECK(k.inputs.size() + k.outputs.size() <= 96);
  CHECK(plan.totals.kernels == 1 + (60 - 35));
}

TEST_CASE("the JSON form of a plan holds its kernels, totals and decisions", "[baselines]") {
  Graph g;
  GraphBuilder b(g);
  TensorId x = addInput(g, "x", {64, 256});
  g.outputs = {ok(b.binary(ElementwiseOp::Mul, x, ok(b.unary(ElementwiseOp::Sigmoid, x))))};
  auto p = valueOrFail(search::makeProblem(g));
  auto j = nlohmann::json::parse(search::planToJson(p, test::planOrFail("xla", p)), nullptr, false);
  REQUIRE_FALSE(j.is_discarded());
  CHECK(j["planner"] == "xla");
  REQUIRE(j["kernels"].size() == 1);
  CHECK(j["kernels"][0]["nodes"].size() == 2);
  CHECK(j["kernels"][0]["inputs"] == nlohmann::json::array({"x"}));
  CHECK(j["totals"]["dram_bytes"] == 2 * 4 * 64 * 256);
  CHECK(j["totals"]["minimal_bytes"] == 2 * 4 * 64 * 256);
  REQUIRE(j["decisions"].size() >= 1);
  CHECK(j["decisions"][0]["rule"] == "xla.fused");
}
