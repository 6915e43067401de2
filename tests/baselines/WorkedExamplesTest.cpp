// The worked examples at N=64, C=256 (docs/baselines.md, "Worked examples E1-E6"): kernels and DRAM bytes
// of eager, xla-like and tvm-like equal the formulas there (written out here, independently of the
// planners), and the printed plans match tests/golden/baselines/E*.txt (GIR_BLESS=1 rewrites). Each plan
// lowered to GIR (same templates) is valid and moves exactly the analytic bytes in the analytic number of
// kernels (docs/baselines.md, "Lowering a plan to GIR"); the GIR plan reaches the lower bound
// (tests/golden/search/E*.txt hold the lowered table and the GIR templates).
#include <catch2/catch.hpp>

#include "core/hw/HardwareDesc.h"
#include "search/ModelPlanner.h"
#include "search/baselines/PlanPrinter.h"
#include "tests/baselines/BaselineTestUtil.h"
#include "tests/support/TestSupport.h"

using gir::Expected;
using gir::loadHardwareByName;
namespace search = gir::search;
namespace test = gir::test;
using gir::ElementwiseOp;
using gir::ReduceOp;
using namespace gir::compute;
using gir::test::addInput;
using gir::test::valueOrFail;

namespace {

constexpr int64_t N = 64, C = 256, NC = N * C;

struct Expect {
  int64_t kernels, read, write;
  std::vector<size_t> sizes;  // instances per kernel, in plan order (empty: not checked)
};

void checkPlanner(const search::PlanProblem& p, const std::string& planner, const Expect& e) {
  search::Plan plan = test::planOrFail(planner, p);
  INFO(planner << "\n" << search::printPlan(p, plan));
  CHECK(plan.totals.kernels == e.kernels);
  CHECK(plan.totals.dramRead == e.read);
  CHECK(plan.totals.dramWrite == e.write);
  if (!e.sizes.empty()) CHECK(test::kernelSizes(plan) == e.sizes);
}

// The whole example as one memory-bound subgraph, planned by every planner and lowered.
// `chained`: every kernel of every baseline depends on the one before. Where two kernels are
// independent (E4's sum and scale of `a`), GIR has no device sync between them: they are one GIR
// kernel, reading `a` once, so the lowered plan may only be smaller than the analytic one.
void checkLowered(const Graph& g, int64_t lowerBound, int64_t girKernels, bool chained) {
  auto hw = valueOrFail(loadHardwareByName("cpu-host"));
  auto pre = valueOrFail(preprocess(g, hw));
  REQUIRE(pre.subgraphs.size() == 1);
  auto plans = valueOrFail(search::planSubgraph(g, pre.subgraphs[0], 0, hw, {}));
  std::string table;
  for (const auto& r : plans.planners) {
    std::string how;
    for (size_t k = 0; k < r.lowered.groups.size(); ++k) {
      how += "\n  kernel " + std::to_string(k) + ":";
      for (size_t i = 0; i < r.lowered.groups[k].size(); ++i)
        how += " " + g.op(r.lowered.groups[k][i]).name + "=" + r.lowered.templates[k][i].str();
    }
    INFO(r.planner << ": " << r.problem << how << "\n" << r.lowered.cost.breakdown());
    CHECK(r.valid);
    table += r.planner + " kernels " + std::to_string(r.lowered.cost.kernels) + " dram_bytes " + std::to_string(r.lowered.cost.dramBytes);
    if (r.analytic && chained) {
      CHECK(r.lowered.cost.kernels == r.analytic->totals.kernels);
      CHECK(r.lowered.cost.dramBytes == r.analytic->totals.dramBytes());
    } else if (r.analytic) {
      CHECK(r.lowered.cost.kernels <= r.analytic->totals.kernels);
      CHECK(r.lowered.cost.dramBytes <= r.analytic->totals.dramBytes());
    } else {
      CHECK(r.lowered.cost.dramBytes == lowerBound);
      CHECK(r.lowered.cost.kernels == girKernels);
      table += " (" + r.origin + ")";
    }
    table += "\n";
  }
  std::string path = test::sourcePath("tests/golden/search/" + g.name + ".txt");
  if (test::blessMode()) test::writeText(path, table);
  INFO("golden file " << path << " (GIR_BLESS=1 rewrites it)");
  CHECK(test::readText(path) == table);
}

void checkExample(const Graph& g, const Expect& eager, const Expect& tvm, const Expect& xla, int64_t lowerBound, bool chained = true) {
  checkLowered(g, lowerBound, 1, chained);
  auto p = valueOrFail(search::makeProblem(g));
  checkPlanner(p, "eager", eager);
  checkPlanner(p, "tvm", tvm);
  checkPlanner(p, "xla", xla);
  CHECK(search::lowerBoundBytes(p) == lowerBound);
  std::string text;
  for (const std::string& name : search::baselinePlannerNames())
    text += search::printPlan(p, test::planOrFail(name, p)) + "\n";
  std::string path = test::sourcePath("tests/golden/baselines/" + g.name + ".txt");
  if (test::blessMode()) test::writeText(path, text);
  INFO("golden file " << path << " (GIR_BLESS=1 rewrites it)");
  CHECK(test::readText(path) == text);
}

TensorId ok(Expected<TensorId> t) { return valueOrFail(std::move(t)); }

}  // namespace

