// Where a per-unit buffer lives when it need not be an array (codegen/schedule/BufferHomes.h): a copy's
// source, or the output its last readers write. Each case checks the analysis, then that the emitted
// kernel computes what the interpreter computes and moves the modelled DRAM bytes.
#include <catch2/catch.hpp>

#include <string>

#include "codegen/cpu/CpuCheck.h"
#include "codegen/cpu/CpuEmitter.h"
#include "codegen/cpu/CpuModel.h"
#include "codegen/schedule/BufferHomes.h"
#include "core/gir/Interpreter.h"
#include "core/hw/HardwareDesc.h"
#include "tests/cpu/CpuTestSupport.h"
#include "tests/cpu/FusedStage.h"

using namespace gir;
using namespace gir::codegen;

namespace {

// Softmax over 2 rows of 128 per unit, as the search lowers it: %a copies x, %e holds the exponentials
// that the sum and the divide both read. Groups {move, max}, {broadcast, sub, exp, sum}, {broadcast,
// div, move}.
constexpr const char* kSoftmax = R"(gir @softmax_homes target=cpu-host units=4 block=1
level dram device
level local unit capacity=32768
%x = buffer dram f32[1024] input
%y = buffer dram f32[1024] output
%a = buffer local f32[1024]
%m = buffer local f32[8]
%mb = buffer local f32[1024]
%d = buffer local f32[1024]
%e = buffer local f32[1024]
%s = buffer local f32[8]
%sb = buffer local f32[1024]
%o = buffer local f32[1024]
%x_u = slice %x offset(256*u) shape[2,128] strides[128,1]
%a_u = slice %a offset(256*u) shape[2,128] strides[128,1]
%m_u = slice %m offset(2*u) shape[2,1] strides[1,1]
%mb_u = slice %mb offset(256*u) shape[2,128] strides[128,1]
%d_u = slice %d offset(256*u) shape[2,128] strides[128,1]
%e_u = slice %e offset(256*u) shape[2,128] strides[128,1]
%s_u = slice %s offset(2*u) shape[2,1] strides[1,1]
%sb_u = slice %sb offset(256*u) shape[2,128] strides[128,1]
%o_u = slice %o offset(256*u) shape[2,128] strides[128,1]
%y_u = slice %y offset(256*u) shape[2,128] strides[128,1]
move %x_u -> %a_u
reduce.max axes[1] %a_u -> %m_u
broadcast axes[1] %m_u -> %mb_u
ew.sub %a_u, %mb_u -> %d_u
ew.exp %d_u -> %e_u
reduce.sum axes[1] %e_u -> %s_u
broadcast axes[1] %s_u -> %sb_u
ew.div %e_u, %sb_u -> %o_u
move %o_u -> %y_u
)";

struct Homed {
  test::Fused fused;
  std::vector<BufferHome> homes;
  const BufferHome& of(const std::string& name) const {
    for (uint32_t b = 0; b < fused.g.buffers().size(); ++b)
      if (fused.g.buffers()[b].name == name) return homes[b];
    FAIL("no buffer %" << name);
    return homes[0];
  }
  std::string sliceBuffer(const BufferHome& h) const { return fused.g.buffer(fused.g.slice(h.slice).buffer).name; }
};

Homed homesOf(const std::string& text) {
  test::Fused f = test::fuse(text);
  std::vector<LoopBand> bands = bandGroups(f.g, f.groups);
  std::vector<bool> values = valueBuffers(f.g, f.schedule, f.groups);
  std::vector<BufferHome> homes = bufferHomes(f.g, f.schedule, f.groups, bands, values, {}, codegen::cpu::kStackArrayLimit);
  return {std::move(f), std::move(homes)};
}

// The kernel matches the interpreter (the graph is valid) and its instrumented build counts the modelled
// DRAM bytes: a dropped copy still counts the reads it stands for.
void runsAsModelled(const Graph& g) {
  test::requireKernelMatches(g);
  test::requireCountsModelledBytes(g);
}

}  // namespace

