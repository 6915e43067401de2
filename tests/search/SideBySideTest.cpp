// Planning work runs side by side (docs/scale.md, "Plan time"): the planners of a subgraph, and the
// candidates of a search in batches whose results are taken in the one-at-a-time order. The plans,
// their checks and the search's counts must not depend on the number of threads.
#include <catch2/catch.hpp>

#include <atomic>

#include "core/gir/Printer.h"
#include "search/GirSearch.h"
#include "search/ModelPlanner.h"
#include "search/SideBySide.h"
#include "search/templates/SubgraphCheck.h"
#include "tests/search/ScenarioSupport.h"

using namespace gir;

TEST_CASE("runSideBySide runs every task exactly once, on any number of threads", "[search]") {
  for (unsigned threads : {1u, 2u, 3u, 16u}) {
    std::vector<int> ran(7, 0);
    std::atomic<int> total{0};
    std::vector<std::function<void()>> tasks;
    for (size_t i = 0; i < ran.size(); ++i) tasks.push_back([&, i] { ++ran[i]; ++total; });
    search::runSideBySide(tasks, threads);
    INFO(threads << " threads");
    CHECK(total == 7);
    CHECK(ran == std::vector<int>(7, 1));
  }
  search::runSideBySide({}, 4);  // nothing to run: returns
}

namespace {

// Everything a plan's reader sees of one planner's result, as text.
std::string summary(const search::PlannerResult& r) {
  return r.planner + " " + r.origin + " valid=" + std::to_string(r.valid) + " err=" + std::to_string(r.maxRelativeError) + " " + r.problem +
         "\n" + printGraph(r.lowered.lowered.gir);
}

std::vector<std::string> planWith(const std::string& scenario, unsigned threads) {
  auto s = test::preprocessedScenario(scenario);
  search::PlanRequest request;
  request.search.threads = threads;
  auto plans = search::planModel(s.model, s.pre, s.hw, request);
  INFO((plans ? "" : plans.error().str()));
  REQUIRE(plans);
  std::vector<std::string> out;
  for (const auto& sp : *plans) {
    out.push_back("explored " + std::to_string(sp.search.explored) + ", infeasible " + std::to_string(sp.search.infeasible) + ", memo " +
                  std::to_string(sp.search.memoHits));
    for (const auto& r : sp.planners) out.push_back(summary(r));
  }
  return out;
}

}  // namespace

TEST_CASE("plans, checks and search counts are the same on one thread and on several", "[search]") {
  // A LayerNorm (the dive ends the search), a block whose searches cost many candidates, and a
  // model with repeated subgraphs (the memo).
  for (const char* scenario : {"layernorm", "transformer_block", "shufflenet"}) {
    INFO(scenario);
    auto one = planWith(scenario, 1);
    // Batches of 2 and 4 end at different points of a search capped at 64 candidates (1 + 2k and
    // 1 + 4k never equal 64), so results taken past the stop would show.
    for (unsigned threads : {2u, 4u}) {
      INFO(threads << " threads");
      auto several = planWith(scenario, threads);
      REQUIRE(one.size() == several.size());
      for (size_t i = 0; i < one.size(); ++i) CHECK(one[i] == several[i]);
    }
  }
}

TEST_CASE("a search that stops inside a batch takes exactly the candidates the one-at-a-time search takes", "[search]") {
  // The decode step's whole-subgraph search is exhaustive (24 candidates); capped at 20, batches of
  // 2 (1, 3, ..., 21) and of 4 (1, 5, ..., 21) both run past the stop; what they cost beyond it must go.
  auto s = test::preprocessedScenario("gpt2_decode_attention");
  REQUIRE(s.pre.subgraphs.size() == 1);
  auto searchWith = [&](unsigned threads) {
    search::SearchOptions options;
    options.maxEvaluations = 20;
    options.validate = false;
    options.threads = threads;
    auto found = search::searchTemplates(s.model, s.pre.subgraphs[0], s.hw, options);
    INFO((found ? "" : found.error().str()));
    REQUIRE(found);
    std::string text = "explored " + std::to_string(found->stats.explored) + " infeasible " + std::to_string(found->stats.infeasible) + "\n";
    for (const auto& c : found->candidates) {
      for (const auto& t : c.choice) text += t.str() + " ";
      text += std::to_string(c.cost.modelledUs) + "\n";
    }
    return text;
  };
  std::string one = searchWith(1);
  CHECK(one.rfind("explored", 0) == 0);
  for (unsigned threads : {2u, 4u}) {
    INFO(threads << " threads");
    CHECK(searchWith(threads) == one);
  }
}

