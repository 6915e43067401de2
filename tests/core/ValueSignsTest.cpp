// Sign facts proved from the graph's structure (core/gir/ValueSigns.h): softmax's x - max(x) is never
// positive; near misses (the operands swapped, a sum for the max, other axes, a second writer) prove
// nothing.
#include <catch2/catch.hpp>

#include <string>

#include "core/gir/Parser.h"
#include "core/gir/ValueSigns.h"

using namespace gir;

namespace {

// Rows of 64 per unit; `nodes` replaces the body. Slice ids follow declaration order: %d_u is 4.
std::string rowsGraph(const std::string& nodes) {
  return R"(gir @signs target=cpu-host units=4 block=2
level dram device
level local unit capacity=32768
%x = buffer dram f32[4,64] input
%e = buffer dram f32[4,64] output
%xr = buffer local f32[256]
%m = buffer local f32[4]
%mb = buffer local f32[256]
%d = buffer local f32[256]
%x_u = slice %x offset(64*u) shape[1,64] strides[64,1]
%xr_u = slice %xr offset(64*u) shape[1,64] strides[64,1]
%m_u = slice %m offset(u) shape[1] strides[1]
%mb_u = slice %mb offset(64*u) shape[1,64] strides[64,1]
%d_u = slice %d offset(64*u) shape[1,64] strides[64,1]
%e_u = slice %e offset(64*u) shape[1,64] strides[64,1]
%m_col = slice %m offset(u) shape[1] strides[1]
)" + nodes;
}

constexpr uint32_t kDifference = 4;

std::vector<bool> signsOf(const std::string& nodes) {
  auto g = parseGirText(rowsGraph(nodes), "<signs>");
  INFO((g ? "" : g.error().str()));
  REQUIRE(g);
  return nonPositiveSlices(*g);
}

}  // namespace

TEST_CASE("x - max(x) is never positive; its operands, the max and the broadcast are not", "[core][signs]") {
  std::vector<bool> s = signsOf(R"(move %x_u -> %xr_u
reduce.max axes[1] %xr_u -> %m_u
broadcast axes[1] %m_u -> %mb_u
ew.sub %xr_u, %mb_u -> %d_u
ew.exp %d_u -> %e_u
)");
  CHECK(s[kDifference]);
  for (uint32_t other : {0u, 1u, 2u, 3u, 5u}) CHECK_FALSE(s[other]);
}

TEST_CASE("near misses of x - max(x) prove nothing", "[core][signs]") {
  SECTION("max(x) - x") {
    CHECK_FALSE(signsOf(R"(move %x_u -> %xr_u
reduce.max axes[1] %xr_u -> %m_u
broadcast axes[1] %m_u -> %mb_u
ew.sub %mb_u, %xr_u -> %d_u
ew.exp %d_u -> %e_u
)")[kDifference]);
  }
  SECTION("x - sum(x)") {
    CHECK_FALSE(signsOf(R"(move %x_u -> %xr_u
reduce.sum axes[1] %xr_u -> %m_u
broadcast axes[1] %m_u -> %mb_u
ew.sub %xr_u, %mb_u -> %d_u
ew.exp %d_u -> %e_u
)")[kDifference]);
  }
  SECTION("x - min(x)") {
    CHECK_FALSE(signsOf(R"(move %x_u -> %xr_u
reduce.min axes[1] %xr_u -> %m_u
broadcast axes[1] %m_u -> %mb_u
ew.sub %xr_u, %mb_u -> %d_u
ew.exp %d_u -> %e_u
)")[kDifference]);
  }
  SECTION("x - max(x) + 1") {
    CHECK_FALSE(signsOf(R"(move %x_u -> %xr_u
reduce.max axes[1] %xr_u -> %m_u
broadcast axes[1] %m_u -> %mb_u
ew.sub %xr_u, %mb_u -> %d_u
ew.add %d_u, 1.0 -> %e_u
)")[5]);
  }
  SECTION("the max's row written a second time") {
    CHECK_FALSE(signsOf(R"(move %x_u -> %xr_u
reduce.max axes[1] %xr_u -> %m_u
broadcast axes[1] %m_u -> %mb_u
ew.sub %xr_u, %mb_u -> %d_u
ew.exp %d_u -> %e_u
ew.neg %x_u -> %xr_u
)")[kDifference]);
  }
}
