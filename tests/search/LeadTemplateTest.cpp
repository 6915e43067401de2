// The lead template (a producer takes the boxes under which it writes what each unit of a later
// consumer reads, LeadBoxes.h): on a concat's first and second input, on both at once, through a
// chain (BN -> ReLU -> Concat), and the ShuffleNet block (docs/rewrites.md) with its second half computed
// inside the subgraph. Every lowered graph is verified, memory-checked and compared with the
// reference evaluator, before and after the greedy optimizer; every lead option either lowers to
// such a graph or is rejected with a message.
#include <catch2/catch.hpp>

#include <algorithm>
#include <optional>

#include "core/compute/GraphBuilder.h"
#include "core/compute/Preprocess.h"
#include "search/GirSearch.h"
#include "search/lowering/LeadBoxes.h"
#include "search/lowering/SubgraphLowering.h"
#include "tests/baselines/BaselineTestUtil.h"
#include "tests/search/TemplateCheck.h"

using gir::ElementwiseOp;
using gir::GraphCost;
using gir::HardwareDesc;
using gir::loadHardwareByName;
using gir::test::addInput;
using gir::test::describe;
using gir::test::valueOrFail;
namespace search = gir::search;
using search::OpTemplate;
using namespace gir::compute;

namespace {

// The graph's one memory-bound subgraph (no library ops in these graphs), with its minimal bytes.
Subgraph onlySubgraph(const Graph& g, const HardwareDesc& hw) {
  auto pre = valueOrFail(preprocess(g, hw));
  REQUIRE(pre.subgraphs.size() == 1);
  REQUIRE(pre.subgraphs[0].ops.size() == g.ops.size());
  return pre.subgraphs[0];
}

// Lowered, verified, memory-checked and compared with the reference; then optimized and checked
// again. Returns the optimized graph's cost.
GraphCost checkChoice(const Graph& g, const Subgraph& sub, const HardwareDesc& hw, const std::vector<OpTemplate>& choice) {
  return gir::computeCost(gir::test::checkLoweredAndOptimized(g, sub, hw, choice).second, &hw);
}

std::vector<OpTemplate> optionsOf(const Graph& g, const Subgraph& sub, size_t i, const HardwareDesc& hw, OpTemplate::Kind kind) {
  std::vector<OpTemplate> out;
  for (const auto& t : search::templateOptions(g, sub, i, search::boxElementBudget(hw)))
    if (t.kind == kind) out.push_back(t);
  return out;
}

// The choice that starts with `fixed` (templates of the first ops, the consumer's split forced
// where given) and takes, for every later op, the first offered template that applies.
std::optional<std::vector<OpTemplate>> complete(const Graph& g, const Subgraph& sub, const HardwareDesc& hw, std::vector<OpTemplate> fixed,
                                                std::string* why = nullptr) {
  auto state = valueOrFail(search::TemplateState::make(g, sub, search::boxElementBudget(hw)));
  for (const auto& t : fixed)
    if (auto st = state.push(t); !st) {
      if (why) *why = st.error().str();
      return std::nullopt;
    }
  for (size_t i = fixed.size(); i < sub.ops.size(); ++i) {
    bool pushed = false;
    for (const auto& t : search::templateOptions(g, sub, i, search::boxElementBudget(hw)))
      if (t.kind != OpTemplate::Kind::Lead && state.push(t)) {
        pushed = true;
        break;
      }
    if (!pushed) return std::nullopt;
  }
  return state.choice();
}

// concat(x_pass, relu(x1)) or concat(relu(x1), x_pass) along the channels, x: [1, 2c, h, w].
Graph concatOfRelu(bool reluFirst, int64_t c, int64_t hw) {
  Graph g;
  g.name = reluFirst ? "relu_then_pass" : "pass_then_relu";
  GraphBuilder b(g);
  TensorId pass = addInput(g, "x_pass", {1, c, hw, hw});
  TensorId r = valueOrFail(b.unary(ElementwiseOp::Relu, addInput(g, "x1", {1, c, hw, hw})));
  g.outputs = {valueOrFail(b.concat(reluFirst ? std::vector<TensorId>{r, pass} : std::vector<TensorId>{pass, r}, 1))};
  return g;
}

// BN -> ReLU -> Concat(x_pass, relu) -> Reshape -> Transpose -> Reshape -> Split: ShuffleNetV2's
// block (docs/rewrites.md's worked example with the second half computed inside the subgraph).
Graph shuffleBlock(int64_t c, int64_t hw) {
  Graph g;
  g.name = "shuffle_block";
  GraphBuilder b(g);
  TensorId pass = addInput(g, "x_pass", {1, c, hw, hw});
  std::vector<TensorId> bn{addInput(g, "x1", {1, c, hw, hw})};
  for (const char* n : {"scale", "bias", "mean", "var"}) bn.push_back(addInput(g, n, {c}));
  std::vector<double> var(static_cast<size_t>(c));
  for (int64_t k = 0; k < c; ++k) var[static_cast<size_t>(k)] = 0.5 + 0.25 * static_cast<double>(k % 5);
  g.tensor(bn[4]).constant = var;
  TensorId r = valueOrFail(b.unary(ElementwiseOp::Relu, valueOrFail(b.batchNorm(bn, {}))));
  TensorId cat = valueOrFail(b.concat({pass, r}, 1));
  TensorId t = valueOrFail(b.reshape(valueOrFail(b.transpose(valueOrFail(b.reshape(cat, {1, 2, c, hw, hw})), {0, 2, 1, 3, 4})), {1, 2 * c, hw, hw}));
  g.outputs = valueOrFail(b.split(t, 1, {c, c}));
  return g;
}

// Every natural split of `consumer` as a lead of `producer`: either rejected with a message, or the
// choice completed (consumer taking the same split, then another one) lowers to valid graphs that
// match the reference. Returns how many leads applied.
int checkEveryLead(const Graph& g, const Subgraph& sub, const HardwareDesc& hw, size_t producer, size_t consumer,
                   const std::vector<OpTemplate>& before) {
  int applied = 0;
  auto splits = optionsOf(g, sub, consumer, hw, OpTemplate::Kind::Natural);
  REQUIRE(!splits.empty());
  for (const auto& n : splits) {
    OpTemplate lead = n;
    lead.kind = OpTemplate::Kind::Lead;
    lead.consumer = static_cast<int>(consumer);
    std::vector<OpTemplate> fixed = before;
    fixed.push_back(lead);
    std::string why;
    auto state = valueOrFail(search::TemplateState::make(g, sub, search::boxElementBudget(hw)));
    bool ok = true;
    for (const auto& t : fixed)
      if (auto st = state.push(t); !st) {
        ok = false;
        why = st.error().str();
      }
    if (!ok) {
      INFO(lead.str() << " rejected: " << why);
      CHECK(!why.empty());
      continue;
    }
    ++applied;
    // The chain between producer and consumer follows, the consumer takes the led split, or not.
    for (const auto& consumerSplit : {n, splits.front().outer == n.outer && splits.front().tile == n.tile ? splits.back() : splits.front()}) {
      std::vector<OpTemplate> prefix = fixed;
      auto chain = valueOrFail(search::leadChain(g, sub, producer, consumer));
      for (size_t k = producer + 1; k < consumer; ++k) {
        bool inChain = std::find(chain.begin(), chain.end(), k) != chain.end();
        prefix.push_back(optionsOf(g, sub, k, hw, inChain ? OpTemplate::Kind::Follow : OpTemplate::Kind::Natural).at(0));
      }
      prefix.push_back(consumerSplit);
      auto choice = complete(g, sub, hw, prefix, &why);
      INFO(lead.str() << " then " << consumerSplit.str() << ": " << why);
      REQUIRE(choice);
      checkChoice(g, sub, hw, *choice);
    }
  }
  return applied;
}

}  // namespace

