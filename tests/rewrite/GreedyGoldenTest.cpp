// The paper's figures through the greedy optimizer in checked mode: each step is verified, the step
// log and the final graph are compared with golden files (GIR_BLESS=1 refreshes them), and the
// properties that matter are asserted independently of the goldens.
#include <catch2/catch.hpp>

#include "core/gir/Json.h"
#include "core/gir/Printer.h"
#include "rewrite/GreedyOptimizer.h"
#include "tests/support/TestSupport.h"

using namespace gir;

namespace {

Graph load(const std::string& name) {
  auto g = loadGirFile(test::sourcePath("tests/golden/gir/" + name + ".gir"));
  INFO((g ? "" : g.error().str()));
  REQUIRE(g);
  return *g;
}

std::optional<HardwareDesc> h100() {
  auto hw = loadHardwareByName("nvidia-h100");
  REQUIRE(hw);
  return *hw;
}

// The step-by-step record: each step's rule, site, reason and cost, then the graph after it.
std::string stepLog(const Graph& input, const Stepper& st) {
  std::string out = "# input\n" + printGraph(input);
  Stepper replay(input, std::nullopt, false);
  for (size_t i = 0; i < st.position(); ++i) {
    const StepRecord& r = st.history()[i];
    auto again = replay.apply(r.rule, r.siteIndex);
    REQUIRE(again);
    out += "# step " + std::to_string(i + 1) + ": " + r.rule + " site " + std::to_string(r.siteIndex) + "\n# " + r.explanation +
           "\n# dram bytes " + std::to_string(r.costBefore.dramBytes) + " -> " + std::to_string(r.costAfter.dramBytes) +
           ", kernels " + std::to_string(r.costBefore.kernels) + " -> " + std::to_string(r.costAfter.kernels) + "\n" +
           printGraph(replay.graph());
  }
  return out;
}

void compareGolden(const std::string& name, const std::string& actual) {
  std::string path = test::sourcePath("tests/golden/rewrite/" + name + ".txt");
  if (test::blessMode()) test::writeText(path, actual);
  std::string expected = test::readText(path);
  INFO("golden file " << path << " (GIR_BLESS=1 rewrites it; review the diff)");
  CHECK(actual == expected);
}

GreedyResult greedy(Stepper& st) {
  GreedyResult r = runGreedy(st);
  INFO(r.failure);
  REQUIRE(r.stop == StopReason::Converged);
  return r;
}

}  // namespace

TEST_CASE("ShuffleNet indexed by source: greedy reaches one kernel at the minimal DRAM bytes", "[rewrite][golden]") {
  Graph g = load("shufflenet_source");
  Stepper st(g, h100(), true);
  CHECK(st.cost().kernels == 3);
  greedy(st);
  const int64_t minimal = 2 * 232 * 784 * 4;  // inputs read once + outputs written once
  CHECK(minimal == 1455104);
  CHECK(st.cost().kernels == 1);
  CHECK(st.cost().dramBytes == minimal);
  compareGolden("shufflenet_source", stepLog(g, st));
}

TEST_CASE("ShuffleNet indexed by destination stays at three kernels", "[rewrite][golden]") {
  Graph g = load("shufflenet_dest");
  Stepper st(g, h100(), true);
  greedy(st);
  CHECK(st.cost().kernels == 3);
  CHECK(st.cost().syncs[static_cast<int>(Scope::Device)] == 2);
  compareGolden("shufflenet_dest", stepLog(g, st));
}

TEST_CASE("figure 6: swap then merge removes both device syncs", "[rewrite][golden]") {
  Graph g = load("figure6");
  Stepper st(g, h100(), true);
  CHECK(st.sitesOf(*findRule(st.rules(), "sync-insertion")).empty());  // blocked before swapping
  greedy(st);
  bool swapped = false;
  for (size_t i = 0; i < st.position(); ++i) swapped |= st.history()[i].rule == "swap";
  CHECK(swapped);
  CHECK(st.cost().kernels == 1);
  CHECK(st.cost().dramBytes == 2 * 64 * 16 * 4);
  compareGolden("figure6", stepLog(g, st));
}

