// Golden files of the emitted CUDA and HIP source for two small graphs (tests/golden/gpu): ReLU (one
// kernel, element-wise) and the block softmax (shared memory, two block syncs, warp reductions).
// GIR_BLESS=1 rewrites them; the emulation test checks that the same source computes the right values.
#include <catch2/catch.hpp>

#include "tests/gpu/GpuTestSupport.h"

using namespace gir;

TEST_CASE("emitted CUDA and HIP source match the golden files", "[gpu][golden]") {
  for (const char* name : {"relu", "softmax_block"}) {
    auto c = test::caseFromFile(std::string("tests/golden/gir/") + name + ".gir");
    for (const char* target : {"nvidia-h100", "amd-mi100"}) {
      auto p = test::programFor(c.gir, target);
      std::string golden = test::sourcePath("tests/golden/gpu/" + p.kernelFile());
      INFO(golden);
      if (test::blessMode()) test::writeText(golden, p.kernelSource);
      CHECK(p.kernelSource == test::readText(golden));
    }
  }
}
