// What the visits just before read already (codegen/schedule/VisitReuse.h, docs/cpu.md "Reads the last
// visits made"): a window of three rows that slides by two shares one row with the unit before it, in
// the block order the emitters use, and the cost model gets that row from the cache while the
// modelled DRAM bytes (the instrumented count) stay GIR's.
#include <catch2/catch.hpp>

#include "codegen/schedule/VisitReuse.h"
#include "tests/cpu/CpuTestSupport.h"

using namespace gir;
using namespace gir::codegen;

namespace {

// `units` units in blocks of `block`; unit u reads three 16-float rows (one 64-byte line each) of %x at
// `offset` and writes the sum of its first and last into its row of %y.
std::string windowsGraph(int64_t units, int64_t block, int64_t xRows, const std::string& offset) {
  return "gir @windows target=cpu-host units=" + std::to_string(units) + " block=" + std::to_string(block) +
         "\nlevel dram device\nlevel tile block capacity=1048576\nlevel local unit capacity=32768\n"
         "%x = buffer dram f32[" + std::to_string(xRows) + ",16] input\n%y = buffer dram f32[" + std::to_string(units) + ",16] output\n"
         "%w = buffer local f32[" + std::to_string(units * 48) + "]\n%s = buffer local f32[" + std::to_string(units * 16) + "]\n"
         "%x_u = slice %x offset(" + offset + ") shape[3,16] strides[16,1]\n"
         "%w_u = slice %w offset(48*u) shape[3,16] strides[16,1]\n"
         "%w_0 = slice %w offset(48*u) shape[16] strides[1]\n%w_2 = slice %w offset(48*u+32) shape[16] strides[1]\n"
         "%s_u = slice %s offset(16*u) shape[16] strides[1]\n%y_u = slice %y offset(16*u) shape[16] strides[1]\n"
         "move %x_u -> %w_u\new.add %w_0, %w_2 -> %s_u\nmove %s_u -> %y_u\n";
}

std::map<uint32_t, double> shareOf(const Graph& g, const VisitReuseOptions& o = {}) {
  auto s = buildSchedule(g);
  REQUIRE(s);
  REQUIRE(s->kernels.size() == 1);
  std::vector<DeviceRead> reads;
  for (const Node& n : g.nodes())
    if (!n.erased && n.kind() == NodeKind::Move && g.buffer(g.slice(n.inputs[0]).buffer).level == "dram")
      reads.push_back({n.inputs[0], g.domainOf(n)});
  return revisitedReadShare(g, *s, s->kernels[0], reads, o);
}

uint32_t bufferId(const Graph& g, const std::string& name) {
  auto b = g.findBuffer(name);
  REQUIRE(b);
  return b->value;
}

}  // namespace

TEST_CASE("visit reuse: a window sliding by two rows of three finds one row in three read by the unit before", "[cpu][schedule][model]") {
  Graph g = test::parseGirOrStop(windowsGraph(64, 1, 129, "32*u"));
  auto share = shareOf(g);
  REQUIRE(share.count(bufferId(g, "x")));
  // 64 units of 3 lines each; every unit but the first finds its first row in the one before's.
  CHECK(share.at(bufferId(g, "x")) == Approx(63.0 / 192.0));
  // Even a window of one line keeps the last unit's lines: the shared row is still found.
  CHECK(shareOf(g, {64, 64}).at(bufferId(g, "x")) == Approx(63.0 / 192.0));
  // The walk stops after maxVisits visits: 8 units, 7 shared rows.
  CHECK(shareOf(g, {64, 512 << 10, 8}).at(bufferId(g, "x")) == Approx(7.0 / 24.0));
  // ... or after maxLineTouches line touches: 6 are the first two units' lines (one shared), and 4
  // cut the second unit short after its first line, the row the first unit read last.
  CHECK(shareOf(g, {64, 512 << 10, 256, 6}).at(bufferId(g, "x")) == Approx(1.0 / 6.0));
  CHECK(shareOf(g, {64, 512 << 10, 256, 4}).at(bufferId(g, "x")) == Approx(1.0 / 4.0));
}

TEST_CASE("visit reuse: disjoint windows share nothing", "[cpu][schedule][model]") {
  Graph g = test::parseGirOrStop(windowsGraph(64, 1, 192, "48*u"));
  CHECK(shareOf(g).at(bufferId(g, "x")) == 0.0);
}

TEST_CASE("visit reuse: units numbered rows outermost are walked in the block order, plane by plane", "[cpu][schedule][model]") {
  // 4 planes of 33 rows; unit u = row * 4 + plane reads rows 2*row .. 2*row+2 of its plane. In index
  // order consecutive units are a plane apart, and a window of one unit's lines finds nothing; the
  // block order walks each plane's rows in turn, so the unit before read the shared row.
  Graph g = test::parseGirOrStop(windowsGraph(64, 1, 132, "528*(u%4)+32*(u/4)"));
  VisitReuseOptions lastUnitOnly{64, 3 * 64};
  CHECK(shareOf(g, lastUnitOnly).at(bufferId(g, "x")) == Approx(4 * 15.0 / 192.0));
}

TEST_CASE("the model gets the rows the unit before read from the cache, and keeps GIR's DRAM bytes", "[cpu][model]") {
  // 16,384 units: %x (2 MiB of windows sliding by two rows, 3 MiB read) is not cache-resident.
  Graph halo = test::parseGirOrStop(windowsGraph(16384, 1, 32769, "32*u"));
  Graph disjoint = test::parseGirOrStop(windowsGraph(16384, 1, 49152, "48*u"));
  auto hw = loadHardwareByName("cpu-host");
  REQUIRE(hw);
  auto h = codegen::cpu::modelCpu(halo, *hw);
  auto d = codegen::cpu::modelCpu(disjoint, *hw);
  REQUIRE(h.kernels.size() == 1);
  REQUIRE(d.kernels.size() == 1);
  REQUIRE_FALSE(h.cacheResident);
  // The same GIR device bytes (what the instrumented build counts) ...
  CHECK(h.dramBytes == d.dramBytes);
  CHECK(h.kernels[0].dramBytes == 3 * 16384 * 64 + 16384 * 64);
  // ... but a third of the halo's reads (all but one row of each window beyond the first) come from the
  // cache: less device time, more cache time.
  INFO("halo: device " << h.kernels[0].deviceUs << " us, cache " << h.kernels[0].cacheUs << " us; disjoint: device " << d.kernels[0].deviceUs
                       << " us, cache " << d.kernels[0].cacheUs << " us");
  CHECK(h.kernels[0].deviceUs < 0.85 * d.kernels[0].deviceUs);
  CHECK(h.kernels[0].cacheUs > d.kernels[0].cacheUs);
  CHECK(h.modelledUs < d.modelledUs);
}