TEST_CASE("row softmax through DRAM: sync insertion finds block scope and promotes to shared memory", "[rewrite][golden]") {
  Graph g = load("softmax_device");
  Stepper st(g, h100(), true);
  greedy(st);
  CHECK(st.cost().kernels == 1);
  CHECK(st.cost().syncs[static_cast<int>(Scope::Block)] == 2);
  CHECK(st.graph().buffer(*st.graph().findBuffer("pmax_s")).level == "smem");
  compareGolden("softmax_device", stepLog(g, st));
}

TEST_CASE("undo restores the original print-out exactly, redo and trace replay reproduce the result", "[rewrite]") {
  for (const char* name : {"shufflenet_source", "figure6", "softmax_device"}) {
    INFO(name);
    Graph g = load(name);
    Stepper st(g, h100(), true);
    greedy(st);
    std::string optimized = printGraph(st.graph());
    while (st.undo()) {}
    CHECK(printGraph(st.graph()) == printGraph(g));
    while (st.redo()) {}
    CHECK(printGraph(st.graph()) == optimized);
    std::string trace = traceToJson(st.history(), st.position());
    Stepper replay(g, h100(), true);
    REQUIRE(replayTrace(replay, trace, "trace.json"));
    CHECK(printGraph(replay.graph()) == optimized);
  }
}

TEST_CASE("a stale site is rejected", "[rewrite]") {
  Graph g = load("figure6");
  Stepper st(g, h100(), true);
  const RewriteRule* swap = findRule(st.rules(), "swap");
  auto sites = st.sitesOf(*swap);
  REQUIRE(sites.size() == 2);
  REQUIRE(st.applySite(*swap, sites[0], 0));
  auto stale = st.applySite(*swap, sites[1], 1);
  REQUIRE_FALSE(stale);
  CHECK_THAT(stale.error().message, Catch::Contains("stale site"));
}

TEST_CASE("a refused step stops greedy as cancelled, with the steps made so far kept", "[rewrite]") {
  // A cancel was reported as a failed step (issue #17): now the driver asks the gate first.
  Graph g = load("shufflenet_source");
  Stepper full(g, h100(), false);
  GreedyResult whole = greedy(full);
  REQUIRE(whole.steps > 3);
  Stepper st(g, h100(), false);
  st.setStepGate([](size_t made) { return made < 3; });
  GreedyResult r = runGreedy(st);
  CHECK(r.stop == StopReason::Cancelled);
  CHECK(stopReasonName(r.stop) == "cancelled");
  CHECK(r.failure.empty());
  CHECK(r.steps == 3);
  REQUIRE(st.position() == 3);
  for (size_t i = 0; i < 3; ++i) CHECK(st.history()[i].siteKey == full.history()[i].siteKey);  // a prefix of the whole run
}

TEST_CASE("a cancel that lands between the driver's question and the step is still a cancel", "[rewrite]") {
  // The app's gate reads a cancel flag that another thread sets: it can say yes to the driver's mayStep and
  // no to the step's own question a moment later. That stopped greedy as a failed step ("step failed:
  // cancelled", a STEP FAILED banner), found by the app test under load.
  Graph g = load("shufflenet_source");
  Stepper st(g, h100(), false);
  int asked = 0;
  st.setStepGate([&asked](size_t made) { return made < 2 || ++asked < 2; });  // third step: yes, then no
  GreedyResult r = runGreedy(st);
  CHECK(r.stop == StopReason::Cancelled);
  CHECK(r.failure.empty());
  CHECK(r.steps == 2);
  CHECK(st.position() == 2);
}

TEST_CASE("the greedy phases group the rules by the phase each names, in the paper's order", "[rewrite]") {
  std::vector<std::pair<std::string, GreedyPhase>> named;
  for (const auto& rule : allRules()) named.push_back({std::string(rule->name()), rule->phase()});
  CHECK(named == std::vector<std::pair<std::string, GreedyPhase>>{{"sync-insertion", GreedyPhase::SyncInsertion},
                                                                  {"swap", GreedyPhase::Swap},
                                                                  {"merge-raw", GreedyPhase::Merge},
                                                                  {"merge-rar", GreedyPhase::Merge},
                                                                  {"dead-store", GreedyPhase::Merge}});
  CHECK(std::vector<GreedyPhase>(std::begin(kGreedyPhases), std::end(kGreedyPhases)) ==
        std::vector<GreedyPhase>{GreedyPhase::SyncInsertion, GreedyPhase::Swap, GreedyPhase::Merge});
}
