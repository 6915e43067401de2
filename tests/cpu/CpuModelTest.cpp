// The CPU cost model's compute term (codegen/cpu/CpuModel.h): transcendentals at the rate the
// calibration measures, else at 24 flops each at peak_gflops; traffic priced the same either way.
#include <catch2/catch.hpp>

#include "codegen/cpu/CpuModel.h"
#include "core/gir/Parser.h"
#include "core/hw/HardwareDesc.h"
#include "tests/support/TestSupport.h"

using namespace gir;

TEST_CASE("the model prices transcendentals at the calibrated rate, else at 24 flops each", "[cpu][model]") {
  // GELU's plan: one erf per element of a 64 x 768 graph.
  auto g = parseGirText(test::readText(test::sourcePath("tests/golden/cpu/gelu_fused.gir")), "gelu_fused.gir");
  REQUIRE(g);
  auto hw = loadHardwareByName("cpu-host");
  REQUIRE(hw);
  auto uncalibrated = codegen::cpu::modelCpu(*g, *hw);
  REQUIRE(uncalibrated.kernels.size() == 1);
  const codegen::cpu::KernelModel& k = uncalibrated.kernels[0];
  REQUIRE(k.transcendentals > 0);
  CHECK(k.computeUs == Approx((24.0 * static_cast<double>(k.transcendentals) + static_cast<double>(k.flops)) / (hw->peakGflops * 1e3)));
  hw->transcendentalGelems = 2.0;
  auto calibrated = codegen::cpu::modelCpu(*g, *hw);
  const codegen::cpu::KernelModel& c = calibrated.kernels[0];
  CHECK(c.computeUs == Approx(static_cast<double>(k.transcendentals) / 2e3 + static_cast<double>(k.flops) / (hw->peakGflops * 1e3)));
  CHECK(c.modelledUs - c.computeUs == Approx(k.modelledUs - k.computeUs));  // the traffic is priced alike
}
