// Which nodes of a stage share a loop nest (codegen/schedule/FusedLoops.h): a node joins when its
// space refines the group's and it reads only what members wrote element for element; an
// independent node runs before the group; a reduce's result is read only after its group.
#include <catch2/catch.hpp>

#include "codegen/schedule/FusedLoops.h"
#include "tests/cpu/CpuTestSupport.h"
#include "tests/cpu/FusedStage.h"

using namespace gir;
using namespace gir::codegen;

namespace {

// Two rows of 8 per unit: a row sum, a per-unit copy of the shared parameter p (8 floats: another
// iteration count), then x * broadcast(sum) * broadcast(p) into y.
constexpr const char* kRowScale = R"(gir @row_scale target=cpu-host units=4 block=1
level dram device
level local unit capacity=32768
%x = buffer dram f32[64] input
%p = buffer dram f32[8] input
%y = buffer dram f32[64] output
%a = buffer local f32[64]
%r = buffer local f32[8]
%pc = buffer local f32[32]
%rb = buffer local f32[64]
%pb = buffer local f32[64]
%m = buffer local f32[64]
%o = buffer local f32[64]
%x_u = slice %x offset(16*u) shape[2,8] strides[8,1]
%a_u = slice %a offset(16*u) shape[2,8] strides[8,1]
%r_u = slice %r offset(2*u) shape[2,1] strides[1,1]
%p_all = slice %p offset(0) shape[8] strides[1]
%pc_u = slice %pc offset(8*u) shape[8] strides[1]
%rb_u = slice %rb offset(16*u) shape[2,8] strides[8,1]
%pb_u = slice %pb offset(16*u) shape[2,8] strides[8,1]
%m_u = slice %m offset(16*u) shape[2,8] strides[8,1]
%o_u = slice %o offset(16*u) shape[2,8] strides[8,1]
%y_u = slice %y offset(16*u) shape[2,8] strides[8,1]
move %x_u -> %a_u
reduce.sum axes[1] %a_u -> %r_u
move %p_all -> %pc_u
broadcast axes[1] %r_u -> %rb_u
broadcast axes[0] %pc_u -> %pb_u
ew.mul %a_u, %rb_u -> %m_u
ew.mul %m_u, %pb_u -> %o_u
move %o_u -> %y_u
)";

using test::Fused;
using test::fuse;

std::vector<uint32_t> ids(const LoopGroup& grp) {
  std::vector<uint32_t> out;
  for (NodeId id : grp.nodes) out.push_back(id.value);
  return out;
}

bool isValue(const Fused& f, const std::vector<bool>& values, const std::string& buffer) {
  auto b = f.g.findBuffer(buffer);
  REQUIRE(b);
  return values[b->value];
}

}  // namespace

TEST_CASE("fusion: a reduce ends what may read it, an independent copy runs first, broadcasts become values", "[cpu][fusion]") {
  Fused f = fuse(kRowScale);
  // The schedule sinks the parameter copy (shared data) to just before its consumer, node 4.
  std::vector<uint32_t> order;
  for (NodeId id : f.schedule.kernels[0].stages[0].nodes) order.push_back(id.value);
  REQUIRE(order == std::vector<uint32_t>{0, 1, 3, 5, 2, 4, 6, 7});
  REQUIRE(f.groups.size() == 3);
  CHECK(ids(f.groups[0]) == std::vector<uint32_t>{0, 1});
  CHECK(f.groups[0].extents == std::vector<int64_t>{2, 8});
  CHECK(f.groups[0].reduced == std::vector<bool>{false, true});
  // The copy walks 8 elements, not 16, and touches nothing the open group {3, 5} touches: it runs
  // before that group, which node 4 then joins. Node 3 reads a reduce's result: it starts a group.
  CHECK(ids(f.groups[1]) == std::vector<uint32_t>{2});
  CHECK(ids(f.groups[2]) == std::vector<uint32_t>{3, 5, 4, 6, 7});
  for (const auto& grp : f.groups) CHECK(grp.fused);
  std::vector<bool> values = valueBuffers(f.g, f.schedule, f.groups);
  for (const char* b : {"rb", "pb", "m", "o"}) {
    INFO(b);
    CHECK(isValue(f, values, b));
  }
  // Read again in a later group, or a reduce's result: kept in memory.
  for (const char* b : {"a", "r", "pc"}) {
    INFO(b);
    CHECK_FALSE(isValue(f, values, b));
  }
  // Node 6 (member 3) takes both factors from members 1 and 2; node 5 reads %a from memory.
  CHECK(forwardedFrom(f.g, f.groups[2], 3, 0) == 1);
  CHECK(forwardedFrom(f.g, f.groups[2], 3, 1) == 2);
  CHECK(forwardedFrom(f.g, f.groups[2], 1, 0) == -1);
}