TEST_CASE("a lead puts a concat's input on the concat's units, in either input position", "[search][lead]") {
  auto hw = valueOrFail(loadHardwareByName("cpu-host"));
  for (bool reluFirst : {false, true}) {
    Graph g = concatOfRelu(reluFirst, 6, 4);
    Subgraph sub = onlySubgraph(g, hw);
    INFO(g.name);
    auto leads = optionsOf(g, sub, 0, hw, OpTemplate::Kind::Lead);
    REQUIRE(!leads.empty());
    CHECK(leads.size() <= 2);
    for (const auto& lead : leads) {
      CHECK(lead.consumer == 1);
      CHECK(lead.str().rfind("lead@1:natural[", 0) == 0);
      // Under the led split the ReLU's output never leaves the unit: one kernel, minimal bytes.
      GraphCost c = checkChoice(g, sub, hw, {lead, lead.consumerSplit()});
      CHECK(c.kernels == 1);
      CHECK(c.dramBytes == sub.minBytes);
      // The units of the other input do nothing for the ReLU: its boxes exist on half the units.
      auto state = valueOrFail(search::TemplateState::make(g, sub, search::boxElementBudget(hw)));
      REQUIRE(state.push(lead));
      REQUIRE(state.push(lead.consumerSplit()));
      int64_t busy = 0;
      for (const auto& lo : state.boxes(0).lo) busy += lo ? 1 : 0;
      CHECK(state.boxes(0).units() == state.boxes(1).units());
      CHECK(busy * state.boxes(0).boxNumel() == state.space(0).numel());
      if (state.boxes(1).units() > 1) CHECK(busy < state.boxes(1).units());
    }
    // Without a lead the ReLU keeps its own units; as the concat's second input its channel u is
    // read by the concat's unit c + u, another unit, so its output goes through DRAM.
    auto natural = optionsOf(g, sub, 0, hw, OpTemplate::Kind::Natural).at(0);
    auto plain = complete(g, sub, hw, {natural});
    REQUIRE(plain);
    GraphCost plainCost = checkChoice(g, sub, hw, *plain);
    if (!reluFirst) CHECK(plainCost.dramBytes > sub.minBytes);
    // The search takes the lead and reaches the minimal bytes in one kernel.
    auto found = valueOrFail(search::searchTemplates(g, sub, hw));
    INFO(describe(found.choice));
    CHECK(found.choice[0].kind == OpTemplate::Kind::Lead);
    CHECK(found.choice[1] == found.choice[0].consumerSplit());
    CHECK(found.cost.kernels == 1);
    CHECK(found.cost.dramBytes == sub.minBytes);
    CHECK(checkEveryLead(g, sub, hw, 0, 1, {}) > 0);
  }
}

