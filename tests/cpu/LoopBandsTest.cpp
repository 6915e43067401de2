// Which loop groups of a stage share their outer loops (codegen/schedule/LoopBands.h): a band forms
// only when every buffer two members exchange is cut into the same cell per outer iteration, and
// the emitted kernel computes what the interpreter computes either way.
#include <catch2/catch.hpp>

#include <string>

#include "codegen/cpu/CpuCheck.h"
#include "codegen/schedule/LoopBands.h"
#include "tests/cpu/CpuTestSupport.h"
#include "tests/cpu/FusedStage.h"

using namespace gir;
using namespace gir::codegen;

namespace {

// Two rows of 128 per unit: each row minus its sum. Groups {move, sum} and {broadcast, sub, move}.
constexpr const char* kRowMinusSum = R"(gir @row_minus_sum target=cpu-host units=4 block=1
level dram device
level local unit capacity=32768
%x = buffer dram f32[1024] input
%y = buffer dram f32[1024] output
%a = buffer local f32[1024]
%r = buffer local f32[8]
%rb = buffer local f32[1024]
%o = buffer local f32[1024]
%x_u = slice %x offset(256*u) shape[2,128] strides[128,1]
%a_u = slice %a offset(256*u) shape[2,128] strides[128,1]
%r_u = slice %r offset(2*u) shape[2,1] strides[1,1]
%r_read = slice %r offset(2*u) shape[2,1] strides[1,1]
%rb_u = slice %rb offset(256*u) shape[2,128] strides[128,1]
%o_u = slice %o offset(256*u) shape[2,128] strides[128,1]
%y_u = slice %y offset(256*u) shape[2,128] strides[128,1]
move %x_u -> %a_u
reduce.sum axes[1] %a_u -> %r_u
broadcast axes[1] %r_read -> %rb_u
ew.sub %a_u, %rb_u -> %o_u
move %o_u -> %y_u
)";

struct Banded {
  test::Fused fused;
  std::vector<LoopBand> bands;
  const Graph& g() const { return fused.g; }
  const std::vector<LoopGroup>& groups() const { return fused.groups; }
};

Banded band(const std::string& text, int64_t minInner = kBandMinInnerIterations) {
  test::Fused f = test::fuse(text);
  auto bands = bandGroups(f.g, f.groups, minInner);
  return {std::move(f), std::move(bands)};
}

void matchesInterpreter(const Graph& g) {
  auto k = codegen::cpu::CompiledKernel::build(g, test::cpuTestOptions());
  REQUIRE(k);
  for (uint64_t seed : {1, 2}) {
    auto check = codegen::cpu::checkAgainstInterpreter(g, *k, seed);
    REQUIRE(check);
    CHECK(check->close);
  }
}

}  // namespace

TEST_CASE("bands: a row's sum and the row minus it share the row loop", "[cpu][fusion][band]") {
  Banded b = band(kRowMinusSum);
  REQUIRE(b.groups().size() == 2);
  REQUIRE(b.bands.size() == 1);
  CHECK(b.bands[0].groups == std::vector<size_t>{0, 1});
  CHECK(b.bands[0].depth == 1);
  matchesInterpreter(b.g());
}

TEST_CASE("bands: a read of another row's sum keeps the groups apart", "[cpu][fusion][band]") {
  // Rows read the sums in reverse: row 0 would read the sum of row 1 before the band wrote it.
  Banded b = band(test::replaced(kRowMinusSum, "%r_read = slice %r offset(2*u) shape[2,1] strides[1,1]",
                           "%r_read = slice %r offset(2*u+1) shape[2,1] strides[-1,1]"));
  REQUIRE(b.groups().size() == 2);
  REQUIRE(b.bands.size() == 2);
  CHECK(b.bands[0].depth == 0);
  CHECK(b.bands[1].depth == 0);
  matchesInterpreter(b.g());
}

TEST_CASE("bands: a read that spans past its row's cell keeps the groups apart", "[cpu][fusion][band]") {
  // The subtraction reads %a from element 64 with rows 64 apart: row 0 reaches into row 1, which the
  // first group has not written when the band would run row 0.
  std::string text = test::replaced(kRowMinusSum, "ew.sub %a_u, %rb_u", "ew.sub %a_shift, %rb_u");
  text = test::replaced(text, "%y_u = slice", "%a_shift = slice %a offset(256*u+64) shape[2,128] strides[64,1]\n%y_u = slice");
  Banded b = band(text);
  REQUIRE(b.bands.size() == b.groups().size());
  for (const LoopBand& lb : b.bands) CHECK(lb.depth == 0);
}

TEST_CASE("bands: members keep at least the minimum of iterations inside the shared loops", "[cpu][fusion][band]") {
  CHECK(band(kRowMinusSum, 128).bands.size() == 1);
  Banded b = band(kRowMinusSum, 129);  // 128 per row: below the minimum, no band
  CHECK(b.bands.size() == 2);
}
