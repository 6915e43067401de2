// The order blocks are visited in (codegen/schedule/BlockOrder.h, docs/cpu.md "Block order"): rows
// outermost in the unit index, as the search numbers a convolution's units, are visited plane by
// plane; any other order is left alone; either way the kernel computes what the interpreter does.
#include <catch2/catch.hpp>

#include <algorithm>
#include <numeric>

#include "codegen/cpu/CpuCheck.h"
#include "codegen/schedule/BlockOrder.h"
#include "core/gir/Validity.h"
#include "tests/cpu/CpuTestSupport.h"

using namespace gir;
using namespace gir::codegen;
using namespace gir::codegen::cpu;

namespace {

// 8 planes of 4 rows of 16; unit u = row * 8 + plane, so consecutive units lie a plane (64) apart and
// a unit's next row 16 apart. Row 0 is its own node, as a convolution's edge band is.
constexpr const char* kRowsOuter = R"(gir @rows_outer target=cpu-host units=32 block=2
level dram device
level tile block capacity=1048576
level local unit capacity=32768
%x = buffer dram f32[8,4,16] input
%y = buffer dram f32[8,4,16] output
%r = buffer local f32[512]
%s = buffer local f32[512]
%x_u = slice %x offset(64*(u%8)+16*(u/8)) shape[16] strides[1]
%y_u = slice %y offset(64*(u%8)+16*(u/8)) shape[16] strides[1]
%r_u = slice %r offset(16*u) shape[16] strides[1]
%s_u = slice %s offset(16*u) shape[16] strides[1]
move %x_u -> %r_u
ew.neg %r_u -> %s_u domain[0,8)
ew.exp %r_u -> %s_u domain[8,32)
move %s_u -> %y_u
)";

// The same computation with the plane outermost: consecutive units are consecutive rows already.
constexpr const char* kPlanesOuter = R"(gir @planes_outer target=cpu-host units=32 block=2
level dram device
level tile block capacity=1048576
level local unit capacity=32768
%x = buffer dram f32[8,4,16] input
%y = buffer dram f32[8,4,16] output
%r = buffer local f32[512]
%s = buffer local f32[512]
%x_u = slice %x offset(16*u) shape[16] strides[1]
%y_u = slice %y offset(16*u) shape[16] strides[1]
%r_u = slice %r offset(16*u) shape[16] strides[1]
%s_u = slice %s offset(16*u) shape[16] strides[1]
move %x_u -> %r_u
ew.exp %r_u -> %s_u
move %s_u -> %y_u
)";

// Only the first row's units run anything: an eager SiLU after a convolution runs on its units.
constexpr const char* kFirstRowOnly = R"(gir @first_row target=cpu-host units=32 block=2
level dram device
level tile block capacity=1048576
level local unit capacity=32768
%x = buffer dram f32[8,16] input
%y = buffer dram f32[8,16] output
%r = buffer local f32[512]
%s = buffer local f32[512]
%x_u = slice %x offset(16*u) shape[16] strides[1]
%y_u = slice %y offset(16*u) shape[16] strides[1]
%r_u = slice %r offset(16*u) shape[16] strides[1]
%s_u = slice %s offset(16*u) shape[16] strides[1]
move %x_u -> %r_u domain[0,8)
ew.sigmoid %r_u -> %s_u domain[0,8)
move %s_u -> %y_u domain[0,8)
)";

BlockOrder orderOf(const Graph& g) {
  auto s = buildSchedule(g);
  REQUIRE(s);
  REQUIRE(s->kernels.size() == 1);
  return blockOrder(g, *s, s->kernels[0]);
}

void requireMatchesInterpreter(const Graph& g) {
  ValidityReport v = checkValidity(g, randomInputs(g, 1));
  INFO(v.str());
  REQUIRE(v.valid());
  auto k = CompiledKernel::build(g, test::cpuTestOptions());
  INFO((k ? "" : k.error().str()));
  REQUIRE(k);
  for (uint64_t seed : {1, 2}) {
    auto check = checkAgainstInterpreter(g, *k, seed);
    REQUIRE(check);
    INFO(check->firstMismatch);
    CHECK(check->close);
  }
}

}  // namespace

TEST_CASE("block order: rows outermost in the unit index are visited plane by plane", "[cpu][schedule][block-order]") {
  Graph g = test::parseGirOrStop(kRowsOuter);
  BlockOrder order = orderOf(g);
  REQUIRE_FALSE(order.indexOrder());
  CHECK(order.period == 4);  // 8 units of a row in blocks of 2
  CHECK(order.steps == 4);   // 4 rows
  // The first plane pair's rows in turn, then the next pair's.
  CHECK(order.block(0) == 0);
  CHECK(order.block(1) == 4);
  CHECK(order.block(3) == 12);
  CHECK(order.block(4) == 1);
  std::vector<int64_t> visited;
  for (int64_t t = 0; t < 16; ++t) visited.push_back(order.block(t));
  std::sort(visited.begin(), visited.end());
  std::vector<int64_t> every(16);
  std::iota(every.begin(), every.end(), 0);
  CHECK(visited == every);  // a permutation: every block once
}

TEST_CASE("block order: the emitted loop visits blocks in that order and matches the interpreter", "[cpu][emit][block-order]") {
  Graph g = test::parseGirOrStop(kRowsOuter);
  requireMatchesInterpreter(g);
  auto k = CompiledKernel::build(g, test::cpuTestOptions());
  REQUIRE(k);
  CHECK(k->source().code.find("const int64_t blk = (visit % 4) * 4 + visit / 4;") != std::string::npos);
}

TEST_CASE("block order: units already in memory order, and divisors that split blocks, keep index order", "[cpu][schedule][block-order]") {
  Graph planes = test::parseGirOrStop(kPlanesOuter);
  CHECK(orderOf(planes).indexOrder());
  requireMatchesInterpreter(planes);
  // Blocks of 3 units cannot be grouped into rows of 8: the order stays the index order.
  std::string text = kRowsOuter;
  text.replace(text.find("units=32 block=2"), 16, "units=32 block=3");
  Graph odd = test::parseGirOrStop(text);
  CHECK(orderOf(odd).indexOrder());
}

TEST_CASE("block order: a kernel whose nodes run on the first units only loops over their blocks", "[cpu][emit][block-order]") {
  Graph g = test::parseGirOrStop(kFirstRowOnly);
  BlockOrder order = orderOf(g);
  CHECK(order.indexOrder());
  CHECK(order.first == 0);
  CHECK(order.count == 4);  // units [0,8) in blocks of 2, of 16 blocks
  requireMatchesInterpreter(g);
  auto k = CompiledKernel::build(g, test::cpuTestOptions());
  REQUIRE(k);
  CHECK(k->source().code.find("for (int64_t blk = 0; blk < 4; ++blk)") != std::string::npos);
}
