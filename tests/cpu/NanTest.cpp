// One meaning for max, min and relu (issue #17, point 1): the op table's fmaxf / fminf, where a NaN
// operand gives the other operand. The CPU spells them so that GCC vectorizes (girMax, girMin; std::max
// for a reduction's accumulator, which is never NaN); this checks the compiled kernel against the
// interpreter element for element on inputs with NaNs in the first operand, the second, both, and a
// whole row.
#include <catch2/catch.hpp>

#include <cmath>

#include "codegen/cpu/CpuLauncher.h"
#include "core/gir/Interpreter.h"
#include "core/gir/Parser.h"
#include "tests/cpu/CpuTestSupport.h"

using namespace gir;

namespace {

constexpr const char* kNanOps = R"(gir @nan_ops target=cpu-host units=4 block=2
level dram device
level local unit capacity=32768
%x = buffer dram f32[4,64] input
%y = buffer dram f32[4,64] input
%mx = buffer dram f32[4,64] output
%mn = buffer dram f32[4,64] output
%rl = buffer dram f32[4,64] output
%rmax = buffer dram f32[4] output
%rmin = buffer dram f32[4] output
%xr = buffer local f32[256]
%yr = buffer local f32[256]
%x_u = slice %x offset(64*u) shape[64] strides[1]
%y_u = slice %y offset(64*u) shape[64] strides[1]
%xr_u = slice %xr offset(64*u) shape[64] strides[1]
%yr_u = slice %yr offset(64*u) shape[64] strides[1]
%mx_u = slice %mx offset(64*u) shape[64] strides[1]
%mn_u = slice %mn offset(64*u) shape[64] strides[1]
%rl_u = slice %rl offset(64*u) shape[64] strides[1]
%rmax_u = slice %rmax offset(u) shape[1] strides[1]
%rmin_u = slice %rmin offset(u) shape[1] strides[1]
%xr_row = slice %xr offset(64*u) shape[64] strides[1]
move %x_u -> %xr_u
move %y_u -> %yr_u
ew.max %xr_u, %yr_u -> %mx_u
ew.min %xr_u, %yr_u -> %mn_u
ew.relu %xr_u -> %rl_u
reduce.max axes[0] %xr_row -> %rmax_u
reduce.min axes[0] %xr_row -> %rmin_u
)";

bool sameFloat(float a, float b) { return (std::isnan(a) && std::isnan(b)) || a == b; }

}  // namespace

TEST_CASE("max, min and relu give the interpreter's result on NaN operands", "[cpu][emit][numerics]") {
  auto g = parseGirText(kNanOps, "<nan>");
  INFO((g ? "" : g.error().str()));
  REQUIRE(g);
  TensorMap in = randomInputs(*g, 3);
  const float nan = std::nanf("");
  auto& x = in["x"];
  auto& y = in["y"];
  for (int i = 0; i < 64; i += 5) x[i] = nan;          // row 0: NaN first operands
  for (int i = 64; i < 128; i += 3) y[i] = nan;        // row 1: NaN second operands
  for (int i = 128; i < 192; i += 7) x[i] = y[i] = nan;  // row 2: both
  for (int i = 192; i < 256; ++i) x[i] = nan;          // row 3: a whole row of NaN first operands
  auto want = interpret(*g, in);
  REQUIRE(want);
  auto k = codegen::cpu::CompiledKernel::build(*g, test::cpuTestOptions());
  INFO((k ? "" : k.error().str()));
  REQUIRE(k);
  CHECK(k->source().code.find("girMax(") != std::string::npos);
  auto got = k->run(in);
  REQUIRE(got);
  int nans = 0;
  for (const auto& [name, values] : *want) {
    REQUIRE(got->count(name));
    const auto& mine = got->at(name);
    REQUIRE(mine.size() == values.size());
    for (size_t i = 0; i < values.size(); ++i) {
      INFO(name << "[" << i << "]: kernel " << mine[i] << ", interpreter " << values[i]);
      CHECK(sameFloat(mine[i], values[i]));
      nans += std::isnan(values[i]) ? 1 : 0;
    }
  }
  // fmax ignores one NaN: only elements where both operands are NaN stay NaN (row 2's max and min).
  CHECK(nans == 2 * 10);
  // A row of NaNs reduces to the identity: fmax(-inf, NaN) is -inf.
  CHECK(want->at("rmax")[3] == -INFINITY);
  CHECK(want->at("rmin")[3] == INFINITY);
}
