// One meaning for max, min and relu (issue #17, point 1): the op table's fmaxf / fminf, where a NaN
// operand gives the other operand. The CPU spells them so that GCC vectorizes (girMax, girMin; std::max
// for a reduction's accumulator, which is never NaN); this checks the compiled kernel against the
// interpreter element for element on inputs with NaNs in the first operand, the second, both, and a
// whole row.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>

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

namespace {

// exp of x - max(x) per row, as softmax computes it, next to the exp of x itself.
constexpr const char* kShiftedExp = R"(gir @shifted_exp target=cpu-host units=4 block=2
level dram device
level local unit capacity=32768
%x = buffer dram f32[4,64] input
%e = buffer dram f32[4,64] output
%plain = buffer dram f32[4,64] output
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
%plain_u = slice %plain offset(64*u) shape[1,64] strides[64,1]
move %x_u -> %xr_u
reduce.max axes[1] %xr_u -> %m_u
broadcast axes[1] %m_u -> %mb_u
ew.sub %xr_u, %mb_u -> %d_u
ew.exp %d_u -> %e_u
ew.exp %xr_u -> %plain_u
)";

float withBits(uint32_t bits) {
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

}  // namespace

TEST_CASE("exp of x - max(x) is girExpNonPositive and gives exp's values on -inf, NaN payloads and underflow", "[cpu][emit][numerics]") {
  auto g = parseGirText(kShiftedExp, "<shifted exp>");
  INFO((g ? "" : g.error().str()));
  REQUIRE(g);
  TensorMap in = randomInputs(*g, 5);
  auto& x = in["x"];
  x[3] = -INFINITY;                 // row 0: masked out
  x[7] = -200.0f;                   // row 0: x - max far below -87.3
  x[9] = x[0] - 87.0f;              // row 0: near the bottom of the normal range
  x[64 + 5] = withBits(0x7fc001ffu);  // row 1: a NaN whose low payload bits would reach the exponent
  x[64 + 9] = withBits(0xffc00001u);  // row 1: a negative one
  x[128 + 2] = INFINITY;            // row 2: the max is +inf: inf - inf is NaN, the rest -inf
  for (int i = 192; i < 256; ++i) x[i] = 1.5f;  // row 3: all equal, exp(0) = 1
  auto want = interpret(*g, in);
  REQUIRE(want);
  auto k = codegen::cpu::CompiledKernel::build(*g, test::cpuTestOptions());
  INFO((k ? "" : k.error().str()));
  REQUIRE(k);
  const std::string& code = k->source().code;
  CHECK(code.find("girExpNonPositive(") != std::string::npos);  // the shifted exp
  CHECK(code.find("= girExp(") != std::string::npos);           // the plain one keeps the overflow select
  auto got = k->run(in);
  REQUIRE(got);
  for (const char* name : {"e", "plain"}) {
    const auto& mine = got->at(name);
    const auto& ref = want->at(name);
    for (size_t i = 0; i < ref.size(); ++i) {
      INFO(name << "[" << i << "]: kernel " << mine[i] << ", interpreter " << ref[i]);
      if (std::isnan(ref[i])) CHECK(std::isnan(mine[i]));
      else if (std::isinf(ref[i])) CHECK(mine[i] == ref[i]);
      else CHECK(std::abs(mine[i] - ref[i]) <= 1e-30f + 2e-7f * std::abs(ref[i]));  // expf's denormals are 0 here
    }
  }
  CHECK(std::isnan(want->at("e")[64 + 5]));
  CHECK(want->at("e")[3] == 0.0f);
  CHECK(want->at("e")[192] == 1.0f);
  CHECK(got->at("e")[192] == 1.0f);
}
