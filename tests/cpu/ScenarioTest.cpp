// The row-wise scenarios through the CPU backend: every lowerable candidate (per-op `eager` lowering and
// the greedy-optimized `gir` graph) compiles, runs and matches the reference evaluator (rtol 1e-4) and
// the interpreter; the instrumented build moves exactly the cost model's DRAM bytes.
#include <catch2/catch.hpp>

#include <algorithm>

#include "codegen/cpu/CpuCheck.h"
#include "codegen/cpu/CpuModel.h"
#include "codegen/cpu/PlanCandidates.h"
#include "core/gir/Validity.h"
#include "core/onnx/OnnxImporter.h"
#include "rewrite/Cost.h"
#include "tests/cpu/CpuTestSupport.h"

using namespace gir;
using gir::test::countOf;
using namespace gir::codegen::cpu;

namespace {

const char* const kRowwise[] = {"softmax", "layernorm", "rmsnorm", "gelu", "silu", "row_reduction", "bert_bias_residual_layernorm"};

struct Loaded {
  compute::Graph model;
  compute::PreprocessResult pre;
};

Loaded load(const std::string& name, const HardwareDesc& hw) {
  auto model = compute::importOnnxFile(test::sourcePath("scenarios/" + name + ".onnx"));
  INFO((model ? "" : model.error().str()));
  REQUIRE(model);
  auto pre = compute::preprocess(*model, hw);
  REQUIRE(pre);
  REQUIRE_FALSE(pre->subgraphs.empty());
  return {std::move(*model), std::move(*pre)};
}

// Every unit's every access at device-scope levels, from the cost model's per-level figures.
int64_t deviceAccessBytes(const Graph& g) {
  int64_t bytes = 0;
  for (const auto& [level, b] : computeCost(g).bytesPerLevel) {
    const LevelDecl* l = g.level(level);
    if (l && l->scope == Scope::Device) bytes += b;
  }
  return bytes;
}

}  // namespace

TEST_CASE("row-wise scenarios: eager and gir candidates on the CPU match the reference evaluator", "[cpu][scenario]") {
  auto hw = loadHardwareByName("cpu-host");
  REQUIRE(hw);
  for (const char* name : kRowwise) {
    INFO(name);
    Loaded s = load(name, *hw);
    for (const auto& sub : s.pre.subgraphs) {
      auto candidates = planCandidates(s.model, sub, *hw, {"eager", "gir"});
      int64_t eagerBytes = 0, girBytes = 0;
      for (const PlanCandidate& c : candidates) {
        INFO(c.planner << " " << c.variant << " " << c.skipReason);
        // Lowered, or a 4-unit variant that only groups the 1-unit one's units (PlanCandidates.h).
        if (!c.lowered) {
          CHECK(c.skipReason.rfind("the same GIR-Graph as units/block=1", 0) == 0);
          continue;
        }
        // Every lowered variant for softmax, the 1-unit one elsewhere: bounds the test's compile time.
        if (std::string(name) != "softmax" && c.variant != "units/block=1") continue;
        const Graph& g = c.lowered->gir;
        auto k = CompiledKernel::build(g, test::cpuTestOptions());
        INFO((k ? "" : k.error().str()));
        REQUIRE(k);
        auto ref = referenceCase(s.model, sub, *c.lowered, 11);
        REQUIRE(ref);
        auto vsRef = checkAgainstReference(*ref, *k);
        REQUIRE(vsRef);
        INFO(vsRef->firstMismatch);
        CHECK(vsRef->close);
        auto vsInterp = checkAgainstInterpreter(g, *k, 12);
        REQUIRE(vsInterp);
        INFO(vsInterp->firstMismatch);
        CHECK(vsInterp->close);
        if (c.variant == "units/block=1") (c.planner == "gir" ? girBytes : eagerBytes) = deviceAccessBytes(g);
      }
      // The GIR planner's graph moves no more DRAM bytes than the eager plan's.
      CHECK(girBytes > 0);
      CHECK(girBytes <= eagerBytes);
    }
  }
}

TEST_CASE("the instrumented build moves exactly the cost model's DRAM bytes", "[cpu][bytes]") {
  auto hw = loadHardwareByName("cpu-host");
  REQUIRE(hw);
  for (const char* name : kRowwise) {
    INFO(name);
    Loaded s = load(name, *hw);
    for (const PlanCandidate& c : planCandidates(s.model, s.pre.subgraphs[0], *hw, {"eager", "gir"})) {
      if (!c.lowered) continue;
      INFO(c.planner << " " << c.variant);
      const Graph& g = c.lowered->gir;
      auto k = CompiledKernel::build(g, test::cpuTestOptions(/*instrument=*/true));
      INFO((k ? "" : k.error().str()));
      REQUIRE(k);
      CHECK(countOf(k->source().code, "GIR_COUNT(") > 1);  // the prelude's #define, then the loops' counts
      auto counted = k->countBytes(randomInputs(g, 1));
      REQUIRE(counted);
      CHECK(*counted == deviceAccessBytes(g));
      CHECK(*counted == modelCpu(g, *hw).dramBytes);
      // A second run counts the same again: the counter is reset, not accumulated across runs.
      auto again = k->countBytes(randomInputs(g, 2));
      REQUIRE(again);
      CHECK(*again == *counted);
    }
  }
}

