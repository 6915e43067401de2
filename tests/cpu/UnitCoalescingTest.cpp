// Coalesced units (codegen/schedule/UnitCoalescing.h, docs/cpu.md "Coalesced units"): column strips
// run as one unit per group of neighbours compute what the planned graph computes, element for
// element, with no race or uninitialized read; graphs that mix the last dim with another are refused
// with the node or slice named; the emitter coalesces strided short runs and its kernel still matches
// the interpreter and moves the modelled bytes.
#include <catch2/catch.hpp>

#include <random>

#include "codegen/cpu/CpuEmitter.h"
#include "codegen/cpu/CpuModel.h"
#include "codegen/schedule/UnitCoalescing.h"
#include "core/gir/Interpreter.h"
#include "core/gir/MemoryChecker.h"
#include "core/gir/Printer.h"
#include "core/gir/SymbolicCheck.h"
#include "core/gir/Verifier.h"
#include "core/hw/HardwareDesc.h"
#include "tests/cpu/CpuTestSupport.h"

using namespace gir;
using namespace gir::codegen;

namespace {

// Column sums of a rows x cols matrix in strips: unit u reads `tileRows` rows of `width` columns
// (strip u % strips of row block u / strips), negates them, sums the rows and writes half the sums
// to its row block's partials. The shape of the column-strip plan of a ReduceSum over axis 0.
std::string columnStrips(int64_t rows, int64_t cols, int64_t tileRows, int64_t width, int64_t perBlock = 1) {
  int64_t strips = cols / width, units = rows / tileRows * strips;
  auto n = [](int64_t v) { return std::to_string(v); };
  std::string x = n(width) + "*(u%" + n(strips) + ")+" + n(tileRows * cols) + "*(u/" + n(strips) + ")";
  std::string y = n(width) + "*(u%" + n(strips) + ")+" + n(cols) + "*(u/" + n(strips) + ")";
  return "gir @strips target=cpu-host units=" + n(units) + " block=" + n(perBlock) +
         "\nlevel dram device\nlevel local unit capacity=32768\n"
         "%x = buffer dram f32[" + n(rows * cols) + "] input\n"
         "%in = buffer local f32[" + n(units * tileRows * width) + "]\n"
         "%neg = buffer local f32[" + n(units * tileRows * width) + "]\n"
         "%acc = buffer local f32[" + n(units * width) + "]\n"
         "%half = buffer local f32[" + n(units * width) + "]\n"
         "%y = buffer dram f32[" + n(rows / tileRows * cols) + "] output\n"
         "%sx = slice %x offset(" + x + ") shape[" + n(tileRows) + "," + n(width) + "] strides[" + n(cols) + ",1]\n"
         "%sin = slice %in offset(" + n(tileRows * width) + "*u) shape[" + n(tileRows) + "," + n(width) + "] strides[" + n(width) + ",1]\n"
         "%sneg = slice %neg offset(" + n(tileRows * width) + "*u) shape[" + n(tileRows) + "," + n(width) + "] strides[" + n(width) + ",1]\n"
         "%sacc = slice %acc offset(" + n(width) + "*u) shape[" + n(width) + "] strides[1]\n"
         "%shalf = slice %half offset(" + n(width) + "*u) shape[" + n(width) + "] strides[1]\n"
         "%sy = slice %y offset(" + y + ") shape[" + n(width) + "] strides[1]\n"
         "move %sx -> %sin\new.neg %sin -> %sneg\nreduce.sum axes[0] %sneg -> %sacc\new.mul %sacc, 0.5 -> %shalf\nmove %shalf -> %sy\n";
}

// The coalesced graph verifies, has nothing but capacity findings under both memory checkers, and
// its outputs equal the original's bit for bit (each column is summed in the same row order).
void requireSameComputation(const Graph& g, const Graph& c, uint64_t seed) {
  REQUIRE(verifyGraph(c));
  TensorMap inputs = randomInputs(g, seed);
  auto element = checkMemoryModel(c, inputs);
  REQUIRE(element);
  INFO(element->str());
  CHECK(element->firstBeyondCapacity() == nullptr);
  auto symbolic = checkMemoryModelSymbolic(c);
  REQUIRE(symbolic);
  INFO(symbolic->str());
  CHECK(symbolic->firstBeyondCapacity() == nullptr);
  auto before = interpret(g, inputs), after = interpret(c, inputs);
  REQUIRE(before);
  REQUIRE(after);
  CHECK(before->at("y") == after->at("y"));
}

}  // namespace

TEST_CASE("coalesced column strips print as their reviewed golden and compute what the strips do", "[cpu][schedule][coalesce]") {
  Graph g = test::parseGirOrStop(columnStrips(8, 32, 4, 4));  // 2 row blocks of 8 strips: 16 units
  auto c = coalesceUnits(g, 4);
  INFO((c ? "" : c.error().str()));
  REQUIRE(c);
  std::string golden = test::sourcePath("tests/golden/cpu/column_strips_coalesced.gir");
  if (test::blessMode()) test::writeText(golden, printGraph(*c));
  CHECK(printGraph(*c) == test::readText(golden));
  CHECK(c->units == 4);
  requireSameComputation(g, *c, 1);
}