TEST_CASE("buffer homes: softmax's copy of x is x, and its exponentials live in y", "[cpu][homes]") {
  Homed h = homesOf(kSoftmax);
  REQUIRE(h.of("a").kind == HomeKind::CopySource);
  CHECK(h.sliceBuffer(h.of("a")) == "x");
  REQUIRE(h.of("e").kind == HomeKind::Output);
  CHECK(h.sliceBuffer(h.of("e")) == "y");
  for (const char* value : {"m", "mb", "d", "s", "sb", "o"}) CHECK(h.of(value).kind == HomeKind::Own);
  auto src = codegen::cpu::emitCpu(h.fused.g);
  REQUIRE(src);
  CHECK(test::countOf(src->code, "float* const a = x + (256*u);") == 1);
  CHECK(test::countOf(src->code, "float* const e = y + (256*u);") == 1);
  CHECK(test::countOf(src->code, "alignas(64) float a[") == 0);
  runsAsModelled(h.fused.g);
}

TEST_CASE("buffer homes: an output that another node reads holds nothing else", "[cpu][homes]") {
  // A second output z reads y back: y's elements must be the softmax when z reads them.
  std::string text = test::replaced(test::replaced(kSoftmax, "%a = buffer", "%z = buffer dram f32[1024] output\n%a = buffer"),
                              "move %o_u -> %y_u\n",
                              "move %o_u -> %y_u\n%y_r = slice %y offset(256*u) shape[2,128] strides[128,1]\n"
                              "%z_u = slice %z offset(256*u) shape[2,128] strides[128,1]\nmove %y_r -> %z_u\n");
  Homed h = homesOf(text);
  // z, written last and read by nothing, may hold them.
  REQUIRE(h.of("e").kind == HomeKind::Output);
  CHECK(h.sliceBuffer(h.of("e")) == "z");
  CHECK(h.of("a").kind == HomeKind::CopySource);
  runsAsModelled(h.fused.g);
}

TEST_CASE("buffer homes: one output holds at most one buffer", "[cpu][homes]") {
  // The divide also reads d (x minus its max), element for element: both d and e could live in y, and
  // only the first may.
  std::string text = test::replaced(kSoftmax, "ew.div %e_u, %sb_u -> %o_u", "ew.div %e_u, %sb_u -> %q_u\new.add %q_u, %d_u -> %o_u");
  text = test::replaced(text, "%o = buffer", "%q = buffer local f32[1024]\n%o = buffer");
  text = test::replaced(text, "%o_u = slice", "%q_u = slice %q offset(256*u) shape[2,128] strides[128,1]\n%o_u = slice");
  Homed h = homesOf(text);
  int inY = 0;
  for (const char* name : {"d", "e"})
    if (h.of(name).kind == HomeKind::Output) ++inY;
  CHECK(inY == 1);
  runsAsModelled(h.fused.g);
}

TEST_CASE("buffer homes: a copy of what this kernel writes stays a copy", "[cpu][homes]") {
  // x is first negated into a DRAM temporary of the same kernel; the copy of that temporary keeps its
  // array: aliasing it would read memory that the kernel's own nodes write.
  std::string text = test::replaced(kSoftmax, "%a = buffer", "%t = buffer dram f32[1024]\n%a = buffer");
  text = test::replaced(text, "%a_u = slice", "%t_u = slice %t offset(256*u) shape[2,128] strides[128,1]\n%a_u = slice");
  text = test::replaced(text, "move %x_u -> %a_u", "ew.neg %x_u -> %t_u\nmove %t_u -> %a_u");
  Homed h = homesOf(text);
  CHECK(h.of("a").kind == HomeKind::Own);
  CHECK(h.of("e").kind == HomeKind::Output);
  runsAsModelled(h.fused.g);
}

TEST_CASE("buffer homes: a buffer the last group reads in another order stays an array", "[cpu][homes]") {
  // The divide reads e's rows swapped (row 1 for row 0): writing y's row 0 would overwrite e's row 0
  // before row 1 of y reads it.
  std::string text = test::replaced(kSoftmax, "ew.div %e_u, %sb_u -> %o_u", "ew.div %e_sw, %sb_u -> %o_u");
  text = test::replaced(text, "%s_u = slice", "%e_sw = slice %e offset(256*u+128) shape[2,128] strides[-128,1]\n%s_u = slice");
  Homed h = homesOf(text);
  CHECK(h.of("e").kind == HomeKind::Own);
  runsAsModelled(h.fused.g);
}