TEST_CASE("two producers lead one concat with the same split", "[search][lead]") {
  auto hw = valueOrFail(loadHardwareByName("cpu-host"));
  Graph g;
  g.name = "two_leads";
  GraphBuilder b(g);
  TensorId a = valueOrFail(b.unary(ElementwiseOp::Exp, addInput(g, "a", {1, 4, 8, 8})));
  TensorId r = valueOrFail(b.unary(ElementwiseOp::Relu, addInput(g, "x", {1, 8, 8, 8})));
  g.outputs = {valueOrFail(b.concat({a, r}, 1))};
  Subgraph sub = onlySubgraph(g, hw);
  auto leadA = optionsOf(g, sub, 0, hw, OpTemplate::Kind::Lead);
  REQUIRE(!leadA.empty());
  CHECK(checkEveryLead(g, sub, hw, 0, 2, {}) > 0);
  // Both lead with the same split: one kernel at the minimal bytes.
  OpTemplate leadR = leadA[0];
  GraphCost c = checkChoice(g, sub, hw, {leadA[0], leadR, leadA[0].consumerSplit()});
  CHECK(c.kernels == 1);
  CHECK(c.dramBytes == sub.minBytes);
  auto found = valueOrFail(search::searchTemplates(g, sub, hw));
  INFO(describe(found.choice));
  CHECK(found.cost.kernels == 1);
  CHECK(found.cost.dramBytes == sub.minBytes);
}

TEST_CASE("a lead runs back through a chain of single readers: BN -> ReLU -> Concat", "[search][lead]") {
  auto hw = valueOrFail(loadHardwareByName("cpu-host"));
  Graph g = shuffleBlock(6, 4);
  Subgraph sub = onlySubgraph(g, hw);
  auto bnLeads = optionsOf(g, sub, 0, hw, OpTemplate::Kind::Lead);
  REQUIRE(!bnLeads.empty());
  CHECK(bnLeads[0].consumer == 2);
  // The ReLU under the BN's lead follows it onto the concat's units: the same boxes as its own lead.
  auto state = valueOrFail(search::TemplateState::make(g, sub, search::boxElementBudget(hw)));
  REQUIRE(state.push(bnLeads[0]));
  REQUIRE(state.push(OpTemplate{OpTemplate::Kind::Follow, {}, 1, 0}));
  auto reluLead = valueOrFail(search::TemplateState::make(g, sub, search::boxElementBudget(hw)));
  REQUIRE(reluLead.push(optionsOf(g, sub, 0, hw, OpTemplate::Kind::Natural).at(0)));
  OpTemplate relu = bnLeads[0];
  REQUIRE(reluLead.push(relu));
  CHECK(reluLead.boxes(1).lo == state.boxes(1).lo);
  CHECK(reluLead.boxes(1).ext == state.boxes(1).ext);
  // Every split of the concat as a lead of the BN, and of the ReLU after a natural BN.
  CHECK(checkEveryLead(g, sub, hw, 0, 2, {}) > 0);
  CHECK(checkEveryLead(g, sub, hw, 1, 2, {optionsOf(g, sub, 0, hw, OpTemplate::Kind::Natural).at(0)}) > 0);
}

