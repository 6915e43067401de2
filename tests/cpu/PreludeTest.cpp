// The prelude's helpers, compiled as the kernels are (-O3, -march=native) and checked against the
// order of operations they promise (docs/cpu.md, "Reductions").
#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <random>
#include <string>

#include "codegen/cpu/CpuCompiler.h"
#include "codegen/cpu/CpuPrelude.h"
#include "CpuTestSupport.h"

using namespace gir::codegen::cpu;

namespace {

// Lane i with i + 8, then i + 4, i + 2 and i + 1: the pairs girLaneSum adds, in the order it adds them.
template <typename T>
T pairwiseLaneSum(const T* lanes) {
  T work[16];
  std::memcpy(work, lanes, sizeof work);
  for (int half = 8; half > 0; half /= 2)
    for (int lane = 0; lane < half; ++lane) work[lane] += work[lane + half];
  return work[0];
}

// Values of mixed signs and magnitudes over 60 binades, so that a different order rounds differently.
template <typename T>
void fillLanes(std::mt19937& rng, T* lanes) {
  std::uniform_real_distribution<T> mantissa(-1, 1);
  std::uniform_int_distribution<int> exponent(-30, 30);
  for (int lane = 0; lane < 16; ++lane) lanes[lane] = std::ldexp(mantissa(rng), exponent(rng));
}

}  // namespace

TEST_CASE("girLaneSum adds the pairs it promises, bit for bit, on random lanes", "[cpu][prelude]") {
  std::string source(cpuPrelude());
  source +=
      "extern \"C\" float gir_test_lane_sum_f(float* lanes) { return girLaneSum(lanes); }\n"
      "extern \"C\" double gir_test_lane_sum_d(double* lanes) { return girLaneSum(lanes); }\n";
  CompileOptions options = gir::test::cpuTestOptions().compile;
  options.optLevel = "-O3";  // the kernels' level: the vector path is the one under test
  auto object = compileSource(source, options);
  REQUIRE(object);
  auto library = loadLibrary(object->objectPath);
  REQUIRE(library);
  auto sumFloats = reinterpret_cast<float (*)(float*)>(library->symbol("gir_test_lane_sum_f"));
  auto sumDoubles = reinterpret_cast<double (*)(double*)>(library->symbol("gir_test_lane_sum_d"));
  REQUIRE(sumFloats);
  REQUIRE(sumDoubles);

  std::mt19937 rng(20261129);
  int differentFromSequential = 0;
  for (int trial = 0; trial < 2000; ++trial) {
    alignas(64) float floats[16];
    alignas(64) double doubles[16];
    fillLanes(rng, floats);
    fillLanes(rng, doubles);
    float expectedFloat = pairwiseLaneSum(floats);
    double expectedDouble = pairwiseLaneSum(doubles);
    float sequential = 0;
    for (float lane : floats) sequential += lane;
    differentFromSequential += sequential != expectedFloat;
    float gotFloat = sumFloats(floats);
    double gotDouble = sumDoubles(doubles);
    INFO("trial " << trial);
    REQUIRE(std::memcmp(&gotFloat, &expectedFloat, sizeof gotFloat) == 0);
    REQUIRE(std::memcmp(&gotDouble, &expectedDouble, sizeof gotDouble) == 0);
  }
  // The inputs do tell orders apart: a left-to-right sum disagrees with the pairwise one on about half.
  CHECK(differentFromSequential > 500);
}
