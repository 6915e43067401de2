// The order blocks are visited in (codegen/schedule/BlockOrder.h, docs/cpu.md "Block order"): rows
// outermost in the unit index, as the search numbers a convolution's units, are visited plane by
// plane; any other order is left alone; either way the kernel computes what the interpreter does.
#include <catch2/catch.hpp>

#include <algorithm>
#include <numeric>

#include "codegen/schedule/BlockOrder.h"
#include "tests/cpu/CpuTestSupport.h"

using namespace gir;
using namespace gir::codegen;

namespace {

// 8 planes of 4 rows of 16 floats, 32 units in blocks of 2; unit u reads and writes its 16 at `offset`
// and runs `nodes` between the load into %r_u and the store from %s_u (`domain` on both moves).
std::string planesGraph(const std::string& offset, const std::string& nodes, const std::string& domain = "") {
  return "gir @planes target=cpu-host units=32 block=2\n"
         "level dram device\nlevel tile block capacity=1048576\nlevel local unit capacity=32768\n"
         "%x = buffer dram f32[8,4,16] input\n%y = buffer dram f32[8,4,16] output\n"
         "%r = buffer local f32[512]\n%s = buffer local f32[512]\n"
         "%x_u = slice %x offset(" + offset + ") shape[16] strides[1]\n"
         "%y_u = slice %y offset(" + offset + ") shape[16] strides[1]\n"
         "%r_u = slice %r offset(16*u) shape[16] strides[1]\n%s_u = slice %s offset(16*u) shape[16] strides[1]\n"
         "move %x_u -> %r_u" + domain + "\n" + nodes + "\nmove %s_u -> %y_u" + domain + "\n";
}

// Unit u = row * 8 + plane: consecutive units lie a plane (64) apart, a unit's next row 16 apart. Row 0
// is its own node, as a convolution's edge band is.
const std::string kRowsOuter = planesGraph("64*(u%8)+16*(u/8)", "ew.neg %r_u -> %s_u domain[0,8)\new.exp %r_u -> %s_u domain[8,32)");

// The plane outermost: consecutive units are consecutive rows already.
const std::string kPlanesOuter = planesGraph("16*u", "ew.exp %r_u -> %s_u");

// Only the first 8 units run anything: an eager SiLU after a convolution runs on its units.
const std::string kFirstRowOnly = planesGraph("16*u", "ew.sigmoid %r_u -> %s_u domain[0,8)", " domain[0,8)");

BlockOrder orderOf(const Graph& g) {
  auto s = buildSchedule(g);
  REQUIRE(s);
  REQUIRE(s->kernels.size() == 1);
  return blockOrder(g, *s, s->kernels[0]);
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
  std::string code = test::requireKernelMatches(g);
  CHECK(code.find("const int64_t blk = (visit % 4) * 4 + visit / 4;") != std::string::npos);
}

TEST_CASE("block order: units already in memory order, and divisors that split blocks, keep index order", "[cpu][schedule][block-order]") {
  Graph planes = test::parseGirOrStop(kPlanesOuter);
  CHECK(orderOf(planes).indexOrder());
  test::requireKernelMatches(planes);
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
  std::string code = test::requireKernelMatches(g);
  CHECK(code.find("for (int64_t blk = 0; blk < 4; ++blk)") != std::string::npos);
}