TEST_CASE("an uninstrumented build refuses to count bytes", "[cpu][bytes]") {
  auto hw = loadHardwareByName("cpu-host");
  REQUIRE(hw);
  Loaded s = load("silu", *hw);
  auto cands = planCandidates(s.model, s.pre.subgraphs[0], *hw, {"eager"});
  REQUIRE(cands.back().lowered);  // units/block=1 (the 4-unit variant only groups its units)
  auto k = CompiledKernel::build(cands.back().lowered->gir, test::cpuTestOptions());
  REQUIRE(k);
  CHECK(countOf(k->source().code, "GIR_COUNT(") == 1);  // only the prelude's #define
  CHECK_FALSE(k->countBytes(randomInputs(cands.back().lowered->gir, 1)));
}

// Two shapes the row-wise scenarios lack: an elementwise node with immediates only (efficientnet's
// constant fill) and a long column sum with mixed signs (column_reduction: sums accumulate in double).
TEST_CASE("efficientnet and column_reduction: the GIR planner's graph on the CPU matches the reference", "[cpu][scenario]") {
  auto hw = loadHardwareByName("cpu-host");
  REQUIRE(hw);
  for (const char* name : {"efficientnet", "column_reduction"}) {
    INFO(name);
    Loaded s = load(name, *hw);
    auto candidates = planCandidates(s.model, s.pre.subgraphs[0], *hw, {"gir"});
    auto lowered = std::find_if(candidates.begin(), candidates.end(), [](const PlanCandidate& p) { return p.lowered.has_value(); });
    REQUIRE(lowered != candidates.end());
    const PlanCandidate& c = *lowered;
    auto k = CompiledKernel::build(c.lowered->gir, test::cpuTestOptions());
    INFO((k ? "" : k.error().str()));
    REQUIRE(k);
    auto ref = referenceCase(s.model, s.pre.subgraphs[0], *c.lowered, 3);
    REQUIRE(ref);
    auto check = checkAgainstReference(*ref, *k);
    REQUIRE(check);
    INFO(check->firstMismatch);
    CHECK(check->close);
  }
}

TEST_CASE("a planner's 4-unit variant that only groups its 1-unit variant's units is a skip that says so", "[cpu][candidates]") {
  auto hw = loadHardwareByName("cpu-host");
  REQUIRE(hw);
  Loaded s = load("silu", *hw);
  auto candidates = planCandidates(s.model, s.pre.subgraphs[0], *hw, {"eager", "gir"});
  REQUIRE(candidates.size() == 4);
  for (const PlanCandidate& c : candidates) {
    INFO(c.planner << " " << c.variant);
    if (c.variant == "units/block=1") {
      REQUIRE(c.lowered);
      CHECK(c.lowered->gir.unitsPerBlock == 1);
      continue;
    }
    CHECK(c.variant == "units/block=4");
    CHECK_FALSE(c.lowered);
    CHECK(c.skipReason == "the same GIR-Graph as units/block=1 but for the units per block: its blocks share nothing");
  }
}

TEST_CASE("a grouped graph whose blocks share scratch or syncs is not a mere grouping", "[cpu][candidates]") {
  Graph grouped = test::parseGirFileOrStop("tests/golden/gir/softmax_block.gir");
  REQUIRE(grouped.unitsPerBlock > 1);
  Graph single = grouped;
  single.unitsPerBlock = 1;
  CHECK_FALSE(onlyGroupsUnits(grouped, single));  // block syncs and a block-scope buffer
  // A graph with no sharing is its own grouping, and differs from a graph with other nodes.
  auto plainGraph = [](const std::string& op, int block) {
    return test::parseGirOrStop("gir @relu units=8 block=" + std::to_string(block) +
                                "\nlevel dram device\nlevel local unit capacity=4096\n"
                                "%x = buffer dram f32[64] input\n%y = buffer dram f32[64] output\n%r = buffer local f32[64]\n"
                                "%x_u = slice %x offset(8*u) shape[8] strides[1]\n%y_u = slice %y offset(8*u) shape[8] strides[1]\n"
                                "%r_u = slice %r offset(8*u) shape[8] strides[1]\n"
                                "move %x_u -> %r_u\new." + op + " %r_u -> %r_u\nmove %r_u -> %y_u\n");
  };
  Graph plain = plainGraph("relu", 4);
  Graph plainSingle = plain;
  plainSingle.unitsPerBlock = 1;
  CHECK(onlyGroupsUnits(plain, plainSingle));
  Graph other = plainGraph("neg", 1);
  CHECK_FALSE(onlyGroupsUnits(plain, other));
}
