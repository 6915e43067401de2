// Property tests (docs/baselines.md, "Tests") over seeded random DAGs of the op set (elementwise,
// broadcasts the builder inserts, reduce, transpose, slice, concat, reshape, matmul): coverage,
// kernel order, tvm-like never duplicates nor holds two reductions, xla-like within budgets,
// launches xla <= eager and tvm <= eager, bytes lower bound <= tvm <= eager.
#include <catch2/catch.hpp>

#include <algorithm>
#include <map>
#include <optional>
#include <random>
#include <set>

#include "search/baselines/PlanPrinter.h"
#include "search/baselines/XlaRules.h"
#include "tests/baselines/BaselineTestUtil.h"

using namespace gir;
using namespace gir::compute;

namespace {

constexpr int kDags = 250;

class DagMaker {
 public:
  explicit DagMaker(uint32_t seed) : rng_(seed), b_(g_) { g_.name = "dag" + std::to_string(seed); }

  Graph make() {
    int inputs = pick(1, 3);
    for (int i = 0; i < inputs; ++i) pool_.push_back(test::addInput(g_, "in" + std::to_string(i), {dim(), dim()}));
    int ops = pick(4, 24);
    for (int i = 0; i < ops; ++i) {
      b_.setContext("n" + std::to_string(i), "");
      if (auto t = step(); t) pool_.push_back(*t);
    }
    std::set<int32_t> read;
    for (const Op& op : g_.ops)
      for (TensorId t : op.inputs) read.insert(index(t));
    for (TensorId t : pool_)
      if (!read.count(index(t)) && !g_.tensor(t).isConstant() && !isInput(t)) g_.outputs.push_back(t);
    if (g_.outputs.empty()) g_.outputs.push_back(pool_.back());
    return std::move(g_);
  }

 private:
  int pick(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng_); }
  int64_t dim() { return std::vector<int64_t>{1, 4, 8, 32, 64}[pick(0, 4)]; }
  TensorId any() { return pool_[pick(0, static_cast<int>(pool_.size()) - 1)]; }
  bool isInput(TensorId t) const { return std::find(g_.inputs.begin(), g_.inputs.end(), t) != g_.inputs.end(); }
  const Dims& dims(TensorId t) const { return g_.tensor(t).dims; }

  // A second operand for a binary op: same shape, or one that broadcasts to it.
  std::optional<TensorId> partner(TensorId a) {
    std::vector<TensorId> fits;
    for (TensorId t : pool_)
      if (auto d = broadcastDims(dims(a), dims(t)); d && *d == dims(a)) fits.push_back(t);
    if (fits.empty()) return std::nullopt;
    return fits[pick(0, static_cast<int>(fits.size()) - 1)];
  }

  std::optional<TensorId> step() {
    TensorId a = any();
    static const ElementwiseOp unary[] = {ElementwiseOp::Exp, ElementwiseOp::Relu, ElementwiseOp::Sigmoid,
                                          ElementwiseOp::Tanh, ElementwiseOp::Neg, ElementwiseOp::Log};
    static const ElementwiseOp binary[] = {ElementwiseOp::Add, ElementwiseOp::Mul, ElementwiseOp::Sub, ElementwiseOp::Max};
    Expected<TensorId> r = makeError("none");
    switch (pick(0, 8)) {
      case 0: case 1: r = b_.unary(unary[pick(0, 5)], a); break;
      case 2: case 3:
        if (auto other = partner(a)) r = b_.binary(binary[pick(0, 3)], a, *other);
        break;
      case 4: r = b_.reduce(pick(0, 1) ? ReduceOp::Sum : ReduceOp::Max, a, {pick(0, 1)}, true); break;
      case 5: r = b_.transpose(a, {1, 0}); break;
      case 6:
        if (dims(a)[0] >= 2) r = b_.slice(a, {0, 0}, {1, 1}, {dims(a)[0] / 2, dims(a)[1]});
        break;
      case 7:
        if (auto other = partner(a); other && dims(*other) == dims(a)) r = b_.concat({a, *other}, 0);
        else r = b_.reshape(a, {dims(a)[1], dims(a)[0]});
        break;
      case 8:
        if (auto t = b_.transpose(a, {1, 0})) r = b_.matmul(a, *t);
        break;
    }
    if (!r) return std::nullopt;
    return *r;
  }