TEST_CASE("a lead the consumer cannot honour is rejected with a reason", "[search][lead]") {
  auto hw = valueOrFail(loadHardwareByName("cpu-host"));
  SECTION("the chain reads only part of the producer's output") {
    Graph g;
    g.name = "partial";
    GraphBuilder b(g);
    TensorId r = valueOrFail(b.unary(ElementwiseOp::Relu, addInput(g, "x", {1, 8, 4, 4})));
    TensorId half = valueOrFail(b.slice(r, {0, 0, 0, 0}, {1, 2, 1, 1}, {1, 4, 4, 4}));
    g.outputs = {valueOrFail(b.concat({addInput(g, "x_pass", {1, 4, 4, 4}), half}, 1))};
    Subgraph sub = onlySubgraph(g, hw);
    CHECK(optionsOf(g, sub, 0, hw, OpTemplate::Kind::Lead).empty());  // not offered ...
    CHECK(optionsOf(g, sub, 1, hw, OpTemplate::Kind::Lead).size() > 0);  // (the slice itself may lead)
    OpTemplate lead = optionsOf(g, sub, 2, hw, OpTemplate::Kind::Natural).at(0);
    lead.kind = OpTemplate::Kind::Lead;
    lead.consumer = 2;
    auto state = valueOrFail(search::TemplateState::make(g, sub, search::boxElementBudget(hw)));
    auto st = state.push(lead);  // ... and refused when forced: half the ReLU would never be computed
    REQUIRE(!st);
    INFO(st.error().str());
    CHECK(st.error().str().find("read only") != std::string::npos);
    CHECK(st.error().str().find("op '" + g.op(sub.ops[0]).name + "'") != std::string::npos);
    CHECK(checkEveryLead(g, sub, hw, 1, 2, {optionsOf(g, sub, 0, hw, OpTemplate::Kind::Natural).at(0)}) > 0);
  }
  SECTION("the producer has two readers") {
    Graph g;
    g.name = "two_readers";
    GraphBuilder b(g);
    TensorId r = valueOrFail(b.unary(ElementwiseOp::Relu, addInput(g, "x", {1, 4, 4, 4})));
    TensorId e = valueOrFail(b.unary(ElementwiseOp::Exp, r));
    g.outputs = {valueOrFail(b.concat({addInput(g, "x_pass", {1, 4, 4, 4}), r}, 1)), e};
    Subgraph sub = onlySubgraph(g, hw);
    CHECK(optionsOf(g, sub, 0, hw, OpTemplate::Kind::Lead).empty());
    OpTemplate lead = optionsOf(g, sub, 2, hw, OpTemplate::Kind::Natural).at(0);
    lead.kind = OpTemplate::Kind::Lead;
    lead.consumer = 2;
    auto state = valueOrFail(search::TemplateState::make(g, sub, search::boxElementBudget(hw)));
    auto st = state.push(lead);
    REQUIRE(!st);
    CHECK(st.error().str().find("more than one op") != std::string::npos);
  }
  SECTION("the consumer is not after the producer") {
    Graph g = concatOfRelu(false, 4, 4);
    Subgraph sub = onlySubgraph(g, hw);
    OpTemplate lead = optionsOf(g, sub, 1, hw, OpTemplate::Kind::Natural).at(0);
    lead.kind = OpTemplate::Kind::Lead;
    lead.consumer = 0;
    auto state = valueOrFail(search::TemplateState::make(g, sub, search::boxElementBudget(hw)));
    auto st = state.push(lead);
    REQUIRE(!st);
    CHECK(st.error().str().find("not a later op") != std::string::npos);
  }
}