TEST_CASE("fusion: a write over what a member reads, or a read at other elements, closes the group", "[cpu][fusion]") {
  // The second node reads %a reversed (another element than the first wrote at that iteration).
  std::string text = kRowScale;
  text.replace(text.find("move %x_u -> %a_u"), std::string("move %x_u -> %a_u").size(), "move %x_u -> %a_u\nmove %a_rev -> %m_u");
  text.replace(text.find("%y_u = slice"), 0, "%a_rev = slice %a offset(16*u+15) shape[16] strides[-1]\n");
  Fused f = fuse(text);
  REQUIRE(f.groups.size() >= 2);
  CHECK(ids(f.groups[0]) == std::vector<uint32_t>{0});
  CHECK(f.groups[1].nodes.front().value == 1);
}

namespace {

// A depthwise row in miniature: unit 0's padding, units 1-3 copy their row into the padded array (another
// unit domain), then per unit the weight's copy, its broadcast, and a multiply of the even elements by it.
constexpr const char* kPaddedTap = R"(gir @padded_tap target=cpu-host units=4 block=1
level dram device
level local unit capacity=32768
%x = buffer dram f32[64] input
%w = buffer dram f32[4] input
%y = buffer dram f32[32] output
%pad = buffer local f32[64]
%wl = buffer local f32[4]
%wb = buffer local f32[32]
%m = buffer local f32[32]
%x_u = slice %x offset(16*u) shape[16] strides[1]
%pad_u = slice %pad offset(16*u) shape[16] strides[1]
%pad_even = slice %pad offset(16*u) shape[1,8] strides[16,2]
%w_u = slice %w offset(u) shape[1] strides[1]
%wl_u = slice %wl offset(u) shape[1] strides[1]
%wb_u = slice %wb offset(8*u) shape[1,8] strides[8,1]
%m_u = slice %m offset(8*u) shape[1,8] strides[8,1]
%y_u = slice %y offset(8*u) shape[1,8] strides[8,1]
ew.copy 0.0 -> %pad_u domain[0,1)
move %x_u -> %pad_u domain[1,4)
move %w_u -> %wl_u
broadcast axes[1] %wl_u -> %wb_u
ew.mul %pad_even, %wb_u -> %m_u
move %m_u -> %y_u
)";

}  // namespace

TEST_CASE("fusion: the last node run first runs after the group when it commutes with every member, and opens the next", "[cpu][fusion]") {
  // The weight's copy and broadcast (nodes 2, 3) cannot join the row's copy (node 1: another unit domain)
  // and are independent of it, so they run first; the multiply reads the row's copy, so it closes that
  // group. The broadcast, the last of them, runs after the row's copy instead, and the multiply and the
  // store join it: the broadcast is a value, not an array.
  Fused f = fuse(kPaddedTap);
  std::string seen = "stage order ";
  for (NodeId id : f.schedule.kernels[0].stages[0].nodes) seen += std::to_string(id.value) + " ";
  seen += "groups ";
  for (const auto& grp : f.groups) {
    seen += "{";
    for (uint32_t id : ids(grp)) seen += std::to_string(id) + " ";
    seen += "} ";
  }
  INFO(seen);
  REQUIRE(f.groups.size() == 4);
  CHECK(ids(f.groups[0]) == std::vector<uint32_t>{0});
  CHECK(ids(f.groups[1]) == std::vector<uint32_t>{2});
  CHECK(ids(f.groups[2]) == std::vector<uint32_t>{1});
  CHECK(ids(f.groups[3]) == std::vector<uint32_t>{3, 4, 5});
  CHECK(f.groups[3].fused);
  std::vector<bool> values = valueBuffers(f.g, f.schedule, f.groups);
  CHECK(isValue(f, values, "wb"));
  CHECK(isValue(f, values, "m"));
  // When the next node reads the row's copy and the broadcast's value at other elements than it
  // writes, it cannot join the broadcast, which then runs right after the row's copy, as an array.
  std::string reversed = test::replaced(kPaddedTap, "ew.mul %pad_even, %wb_u -> %m_u", "ew.mul %pad_even, %wb_rev -> %m_u");
  Fused g = fuse(test::replaced(reversed, "%y_u = slice", "%wb_rev = slice %wb offset(8*u+7) shape[1,8] strides[8,-1]\n%y_u = slice"));
  REQUIRE(g.groups.size() == 5);
  CHECK(ids(g.groups[2]) == std::vector<uint32_t>{1});
  CHECK(ids(g.groups[3]) == std::vector<uint32_t>{3});
  CHECK(ids(g.groups[4]) == std::vector<uint32_t>{4, 5});
  CHECK_FALSE(isValue(g, valueBuffers(g.g, g.schedule, g.groups), "wb"));
}
