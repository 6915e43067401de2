// Data below device scope that two kernels touch lives in device memory (docs/gir.md, "Kernels"): the
// cost model counts it there, and sync insertion does not lower a device sync when another one would
// still split the promoted data's users.
#include <catch2/catch.hpp>

#include "rewrite/Cost.h"
#include "rewrite/RewriteRule.h"
#include "rewrite/SyncInsertion.h"
#include "tests/support/GirText.h"

using namespace gir;

namespace {

// Two units. %a is exchanged between the units (unit u reads the other's half: a device sync), %b
// only read back by the unit that wrote it: once into the output %z, once into the add that meets a.
constexpr const char* kTwoSyncs = R"(gir @two_syncs units=2 block=1
level dram device
level reg unit capacity=4096
%x = buffer dram f32[8] input
%a = buffer dram f32[8]
%b = buffer dram f32[8]
%ra = buffer reg f32[8]
%rb = buffer reg f32[8]
%rs = buffer reg f32[8]
%y = buffer dram f32[8] output
%z = buffer dram f32[8] output
%x_u = slice %x offset(4*u) shape[4] strides[1]
%a_w = slice %a offset(4*u) shape[4] strides[1]
%a_r = slice %a offset(-4*u+4) shape[4] strides[1]
%b_w = slice %b offset(4*u) shape[4] strides[1]
%b_r = slice %b offset(4*u) shape[4] strides[1]
%ra_u = slice %ra offset(4*u) shape[4] strides[1]
%rb_u = slice %rb offset(4*u) shape[4] strides[1]
%rs_u = slice %rs offset(4*u) shape[4] strides[1]
%y_u = slice %y offset(4*u) shape[4] strides[1]
%z_u = slice %z offset(4*u) shape[4] strides[1]
move %x_u -> %a_w
move %x_u -> %b_w
sync device (%a_w) -> (%a_r)
sync device (%b_w) -> (%b_r)
move %a_r -> %ra_u
move %b_r -> %rb_u
move %b_r -> %z_u
ew.add %ra_u, %rb_u -> %rs_u
move %rs_u -> %y_u
)";

}  // namespace

TEST_CASE("a register buffer that two kernels touch counts as DRAM traffic in both", "[rewrite][cost]") {
  // What lowering b's sync alone would give: %b in registers, read into %z in kernel 0 and, behind a's
  // device sync, into the add in kernel 1.
  std::string text = kTwoSyncs;
  text.replace(text.find("%b = buffer dram"), 16, "%b = buffer reg  ");
  text.replace(text.find("sync device (%b_w)"), 11, "sync unit  ");
  Graph g = test::parseGirOrStop(text);
  REQUIRE(kernelCount(g) == 2);
  auto across = buffersAcrossKernels(g, kernelIndices(g));
  CHECK(across[g.findBuffer("b")->value]);
  CHECK_FALSE(across[g.findBuffer("ra")->value]);
  // Kernel 0 reads x (32 B: the two moves read the same elements) and b (32), and writes a, b and z
  // (96); kernel 1 reads a and b (64) and writes y (32). Priced as registers, b would be free: 160 B.
  GraphCost c = computeCost(g);
  CHECK(c.kernels == 2);
  CHECK(c.dramBytes == 256);
  CHECK(c.bytesPerLevel["reg"] == 3 * 64);  // ra, rb and rs, each written and read; not b
}

TEST_CASE("sync insertion keeps a device sync whose lowering would leave promoted data in two kernels", "[rewrite]") {
  Graph g = test::parseGirOrStop(kTwoSyncs);
  SyncInsertion rule;
  CHECK(rule.match(g).empty());
  std::vector<std::unique_ptr<RewriteRule>> rules;
  rules.push_back(std::make_unique<SyncInsertion>());
  bool refused = false;
  for (const MatchRefusal& r : matchRefusals(rules, g))
    refused = refused || r.reason == "buffer %b: another device sync would still split the data's users into two kernels, where it stays in device memory";
  CHECK(refused);
  // Without a's exchange both syncs lower (each may go first: the other one lowers after it).
  std::string alone = kTwoSyncs;
  alone.replace(alone.find("%a_r = slice %a offset(-4*u+4)"), 30, "%a_r = slice %a offset(4*u)   ");
  Graph h = test::parseGirOrStop(alone);
  CHECK(rule.match(h).size() == 2);
}
