// Interleaved timing (codegen/cpu/InterleavedTiming.h): rounds combine by the median of their medians,
// and every graph is timed whole and kernel by kernel in every round.
#include "codegen/cpu/InterleavedTiming.h"
#include "tests/cpu/CpuTestSupport.h"

using namespace gir;
using namespace gir::codegen::cpu;

TEST_CASE("combineRounds: the median of the rounds' medians, the extremes over all rounds", "[cpu][timing]") {
  Timing a{10, 8, 30, 9, 12, 5}, b{20, 15, 25, 16, 22, 7}, c{12, 11, 13, 11, 13, 6};
  Timing t = combineRounds({a, b, c});
  CHECK(t.medianUs == 12);  // not 20 from a burst in one round, not the mean
  CHECK(t.p10Us == 11);
  CHECK(t.p90Us == 13);
  CHECK(t.minUs == 8);
  CHECK(t.maxUs == 30);
  CHECK(t.repeats == 18);
  CHECK(combineRounds({a, b}).medianUs == 15);  // an even count: the mean of the middle two
  CHECK(combineRounds({}).repeats == 0);
}

TEST_CASE("timeInterleaved: every graph gets every round, whole and per kernel", "[cpu][timing]") {
  Graph one = test::parseGirFileOrStop("tests/golden/gir/softmax_block.gir");
  Graph two = test::parseGirFileOrStop("tests/golden/gir/two_kernels.gir");
  auto k1 = CompiledKernel::build(one, test::cpuTestOptions());
  auto k2 = CompiledKernel::build(two, test::cpuTestOptions());
  REQUIRE(k1);
  REQUIRE(k2);
  TensorMap in1 = randomInputs(one, 1), in2 = randomInputs(two, 1);
  std::vector<TimedGraph> graphs{{&*k1, &in1, {}, {}}, {&*k2, &in2, {}, {}}};
  TimingOptions t;
  t.warmup = 1;
  t.minRepeats = 2;
  t.maxRepeats = 2;
  REQUIRE(timeInterleaved(graphs, t, 3));
  for (const TimedGraph& g : graphs) {
    CHECK(g.whole.repeats == 6);  // 3 rounds of 2
    CHECK(g.whole.medianUs > 0);
    REQUIRE(g.perKernel.size() == static_cast<size_t>(g.kernel->kernels()));
    for (const Timing& k : g.perKernel) CHECK(k.repeats == 6);
  }
  CHECK(graphs[1].perKernel.size() == 2);
}

TEST_CASE("roundOrder: forward, then backward, so no candidate is always timed first", "[cpu][timing]") {
  CHECK(roundOrder(3, 0) == std::vector<size_t>{0, 1, 2});
  CHECK(roundOrder(3, 1) == std::vector<size_t>{2, 1, 0});
  CHECK(roundOrder(3, 2) == std::vector<size_t>{0, 1, 2});
  CHECK(roundOrder(0, 1).empty());
}
