// Numerics of the emitted CUDA without a GPU: the kernels and the harness compiled with the host
// compiler against a fiber emulation of the CUDA subset (every thread a fiber; shuffles, __syncwarp and
// __syncthreads are barriers), run on the case's inputs and compared by the harness with the reference
// outputs (the interpreter for GIR files, the computation graph's reference evaluator for models).
#include <catch2/catch.hpp>

#include "tests/gpu/GpuTestSupport.h"

using namespace gir;

TEST_CASE("emitted CUDA kernels compute the reference outputs (CPU emulation)", "[gpu][emulation]") {
  std::vector<gpu::GpuCase> cases;
  for (const char* f : {"tests/golden/gir/relu.gir", "tests/golden/gir/softmax_block.gir", "tests/golden/gir/softmax_device.gir",
                        "tests/golden/gir/two_kernels.gir", "tests/golden/gir/figure6.gir", "tests/golden/gir/shufflenet_source.gir",
                        "tests/gpu/data/mapping.gir", "tests/gpu/data/reg_across.gir", "tests/gpu/data/column_strip.gir"})
    cases.push_back(test::caseFromFile(f));
  gpu::GpuCase partial = test::caseFromFile("tests/golden/gir/relu.gir");  // 1024 units in blocks of 3: the last block is partial
  partial.gir.unitsPerBlock = 3;
  partial.gir.name = partial.name = "relu_block3";
  cases.push_back(partial);
  auto hw = loadHardwareByName("nvidia-h100");
  REQUIRE(hw);
  for (const char* model : {"softmax", "layernorm"}) {
    auto plans = gpu::modelPlans(test::sourcePath(std::string("scenarios/") + model + ".onnx"), *hw, {"eager", "gir"}, 7);
    INFO((plans ? "" : plans.error().str()));
    REQUIRE(plans);
    for (auto& c : *plans) cases.push_back(std::move(c));
  }
  auto results = test::emulate(cases, "emulation");
  REQUIRE(results.size() == cases.size());
  for (const auto& r : results) {
    INFO(r.name << ":\n" << r.output.substr(0, 2000));
    CHECK(r.ok);
  }
}

TEST_CASE("emitted HIP kernels compute the reference outputs with 64-lane wavefronts (CPU emulation)", "[gpu][emulation]") {
  std::vector<gpu::GpuCase> cases;
  for (const char* f : {"tests/golden/gir/softmax_block.gir", "tests/golden/gir/shufflenet_dest.gir", "tests/gpu/data/mapping.gir",
                        "tests/gpu/data/column_strip.gir"})
    cases.push_back(test::caseFromFile(f));
  auto hw = loadHardwareByName("amd-mi100");
  REQUIRE(hw);
  auto plans = gpu::modelPlans(test::sourcePath("scenarios/rmsnorm.onnx"), *hw, {"gir"}, 7);
  REQUIRE(plans);
  cases.push_back(std::move(plans->front()));
  auto results = test::emulate(cases, "emulation-hip", "amd-mi100");
  REQUIRE(results.size() == cases.size());
  for (const auto& r : results) {
    INFO(r.name << ":\n" << r.output.substr(0, 2000));
    CHECK(r.ok);
  }
}

TEST_CASE("the emulation catches a missing barrier", "[gpu][emulation]") {
  // The same softmax with its __syncthreads removed from the emitted source: lanes of other warps
  // read shared memory before it is written, and the harness reports the mismatch.
  auto c = test::caseFromFile("tests/golden/gir/softmax_block.gir");
  gpu::GpuProgram p = test::programFor(c.gir, "nvidia-h100");
  std::string dir = test::scratchDir("emulation-race") + "/" + p.name;
  REQUIRE(gpu::writeGpuProgram(p, c, dir));
  std::string src = test::emulationSource(p.kernelSource);
  for (size_t pos; (pos = src.find("__syncthreads();")) != std::string::npos;) src.replace(pos, 16, "");
  test::writeText(dir + "/" + p.kernelFile(), src);
  std::string out;
  int code = test::runCommand("cd '" + dir + "' && c++ -x c++ -std=c++17 -O1 -w -I" + test::sourcePath("tests/gpu/emu") +
                                  " harness.cu -o emu && ./emu data --warmup 0 --repeat 1",
                              out);
  INFO(out);
  CHECK(code == 1);
  CHECK(out.find("\"ok\": false") != std::string::npos);
}