TEST_CASE("E1 softmax: eager 5, tvm-like 4, xla-like 3 kernels", "[baselines]") {
  Graph g;
  g.name = "E1";
  GraphBuilder b(g);
  TensorId x = addInput(g, "x", {N, C});
  b.setContext("m", "");
  TensorId m = ok(b.reduce(ReduceOp::Max, x, {1}, true));
  b.setContext("d", "");
  TensorId d = ok(b.binary(ElementwiseOp::Sub, x, m));
  b.setContext("e", "");
  TensorId e = ok(b.unary(ElementwiseOp::Exp, d));
  b.setContext("s", "");
  TensorId s = ok(b.reduce(ReduceOp::Sum, e, {1}, true));
  b.setContext("y", "");
  g.outputs = {ok(b.binary(ElementwiseOp::Div, e, s))};
  checkExample(g, {5, 4 * (5 * NC + 2 * N), 4 * (3 * NC + 2 * N), {}},
               {4, 4 * (4 * NC + 2 * N), 4 * (2 * NC + 2 * N), {1, 3, 1, 2}},
               {3, 4 * (3 * NC + 3 * N), 4 * (NC + 2 * N), {1, 4, 5}}, 4 * 2 * NC);
}

// mean_C is built as sum_C: the graph has no mean, and the 1/C scale would be one more [N,1]
// elementwise op that changes no fusion decision of the example's derivation.
TEST_CASE("E2 layernorm: eager 9, tvm-like 4, xla-like 3 kernels", "[baselines]") {
  Graph g;
  g.name = "E2";
  GraphBuilder b(g);
  TensorId x = addInput(g, "x", {N, C});
  TensorId gamma = addInput(g, "gamma", {C});
  TensorId beta = addInput(g, "beta", {C});
  b.setContext("mu", "");
  TensorId mu = ok(b.reduce(ReduceOp::Sum, x, {1}, true));
  b.setContext("xc", "");
  TensorId xc = ok(b.binary(ElementwiseOp::Sub, x, mu));
  b.setContext("sq", "");
  TensorId sq = ok(b.binary(ElementwiseOp::Mul, xc, xc));
  b.setContext("var", "");
  TensorId var = ok(b.reduce(ReduceOp::Sum, sq, {1}, true));
  b.setContext("r", "");
  TensorId r = ok(b.unary(ElementwiseOp::Rsqrt, ok(b.binary(ElementwiseOp::Add, var, 1e-5))));
  b.setContext("xn", "");
  TensorId xn = ok(b.binary(ElementwiseOp::Mul, xc, r));
  b.setContext("y", "");
  g.outputs = {ok(b.binary(ElementwiseOp::Add, ok(b.binary(ElementwiseOp::Mul, xn, gamma)), beta))};
  checkExample(g, {9, 4 * (7 * NC + 4 * N + 2 * C), 4 * (5 * NC + 4 * N), {}},
               {4, 4 * (4 * NC + 2 * N + 2 * C), 4 * (2 * NC + 2 * N), {1, 2, 2, 8}},
               {3, 4 * (3 * NC + 3 * N + 2 * C), 4 * (NC + 2 * N), {1, 4, 10}}, 4 * (2 * NC + 2 * C));
}

