// One schedule for every back end (issue #17, point 2): the CPU, the CUDA/HIP rendering and Ascend's
// phases read the same kernels, stages, placements and levels from codegen/schedule; a target only
// states what its on-chip storage can hold (ScheduleTarget).
#include <catch2/catch.hpp>

#include "codegen/ascend/lower/FromGir.h"
#include "codegen/cpu/CpuCheck.h"
#include "codegen/gpu/GpuPlan.h"
#include "codegen/schedule/Phases.h"
#include "codegen/schedule/Schedule.h"
#include "core/gir/Parser.h"
#include "core/gir/Validity.h"
#include "tests/cpu/CpuTestSupport.h"

using namespace gir;
using gir::test::planOf;
using namespace gir::codegen;

namespace {

// A concat into a register buffer whose two halves sit 100 elements apart: unit u's instance starts
// at 4u for u < 4 and at 100 + 4u after, not an affine function of u, yet every slice sits at the
// start of its unit's instance. Both back ends keep it per unit (the CPU put it in DRAM before).
constexpr const char* kGappedConcat = R"(gir @gapped target=cpu-host units=8 block=2
level dram device
level tile block capacity=1048576
level local unit capacity=32768
%x = buffer dram f32[32] input
%y = buffer dram f32[32] output
%r = buffer local f32[132]
%x_u = slice %x offset(4*u) shape[4] strides[1]
%r_lo = slice %r offset(4*u) shape[4] strides[1]
%r_hi = slice %r offset(4*u+100) shape[4] strides[1]
%y_u = slice %y offset(4*u) shape[4] strides[1]
move %x_u -> %r_lo domain[0,4)
move %x_u -> %r_hi domain[4,8)
ew.exp %r_lo -> %y_u domain[0,4)
ew.neg %r_hi -> %y_u domain[4,8)
)";

}  // namespace

TEST_CASE("one schedule: a private instance needs its slices at fixed places, not an affine start", "[cpu][schedule]") {
  Graph g = test::parseGirOrStop(kGappedConcat);
  ValidityReport v = checkValidity(g, randomInputs(g, 1));
  INFO(v.str());
  REQUIRE(v.valid());
  auto s = buildSchedule(g);
  REQUIRE(s);
  const BufferPlan& r = planOf(g, *s, "r");
  CHECK(r.placement == Placement::PerUnit);
  CHECK_FALSE(r.affine);
  CHECK(r.instanceSize == 4);
  int slicesOfR = 0;
  for (uint32_t i = 0; i < g.slices().size(); ++i)
    if (g.slices()[i].buffer == *g.findBuffer("r")) {
      CHECK(s->sliceRel[i] == 0);  // each at its unit's instance start
      ++slicesOfR;
    }
  CHECK(slicesOfR == 2);
  // The CPU renders it as a stack array and computes what the interpreter computes.
  auto k = cpu::CompiledKernel::build(g, test::cpuTestOptions());
  INFO((k ? "" : k.error().str()));
  REQUIRE(k);
  CHECK(k->source().code.find("alignas(64) float r[4];") != std::string::npos);
  for (uint64_t seed : {1, 2}) {
    auto check = cpu::checkAgainstInterpreter(g, *k, seed);
    REQUIRE(check);
    INFO(check->firstMismatch);
    CHECK(check->close);
  }
  // The GPU renders the same placement as registers, one slot per lane.
  auto t = gpu::gpuTargetByName("nvidia-h100");
  REQUIRE(t);
  auto p = gpu::planGpu(g, *t);
  REQUIRE(p);
  auto rb = p->graph.findBuffer("r");
  REQUIRE(rb);
  CHECK(p->buffers[rb->value].placement == gpu::Placement::Registers);
  CHECK(p->buffers[rb->value].slots == 1);
}