TEST_CASE("coalescing random strip plans by every factor that divides their strips keeps their results", "[cpu][schedule][coalesce][property]") {
  std::mt19937_64 rng(20261128);
  auto pick = [&](std::initializer_list<int64_t> options) { return *(options.begin() + static_cast<long>(rng() % options.size())); };
  for (int trial = 0; trial < 24; ++trial) {
    int64_t tileRows = pick({1, 2, 3, 4}), width = pick({1, 2, 4, 8}), strips = pick({2, 4, 6, 8}), blocks = pick({1, 2, 3});
    int64_t perBlock = pick({1, 2, 4});
    Graph g = test::parseGirOrStop(columnStrips(tileRows * blocks, width * strips, tileRows, width, perBlock));
    for (int64_t factor : {2, 3, 4, 8}) {
      INFO("trial " << trial << ": " << tileRows << " rows x " << width << " columns per unit, " << strips << " strips, " << blocks
                    << " row blocks, factor " << factor);
      auto c = coalesceUnits(g, factor);
      if (strips % factor != 0) {
        REQUIRE_FALSE(c);
        CHECK(c.error().message.find("does not divide") != std::string::npos);
        continue;
      }
      REQUIRE(c);
      CHECK(c->units * factor == g.units);
      requireSameComputation(g, *c, static_cast<uint64_t>(trial) + 1);
    }
  }
}

TEST_CASE("coalescing is refused, naming why, where units do not continue each other along the last dim", "[cpu][schedule][coalesce]") {
  auto refusal = [](const std::string& text, int64_t factor) {
    auto c = coalesceUnits(test::parseGirOrStop(text), factor);
    REQUIRE_FALSE(c);
    return c.error().message;
  };
  std::string strips = columnStrips(8, 32, 4, 4);
  auto replaced = [](std::string text, const std::string& from, const std::string& to) {
    size_t at = text.find(from);
    REQUIRE(at != std::string::npos);
    return text.replace(at, from.size(), to);
  };
  // A reduction over the last dim would add neighbouring units' sums together.
  CHECK(refusal(replaced(strips, "reduce.sum axes[0]", "reduce.sum axes[1]"), 2).find("reduces the last dim") != std::string::npos);
  // Units whose strips are not side by side: consecutive units alternate between the row blocks.
  CHECK(refusal(replaced(strips, "offset(4*(u%8)+128*(u/8))", "offset(128*(u%2)+4*(u/2))"), 2).find("does not continue") != std::string::npos);
  CHECK(refusal(strips, 3).find("does not divide the 16 units") != std::string::npos);
  CHECK(refusal(strips, 1).find("at least 2") != std::string::npos);
}

TEST_CASE("the emitter coalesces strided short runs, and the kernel matches and moves the modelled bytes", "[cpu][emit][coalesce]") {
  // 64 x 256 in strips of 4 x 4: runs of 16 bytes, 1,024 units. 4 KB runs would take 256 units per
  // group; 64 units must remain, so 16 are coalesced.
  Graph g = test::parseGirOrStop(columnStrips(64, 256, 4, 4, 4));
  CHECK(stridedRunFactor(g, 4096, codegen::cpu::kMinCoalescedUnits) == 16);
  CHECK(stridedRunFactor(g, 16, codegen::cpu::kMinCoalescedUnits) == 1);  // runs long enough already
  std::string code = test::requireKernelMatches(g);
  CHECK(code.find("Units coalesced 16 to 1") != std::string::npos);
  CHECK(code.find("64 units, 1 per block") != std::string::npos);
  auto counting = codegen::cpu::CompiledKernel::build(g, test::cpuTestOptions(true));
  REQUIRE(counting);
  auto counted = counting->countBytes(randomInputs(g, 1));
  REQUIRE(counted);
  auto hw = loadHardwareByName("cpu-host");
  REQUIRE(hw);
  CHECK(*counted == codegen::cpu::modelCpu(g, *hw).dramBytes);
  // Switched off, the same graph keeps its 1,024 units.
  codegen::cpu::CpuEmitOptions plain;
  plain.coalesceRunsBelowBytes = 0;
  auto uncoalesced = codegen::cpu::emitCpu(g, plain);
  REQUIRE(uncoalesced);
  CHECK(uncoalesced->code.find("1024 units") != std::string::npos);
  CHECK(uncoalesced->code.find("coalesced") == std::string::npos);
}

TEST_CASE("contiguous units are left as planned", "[cpu][emit][coalesce]") {
  // Whole rows per unit: no gaps between runs, nothing to gain.
  Graph g = test::parseGirOrStop(columnStrips(64, 16, 1, 16, 4));
  CHECK(stridedRunFactor(g, 4096, 1) == 1);
}