TEST_CASE("E3 SiLU: one kernel for tvm-like and xla-like", "[baselines]") {
  const int64_t n = NC;
  Graph g;
  g.name = "E3";
  GraphBuilder b(g);
  TensorId x = addInput(g, "x", {n});
  b.setContext("y", "");
  g.outputs = {ok(b.binary(ElementwiseOp::Mul, x, ok(b.unary(ElementwiseOp::Sigmoid, x))))};
  checkExample(g, {2, 12 * n, 8 * n, {}}, {1, 4 * n, 4 * n, {2}}, {1, 4 * n, 4 * n, {2}}, 8 * n);
}

TEST_CASE("E4 divergent consumers: only xla-like fuses (duplication + sibling multi-output)", "[baselines]") {
  Graph g;
  g.name = "E4";
  GraphBuilder b(g);
  TensorId x = addInput(g, "x", {N, C});
  b.setContext("a", "");
  TensorId a = ok(b.unary(ElementwiseOp::Exp, x));
  b.setContext("y", "");
  g.outputs = {ok(b.reduce(ReduceOp::Sum, a, {1}, false)), ok(b.binary(ElementwiseOp::Mul, a, 3.0))};
  checkExample(g, {3, 12 * NC, 8 * NC + 4 * N, {}}, {3, 12 * NC, 8 * NC + 4 * N, {1, 1, 1}},
               {1, 4 * NC, 4 * NC + 4 * N, {3}}, 4 * (2 * NC + N), /*chained=*/false);
}

TEST_CASE("E5 transpose then reduce: two kernels everywhere", "[baselines]") {
  Graph g;
  g.name = "E5";
  GraphBuilder b(g);
  TensorId x = addInput(g, "x", {N, C});
  b.setContext("y", "");
  g.outputs = {ok(b.reduce(ReduceOp::Sum, ok(b.transpose(x, {1, 0})), {1}, false))};
  Expect two{2, 8 * NC, 4 * NC + 4 * C, {1, 1}};
  checkExample(g, two, two, two, 4 * (NC + C));
}

TEST_CASE("E6 elementwise into transpose: one kernel for tvm-like and xla-like", "[baselines]") {
  Graph g;
  g.name = "E6";
  GraphBuilder b(g);
  TensorId x = addInput(g, "x", {N, C});
  b.setContext("y", "");
  g.outputs = {ok(b.transpose(ok(b.unary(ElementwiseOp::Relu, x)), {1, 0}))};
  checkExample(g, {2, 8 * NC, 8 * NC, {}}, {1, 4 * NC, 4 * NC, {2}}, {1, 4 * NC, 4 * NC, {2}}, 8 * NC);
}

TEST_CASE("decisions name the rule that kept E1's exp out of the sum's consumer", "[baselines]") {
  Graph g;
  g.name = "E1";
  GraphBuilder b(g);
  TensorId x = addInput(g, "x", {N, C});
  b.setContext("m", "");
  TensorId m = ok(b.reduce(ReduceOp::Max, x, {1}, true));
  b.setContext("e", "");
  TensorId e = ok(b.unary(ElementwiseOp::Exp, ok(b.binary(ElementwiseOp::Sub, x, m))));
  b.setContext("y", "");
  g.outputs = {ok(b.binary(ElementwiseOp::Div, e, ok(b.reduce(ReduceOp::Sum, e, {1}, true))))};
  auto p = valueOrFail(search::makeProblem(g));
  auto has = [](const search::Plan& plan, const std::string& rule, bool accepted) {
    for (const auto& d : plan.decisions)
      if (d.ruleId == rule && d.accepted == accepted) return true;
    return false;
  };
  CHECK(has(test::planOrFail("tvm", p), "tvm.path_not_injective", false));
  CHECK(has(test::planOrFail("tvm", p), "tvm.reduce_never_fuses_forward", false));
  CHECK(has(test::planOrFail("xla", p), "xla.merged_into_users", true));
  CHECK(has(test::planOrFail("xla", p), "xla.expensive_producer_reused", false));
  CHECK(has(test::planOrFail("eager", p), "eager.broadcast_as_view", true));
}
