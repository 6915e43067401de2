// Golden files of the emitted CUDA and HIP source for two small graphs (tests/golden/gpu): ReLU (one
// kernel, element-wise) and the block softmax (shared memory, two block syncs, warp reductions).
// GIR_BLESS=1 rewrites them; the emulation test checks that the same source computes the right values.
#include <catch2/catch.hpp>

#include "codegen/gpu/GpuExpr.h"
#include "core/gir/ScalarOps.h"
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

// One meaning per op: CUDA and HIP render every operator, reduction combine and identity exactly as
// the op table in core/gir/ScalarOps.h does (no GPU-side copy of the switch).
TEST_CASE("the GPU emitter renders the op table verbatim", "[gpu]") {
  const std::string args[3] = {"a", "b", "c"};
  for (int k = 0; k <= static_cast<int>(gir::ElementwiseOp::Select); ++k) {
    auto op = static_cast<gir::ElementwiseOp>(k);
    std::vector<std::string> v(args, args + gir::elementwiseArity(op));
    CHECK(gir::gpu::elementwiseExpr(op, args) == gir::renderElementwise(op, v));
  }
  for (int k = 0; k <= static_cast<int>(gir::ReduceOp::Prod); ++k) {
    auto op = static_cast<gir::ReduceOp>(k);
    CHECK(gir::gpu::reduceCombineExpr(op, "acc", "x") == gir::renderPattern(gir::reduceCombineRendering(op), {"acc", "x"}));
    CHECK(gir::gpu::reduceIdentityLiteral(op) == std::string(gir::reduceIdentityRendering(op)));
  }
}