TEST_CASE("ShuffleNetV2's block reaches the minimal bytes in one kernel", "[search][lead]") {
  auto hw = valueOrFail(loadHardwareByName("cpu-host"));
  for (auto [c, hw2] : {std::pair<int64_t, int64_t>{6, 4}, std::pair<int64_t, int64_t>{58, 28}}) {
    Graph g = shuffleBlock(c, hw2);
    Subgraph sub = onlySubgraph(g, hw);
    INFO("c=" << c << " hw=" << hw2);
    auto found = valueOrFail(search::searchTemplates(g, sub, hw));
    INFO(describe(found.choice));
    REQUIRE(found.choice.size() == 7);
    CHECK(found.choice[0].kind == OpTemplate::Kind::Lead);  // BN leads, ReLU follows it
    CHECK(found.choice[0].consumer == 2);
    CHECK(found.choice[1].kind == OpTemplate::Kind::Follow);
    CHECK(found.choice[2] == found.choice[0].consumerSplit());
    for (size_t k = 3; k < 7; ++k) CHECK(found.choice[k].kind == OpTemplate::Kind::Follow);
    CHECK(found.cost.kernels == 1);
    CHECK(found.cost.dramBytes == sub.minBytes);
    // The search validated its plan; check it independently as well.
    GraphCost again = checkChoice(g, sub, hw, found.choice);
    CHECK(again.dramBytes == found.cost.dramBytes);
    // The beam search (used above 256 combinations) commits the concat to the lead as well.
    search::SearchOptions beamOnly;
    beamOnly.exhaustiveLimit = 0;
    auto beamed = valueOrFail(search::searchTemplates(g, sub, hw, beamOnly));
    INFO("beam: " << describe(beamed.choice));
    CHECK(beamed.stats.beam);
    CHECK(beamed.cost.kernels == 1);
    CHECK(beamed.cost.dramBytes == sub.minBytes);
  }
}

TEST_CASE("every lead on concats of odd shapes and axes lowers correctly or is refused", "[search][lead]") {
  // Pieces of unequal, odd sizes on every axis, so consumer tiles straddle piece boundaries and
  // boxes come out unaligned: each lead must then be refused, never lowered wrong.
  auto hw = valueOrFail(loadHardwareByName("cpu-host"));
  struct Case {
    int axis;
    Dims pass, computed;
    int chain;  // elementwise ops between the producer and the concat
  };
  const Case cases[] = {
      {1, {1, 3, 5, 4}, {1, 5, 5, 4}, 1}, {2, {2, 4, 3, 6}, {2, 4, 5, 6}, 2}, {3, {2, 3, 4, 7}, {2, 3, 4, 5}, 1}, {0, {3, 4, 8}, {2, 4, 8}, 2},
  };
  int applied = 0, refused = 0;
  for (const auto& c : cases) {
    Graph g;
    g.name = "odd_axis" + std::to_string(c.axis);
    GraphBuilder b(g);
    TensorId y = addInput(g, "x", c.computed);
    for (int k = 0; k <= c.chain; ++k) y = valueOrFail(b.unary(k % 2 ? ElementwiseOp::Exp : ElementwiseOp::Relu, y));
    g.outputs = {valueOrFail(b.concat({addInput(g, "x_pass", c.pass), y}, c.axis))};
    Subgraph sub = onlySubgraph(g, hw);
    size_t concat = sub.ops.size() - 1;
    auto splits = optionsOf(g, sub, concat, hw, OpTemplate::Kind::Natural);
    int here = checkEveryLead(g, sub, hw, 0, concat, {});
    applied += here;
    refused += static_cast<int>(splits.size()) - here;
    // Offered leads are among the ones that apply, and lowered under the led split they keep the
    // chain in registers.
    for (const auto& lead : optionsOf(g, sub, 0, hw, OpTemplate::Kind::Lead)) {
      std::vector<OpTemplate> prefix{lead};
      for (size_t k = 1; k < concat; ++k) prefix.push_back(OpTemplate{OpTemplate::Kind::Follow, {}, 1, 0});
      prefix.push_back(lead.consumerSplit());
      GraphCost cost = checkChoice(g, sub, hw, prefix);
      CHECK(cost.dramBytes == sub.minBytes);
    }
  }
  CHECK(applied > 0);
  CHECK(refused > 0);
}
