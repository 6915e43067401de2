// The Ascend timeline against the simulator: the same makespan on every corpus kernel after
// insertion, one arrow per consumed set, at most the target's flag IDs per pipe pair, a Chrome trace
// with one complete event per op that ran.
#include <catch2/catch.hpp>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "codegen/ascend/asck/AsckSimulator.h"
#include "tests/support/TestSupport.h"
#include "viz/AscendTimeline.h"

using namespace gir;
using namespace gir::viz;

TEST_CASE("corpus kernels: timeline makespan equals the simulator's, flags within the target", "[viz][ascend]") {
  int kernels = 0;
  for (const auto& entry : std::filesystem::directory_iterator(test::sourcePath("tests/ascend/corpus"))) {
    std::string path = entry.path().string();
    if (entry.path().extension() != ".asck" || path.find("big_") != std::string::npos) continue;
    auto k = loadAscendKernel(path);
    INFO(path);
    REQUIRE(k.ok());
    ascend::SimResult sim = ascend::simulate(k->trace, k->target.syncCost, nullptr);
    REQUIRE(sim.ok());
    CHECK_FALSE(k->timeline.deadlock);
    CHECK(k->timeline.makespan == sim.makespan);
    CHECK(static_cast<int64_t>(k->timeline.arrows.size()) == sim.waits);
    for (const auto& [src, dst, ids] : idsPerPipePair(k->timeline)) CHECK(ids <= k->target.flags);
    for (const FlagRow& r : k->timeline.flagRows)
      for (const FlagInterval& iv : r.intervals) {
        CHECK(iv.begin <= iv.end);
        CHECK(iv.waitOp >= 0);  // a correct kernel leaves no flag set
      }
    // Stages: input, the seven insertion stages, output.
    CHECK(k->inserted);
    CHECK(k->stages.size() == ascend::insertionStages().size() + 2);
    ++kernels;
  }
  CHECK(kernels >= 20);
}

TEST_CASE("Chrome trace: one X event per op that ran, a flow pair per arrow, pipes named", "[viz][ascend]") {
  auto k = loadAscendKernel(test::sourcePath("tests/ascend/corpus/matmul_double_buffer.asck"));
  REQUIRE(k.ok());
  auto j = nlohmann::json::parse(chromeTraceJson(k->timeline, k->trace, k->output.name));
  size_t complete = 0, starts = 0, finishes = 0, names = 0;
  for (const auto& e : j["traceEvents"]) {
    std::string ph = e["ph"];
    complete += ph == "X";
    starts += ph == "s";
    finishes += ph == "f";
    names += ph == "M" && e["name"] == "thread_name";
  }
  CHECK(complete == k->timeline.ops.size());
  CHECK(starts == k->timeline.arrows.size());
  CHECK(finishes == starts);
  CHECK(names == static_cast<size_t>(ascend::kNumPipes));
}

TEST_CASE("an output kernel with a wait that no set feeds deadlocks on the timeline", "[viz][ascend]") {
  std::string text = "kernel k\nbuffer x GM 4096 tile=1024\nbuffer u UB 1024\nwait_flag MTE2 V 0\nV relu u <- u\n";
  auto k = analyzeAscendText(text, "k.asck");
  REQUIRE(k.ok());
  CHECK(k->timeline.deadlock);
  CHECK_FALSE(k->inserted);
}