  std::mt19937 rng_;
  Graph g_;
  GraphBuilder b_;
  std::vector<TensorId> pool_;
};

bool producedBefore(const search::Plan& plan, size_t k, TensorId t) {
  for (size_t j = 0; j < k; ++j)
    for (TensorId o : plan.kernels[j].outputs)
      if (o == t) return true;
  return false;
}

void checkCommon(const search::PlanProblem& p, const search::Plan& plan) {
  INFO(search::printPlan(p, plan, false));
  std::vector<int> instances(p.nodes.size(), 0);
  for (size_t k = 0; k < plan.kernels.size(); ++k) {
    for (int n : plan.kernels[k].instances) ++instances[n];
    for (TensorId t : plan.kernels[k].inputs)  // kernels in order: every input stored earlier
      if (p.producer[index(t)] >= 0) REQUIRE(producedBefore(plan, k, t));
  }
  std::set<int> views(plan.views.begin(), plan.views.end());
  for (const search::PlanNode& n : p.nodes) REQUIRE((instances[n.id] >= 1 || views.count(n.id)));
  for (TensorId t : p.outputs)
    if (p.producer[index(t)] >= 0) REQUIRE(producedBefore(plan, plan.kernels.size(), t));
}

void checkTvm(const search::PlanProblem& p, const search::Plan& plan) {
  std::vector<int> instances(p.nodes.size(), 0);
  for (const auto& k : plan.kernels) {
    int reductions = 0;
    for (int n : k.instances) {
      ++instances[n];
      reductions += p.node(n).kind == OpKind::Reduce ? 1 : 0;
    }
    REQUIRE(reductions <= 1);
  }
  for (int c : instances) REQUIRE(c == 1);
}

void checkXlaBudgets(const search::PlanProblem& p, const search::Plan& plan) {
  search::XlaOptions o;
  for (const auto& k : plan.kernels) {
    auto b = search::fusionBudget(p, std::set<int>(k.instances.begin(), k.instances.end()),
                                  std::set<int>(k.exports.begin(), k.exports.end()));
    REQUIRE(search::withinBudget(b, o));
    REQUIRE(static_cast<int>(k.inputs.size() + k.outputs.size()) <= o.maxOperandsAndOutputs);
  }
}

}  // namespace

TEST_CASE("random DAGs: the properties every baseline plan keeps (docs/baselines.md)", "[baselines][random]") {
  std::map<std::string, int64_t> fused;  // kernels saved against eager, summed: the test must bite
  for (uint32_t seed = 1; seed <= kDags; ++seed) {
    Graph g = DagMaker(seed).make();
    INFO("seed " << seed << "\n" << printGraph(g));
    auto p = test::valueOrFail(search::makeProblem(g));
    search::Plan eager = test::planOrFail("eager", p);
    search::Plan xla = test::planOrFail("xla", p);
    search::Plan tvm = test::planOrFail("tvm", p);
    for (const auto* plan : {&eager, &xla, &tvm}) checkCommon(p, *plan);
    checkTvm(p, tvm);
    checkXlaBudgets(p, xla);
    REQUIRE(xla.totals.kernels <= eager.totals.kernels);
    REQUIRE(tvm.totals.kernels <= eager.totals.kernels);
    REQUIRE(search::lowerBoundBytes(p) <= tvm.totals.dramBytes());
    REQUIRE(search::lowerBoundBytes(p) <= xla.totals.dramBytes());
    REQUIRE(tvm.totals.dramBytes() <= eager.totals.dramBytes());
    fused["xla"] += eager.totals.kernels - xla.totals.kernels;
    fused["tvm"] += eager.totals.kernels - tvm.totals.kernels;
  }
  CHECK(fused["xla"] > kDags);  // the generator produces fusible chains, not only singletons
  CHECK(fused["tvm"] > kDags / 2);
}

TEST_CASE("planning is deterministic", "[baselines][random]") {
  for (uint32_t seed = 1000; seed < 1020; ++seed) {
    Graph g = DagMaker(seed).make();
    auto p = test::valueOrFail(search::makeProblem(g));
    for (const std::string& name : search::baselinePlannerNames())
      CHECK(search::printPlan(p, test::planOrFail(name, p)) == search::printPlan(p, test::planOrFail(name, p)));
  }
}
