// Sign facts proved from the graph's structure (core/gir/ValueSigns.h): softmax's x - max(x) is never
// positive; near misses (the operands swapped, a sum or a min for the max, a constant added, a second
// writer) prove nothing.
#include <catch2/catch.hpp>

#include <string>

#include "core/gir/Parser.h"
#include "core/gir/ValueSigns.h"

using namespace gir;

namespace {

// Rows of 64 per unit: the max of each row broadcast back and subtracted (as `subtract` spells it),
// then `last` applied to the difference, and `extra` nodes after. Slice ids follow declaration order:
// %d_u is 4, %e_u 5.
std::vector<bool> signsOf(const std::string& reduce = "reduce.max", const std::string& subtract = "ew.sub %xr_u, %mb_u",
                          const std::string& last = "ew.exp %d_u", const std::string& extra = "") {
  std::string text = R"(gir @signs target=cpu-host units=4 block=2
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
move %x_u -> %xr_u
)" + reduce + " axes[1] %xr_u -> %m_u\nbroadcast axes[1] %m_u -> %mb_u\n" +
                     subtract + " -> %d_u\n" + last + " -> %e_u\n" + extra;
  auto g = parseGirText(text, "<signs>");
  INFO((g ? "" : g.error().str()));
  REQUIRE(g);
  return nonPositiveSlices(*g);
}

constexpr uint32_t kDifference = 4, kResult = 5;

}  // namespace

TEST_CASE("x - max(x) is never positive, and its operands, the max and the broadcast are not shown to be", "[core][signs]") {
  std::vector<bool> s = signsOf();
  CHECK(s[kDifference]);
  for (uint32_t other : {0u, 1u, 2u, 3u, kResult}) CHECK_FALSE(s[other]);
}

TEST_CASE("near misses of x - max(x) prove nothing", "[core][signs]") {
  CHECK_FALSE(signsOf("reduce.max", "ew.sub %mb_u, %xr_u")[kDifference]);  // max(x) - x
  CHECK_FALSE(signsOf("reduce.sum")[kDifference]);                         // x - sum(x)
  CHECK_FALSE(signsOf("reduce.min")[kDifference]);                         // x - min(x)
  CHECK_FALSE(signsOf("reduce.max", "ew.sub %xr_u, %mb_u", "ew.add %d_u, 1.0")[kResult]);  // x - max(x) + 1
  CHECK_FALSE(signsOf("reduce.max", "ew.sub %xr_u, %mb_u", "ew.exp %d_u", "ew.neg %x_u -> %xr_u\n")[kDifference]);  // a second writer of x's row
}