TEST_CASE("a baseline whose kernel groups equal another's is lowered and checked once, and reads as if planned alone", "[search]") {
  // Where xla and tvm group a subgraph alike, planModel lowers and checks the groups once and copies
  // the result: it must read exactly as the planner's own run without the other (its name, its
  // analytic plan, the same GIR-Graph and verdict).
  auto s = test::preprocessedScenario("transformer_block");
  auto planWithPlanners = [&](std::vector<std::string> planners) {
    search::PlanRequest request;
    request.planners = std::move(planners);
    auto plans = search::planModel(s.model, s.pre, s.hw, request);
    INFO((plans ? "" : plans.error().str()));
    REQUIRE(plans);
    return std::move(*plans);
  };
  auto both = planWithPlanners({"xla", "tvm"});
  auto alone = planWithPlanners({"tvm"});
  REQUIRE(both.size() == alone.size());
  int shared = 0;
  for (size_t i = 0; i < both.size(); ++i) {
    INFO("subgraph " << i);
    const auto* xla = both[i].find("xla");
    const auto* tvm = both[i].find("tvm");
    const auto* tvmAlone = alone[i].find("tvm");
    REQUIRE((xla && tvm && tvmAlone));
    CHECK(summary(*tvm) == summary(*tvmAlone));
    REQUIRE((tvm->analytic && tvmAlone->analytic));
    CHECK(tvm->analytic->planner == "tvm");
    CHECK(tvm->analytic->totals.dramBytes() == tvmAlone->analytic->totals.dramBytes());
    CHECK(tvm->analytic->kernels.size() == tvmAlone->analytic->kernels.size());
    CHECK(tvm->checked == tvmAlone->checked);
    shared += printGraph(xla->lowered.lowered.gir) == printGraph(tvm->lowered.lowered.gir);
  }
  CHECK(shared >= 3);
}

TEST_CASE("the planner's checks on the subgraph's shared reference values equal checks that evaluate their own", "[search]") {
  // planModel evaluates a subgraph's reference once and hands it to every planner's check (docs/scale.md,
  // "Plan time"); each plan checked afresh from the seed must get the same verdict and the same error.
  for (const char* scenario : {"layernorm", "softmax", "gelu"}) {
    auto s = test::preprocessedScenario(scenario);
    auto plans = search::planModel(s.model, s.pre, s.hw, search::PlanRequest{});
    INFO(scenario << (plans ? "" : ": " + plans.error().str()));
    REQUIRE(plans);
    size_t checked = 0;
    for (const auto& sp : *plans)
      for (const auto& r : sp.planners) {
        if (!r.checked || !r.checkMethod.empty()) continue;  // checked at scale, on a reduced instance's own values
        INFO("subgraph " << sp.index << ", " << r.planner);
        const auto& lowered = r.lowered.lowered;
        auto fresh = search::checkPlan(s.model, *sp.subgraph, lowered, lowered.gir, search::kPlanCheckSeed);
        REQUIRE(fresh);
        CHECK(fresh->valid() == r.valid);
        CHECK(fresh->problem == r.problem);
        CHECK(fresh->maxRelativeError == r.maxRelativeError);
        CHECK_FALSE(fresh->validity.outputs.empty());  // element by element: the outputs were compared
        ++checked;
      }
    CHECK(checked >= 4);
  }
}
