// The search's patience (docs/plans.md, "The search"): it stops once `patience` candidates in a row
// after its best do not improve on it. The candidates it costs are then the first ones of the
// search without the rule, in the same order, and it stops exactly `patience` after its last
// improvement (or where the search without the rule stops).
#include <catch2/catch.hpp>

#include <algorithm>
#include <tuple>

#include "search/GirSearch.h"
#include "tests/search/ScenarioSupport.h"

using namespace gir;

namespace {

struct Run {
  std::vector<search::Candidate> costed;  // the feasible candidates, in the order costed
  int64_t count = 0;                      // candidates costed, feasible or not
};

Run searchWith(const compute::Graph& g, const compute::Subgraph& sub, const HardwareDesc& hw, size_t patience) {
  search::SearchOptions options;
  options.patience = patience;
  options.validate = false;
  options.threads = 1;
  auto found = search::searchTemplates(g, sub, hw, options);
  INFO((found ? "" : found.error().str()));
  REQUIRE(found);
  Run r;
  r.count = found->stats.explored + found->stats.infeasible;
  r.costed = found->candidates;  // best first: back in the order costed
  std::sort(r.costed.begin(), r.costed.end(), [](const auto& a, const auto& b) { return a.costedAt < b.costedAt; });
  return r;
}

// The number of candidates costed when the last improvement was taken (the best's costedAt + 1).
int64_t lastImprovement(const Run& r) {
  // The search's order of candidates: modelled time, then DRAM bytes, then kernels.
  auto key = [](const search::Candidate& c) { return std::make_tuple(c.cost.modelledUs, c.cost.dramBytes, c.cost.kernels); };
  int64_t at = 0;
  const search::Candidate* best = nullptr;
  for (const auto& c : r.costed)
    if (!best || key(c) < key(*best)) {
      best = &c;
      at = c.costedAt + 1;
    }
  return at;
}

}  // namespace

TEST_CASE("a search out of patience costs a prefix of the full search and stops right after its patience", "[search]") {
  // The transformer block's subgraphs: searches of 1 to 54 candidates without the rule.
  auto s = test::preprocessedScenario("transformer_block");
  int cutShort = 0;
  for (const auto& sub : s.pre.subgraphs) {
    Run full = searchWith(s.model, sub, s.hw, 0);
    for (size_t patience : {1u, 3u}) {
      INFO("subgraph of " << sub.ops.size() << " ops, patience " << patience << ", " << full.count << " candidates without it");
      Run cut = searchWith(s.model, sub, s.hw, patience);
      REQUIRE(cut.count <= full.count);
      REQUIRE(cut.costed.size() <= full.costed.size());
      for (size_t i = 0; i < cut.costed.size(); ++i) {
        CHECK(cut.costed[i].choice == full.costed[i].choice);
        CHECK(cut.costed[i].costedAt == full.costed[i].costedAt);
      }
      if (cut.count < full.count) {
        ++cutShort;
        CHECK(cut.count == lastImprovement(cut) + static_cast<int64_t>(patience));
      }
    }
  }
  CHECK(cutShort > 0);  // the rule did cut some search here
}