TEST_CASE("one schedule: the target's storage limits are the only difference between back ends", "[cpu][schedule]") {
  // softmax_block keeps a 4-element per-block max in smem; make the block's scratch 16,384 floats (64 KiB),
  // over the GPU's 48 KiB of static shared memory but nothing a CPU thread's scratch minds.
  Graph g = test::parseGirFileOrStop("tests/golden/gir/softmax_block.gir");
  auto cpuSchedule = buildSchedule(g);
  auto gpuSchedule = buildSchedule(g, ScheduleTarget::gpu("nvidia-h100", 32));
  REQUIRE(cpuSchedule);
  REQUIRE(gpuSchedule);
  // Same graph, same limits respected: identical kernels, stages and placements.
  REQUIRE(cpuSchedule->kernels.size() == gpuSchedule->kernels.size());
  for (size_t k = 0; k < cpuSchedule->kernels.size(); ++k) {
    CHECK(cpuSchedule->kernels[k].program == gpuSchedule->kernels[k].program);
    CHECK(cpuSchedule->kernels[k].stages.size() == gpuSchedule->kernels[k].stages.size());
  }
  for (size_t b = 0; b < cpuSchedule->buffers.size(); ++b) CHECK(cpuSchedule->buffers[b].placement == gpuSchedule->buffers[b].placement);

  ScheduleTarget tiny = ScheduleTarget::gpu("tiny", 32);
  tiny.maxBlockBytes = 8;  // pmax_s needs 4 floats per block: 16 bytes
  tiny.maxSlotsPerLane = 0;
  auto limited = buildSchedule(g, tiny);
  REQUIRE(limited);
  const BufferPlan& pm = planOf(g, *limited, "pmax_s");
  CHECK(pm.placement == Placement::Global);
  CHECK(pm.why == "16 bytes per block exceed the 0 KiB of static shared memory");
  CHECK(planOf(g, *cpuSchedule, "pmax_s").placement == Placement::PerBlock);
  ScheduleTarget fewRegisters = ScheduleTarget::gpu("few", 4);
  fewRegisters.maxSlotsPerLane = 2;  // xr holds 16 elements per unit: 4 per lane
  auto spilled = buildSchedule(g, fewRegisters);
  REQUIRE(spilled);
  CHECK(planOf(g, *spilled, "xr").placement == Placement::Global);
  CHECK(planOf(g, *spilled, "xr").why == "4 registers per lane exceed 2");
}

TEST_CASE("levels: earliest satisfies every edge, sinking moves producers next to their consumers", "[cpu][schedule]") {
  // 0 -> 1 (weight 1), 1 -> 3 (0), 2 -> 3 (1): 2 is a producer with one consumer.
  std::vector<NodeId> order{NodeId(0), NodeId(1), NodeId(2), NodeId(3)};
  LevelEdges edges(4);
  edges[0].push_back({NodeId(1), 1});
  edges[1].push_back({NodeId(3), 0});
  edges[2].push_back({NodeId(3), 1});
  CHECK(levelNodes(4, order, edges, LevelSink::Earliest) == std::vector<int>{0, 1, 0, 1});
  CHECK(levelNodes(4, order, edges, LevelSink::ToConsumers) == std::vector<int>{0, 1, 0, 1});
  edges[2][0].weight = 0;  // now 2 may run in its consumer's level
  CHECK(levelNodes(4, order, edges, LevelSink::Earliest) == std::vector<int>{0, 1, 0, 1});
  CHECK(levelNodes(4, order, edges, LevelSink::ToConsumers) == std::vector<int>{0, 1, 1, 1});
  // A node outside the order keeps -1 and constrains nothing.
  CHECK(levelNodes(5, order, edges, LevelSink::Earliest)[4] == -1);
}

TEST_CASE("one schedule: a one-kernel graph has as many CPU stages as Ascend phases split at syncs", "[cpu][schedule][ascend]") {
  // Both count block syncs on the longest path (Phases.h); Ascend's phases also sink, which never adds one.
  int compared = 0;
  for (const char* name : {"softmax_block", "figure6", "softmax_scope", "shufflenet_source", "relu"}) {
    INFO(name);
    Graph g = test::parseGirFileOrStop(std::string("tests/golden/gir/") + name + ".gir");
    auto s = buildSchedule(g);
    REQUIRE(s);
    if (s->kernels.size() != 1 || g.unitsPerBlock < 2) continue;
    auto plan = ascend::planUnitLoops(g, PhaseSplit::Sync);
    REQUIRE(plan);
    CHECK(static_cast<size_t>(plan->phases) == s->kernels[0].stages.size());
    ++compared;
  }
  CHECK(compared >= 2);
}
