// The GPU side of `gir run` (runOnGpu) and `gir codegen`: on a machine with a GPU the run checks the
// numerics and times; without one it builds the program and says clearly that no GPU is present.
#include <catch2/catch.hpp>

#include <filesystem>

#include "codegen/gpu/GpuToolchain.h"
#include "tests/cli/CliSupport.h"
#include "tests/gpu/GpuTestSupport.h"

using namespace gir;

TEST_CASE("runOnGpu checks against the reference on a GPU or says that there is none", "[gpu][run]") {
  auto c = test::caseFromFile("tests/golden/gir/softmax_block.gir");
  auto t = gpu::gpuTargetByName("nvidia-h100");
  REQUIRE(t);
  if (Status works = gpu::compilerWorks(gpu::GpuApi::Cuda); !works) {
    WARN("skipping runOnGpu: " << works.error().message);
    return;
  }
  gpu::GpuRunOptions opt;
  opt.workDir = test::scratchDir("run");
  opt.repeat = 20;
  auto r = gpu::runOnGpu(c, *t, opt);
  if (!gpu::gpuPresent(gpu::GpuApi::Cuda)) {
    REQUIRE_FALSE(r);
    CHECK(r.error().message.rfind("no GPU", 0) == 0);
    CHECK(std::filesystem::exists(opt.workDir + "/softmax_block"));  // built all the same
    return;
  }
  INFO((r ? r->harnessOutput : r.error().str()));
  REQUIRE(r);
  CHECK(r->ok);
  CHECK(r->maxRelError < 1e-4);
  CHECK(r->medianUs > 0);
  CHECK(r->kernels == 1);
}

TEST_CASE("runFileOnGpu runs every plan of a model or says per plan why it did not run", "[gpu][run]") {
  auto t = gpu::gpuTargetByName("nvidia-h100");
  REQUIRE(t);
  if (Status works = gpu::compilerWorks(gpu::GpuApi::Cuda); !works) {
    WARN("skipping runFileOnGpu: " << works.error().message);
    return;
  }
  gpu::GpuRunOptions opt;
  opt.workDir = test::scratchDir("run-file");
  auto runs = gpu::runFileOnGpu(test::sourcePath("scenarios/silu.onnx"), *t, {"gir"}, opt);  // one plan: each costs an nvcc build
  INFO((runs ? "" : runs.error().str()));
  REQUIRE(runs);
  REQUIRE(runs->size() == 1);
  std::string text = gpu::describeGpuRuns(*runs);
  INFO(text);
  for (const auto& r : *runs) {
    if (gpu::gpuPresent(gpu::GpuApi::Cuda)) {
      REQUIRE(r.result);
      CHECK(r.result->ok);
    } else {
      CHECK_FALSE(r.result);
      CHECK(r.error.rfind("no GPU", 0) == 0);
    }
  }
  CHECK(text.find("silu_gir (gir): ") != std::string::npos);
  auto bad = gpu::runFileOnGpu(test::sourcePath("scenarios/silu.onnx"), *t, {"fastest"}, opt);
  REQUIRE_FALSE(bad);
  CHECK(bad.error().message.find("unknown planner 'fastest'") != std::string::npos);
}

TEST_CASE("gir run --target nvidia-h100 builds, and runs where a GPU is, else says there is none", "[gpu][cli]") {
  if (Status works = gpu::compilerWorks(gpu::GpuApi::Cuda); !works) {
    WARN("skipping gir run on a GPU target: " << works.error().message);
    return;
  }
  std::string dir = test::scratchDir("cli-run");
  int code = 0;
  std::string out = test::runGir("run " + test::sourcePath("tests/golden/gir/relu.gir") + " --target nvidia-h100 --work " + dir, code);
  INFO(out);
  if (gpu::gpuPresent(gpu::GpuApi::Cuda)) {
    CHECK(code == 0);
    CHECK(out.find("relu (file): 1 kernel(s), matches the reference") != std::string::npos);
  } else {
    CHECK(code == 1);
    CHECK(out.find("relu (file): no GPU: ") != std::string::npos);
    CHECK(std::filesystem::exists(dir + "/relu/relu"));  // built all the same
  }
  out = test::runGir("run " + test::sourcePath("tests/golden/gir/relu.gir") + " --target nvidia-h100 --planner fastest", code);
  CHECK(code == 2);
  CHECK(out.find("unknown planner 'fastest'") != std::string::npos);
}

TEST_CASE("gir codegen writes sources and harness and build script and data and a manifest", "[gpu][cli]") {
  std::string dir = test::scratchDir("cli");
  int code = 0;
  std::string out = test::runGir("codegen " + test::sourcePath("scenarios/softmax.onnx") + " --target nvidia-h100 -o " + dir, code);
  INFO(out);
  REQUIRE(code == 0);
  for (const char* c : {"softmax_eager", "softmax_gir"})
    for (const char* f : {".cu", "/harness.cu", "/build.sh", ".gir", "/data/x.in.bin", "/data/y.ref.bin"}) {
      std::string path = dir + "/" + c + "/" + (f[0] == '.' ? std::string(c) + f : std::string(f).substr(1));
      INFO(path);
      CHECK(std::filesystem::exists(path));
    }
  std::string manifest = test::readText(dir + "/manifest.json");
  CHECK(manifest.find("\"name\": \"softmax_gir\", \"planner\": \"gir\"") != std::string::npos);
  CHECK(manifest.find("\"min_bytes\": 524288") != std::string::npos);

  std::string hipDir = test::scratchDir("cli-hip");
  out = test::runGir("codegen " + test::sourcePath("tests/golden/gir/relu.gir") + " --target amd-mi100 -o " + hipDir, code);
  INFO(out);
  CHECK(code == 0);
  CHECK(std::filesystem::exists(hipDir + "/relu/relu.hip"));
  CHECK(test::readText(hipDir + "/relu/build.sh").find("--offload-arch=gfx908") != std::string::npos);
}

TEST_CASE("gir codegen rejects bad input with a message and exit 2", "[gpu][cli]") {
  std::string dir = test::scratchDir("cli-bad");
  struct Bad {
    std::string args, message;
  };
  for (const Bad& b : {Bad{"codegen " + test::sourcePath("tests/golden/gir/relu.gir") + " --target cpu-host -o " + dir, "not a GPU target"},
                       Bad{"codegen /nonexistent.gir --target nvidia-h100 -o " + dir, "/nonexistent.gir"},
                       Bad{"codegen " + test::sourcePath("tests/golden/gir/relu.gir") + " --target nvidia-h100", "usage: gir codegen"},
                       Bad{"codegen " + test::sourcePath("tests/golden/gir/relu.gir") + " --target nvidia-h100 --planner gir -o " + dir, "--planner applies to ONNX"},
                       Bad{"codegen " + test::sourcePath("scenarios/softmax.onnx") + " --target nvidia-h100 --planner fastest -o " + dir, "expects gir, eager, xla, tvm or all"}}) {
    int code = 0;
    std::string out = test::runGir(b.args, code);
    INFO(b.args << "\n" << out);
    CHECK(code == 2);
    CHECK(out.find(b.message) != std::string::npos);
  }
}

TEST_CASE("gir codegen on every malformed GIR and ONNX file of the corpora exits 2 with an error", "[gpu][cli]") {
  std::string dir = test::scratchDir("cli-corpus");
  size_t files = 0;
  for (const char* corpus : {"tests/data/gir-bad", "tests/data/onnx-bad"})
    for (const auto& e : std::filesystem::directory_iterator(test::sourcePath(corpus))) {
      int code = 0;
      std::string out = test::runGir("codegen " + e.path().string() + " --target nvidia-h100 -o " + dir, code);
      INFO(e.path().string() << "\n" << out);
      CHECK(code == 2);
      CHECK(out.find("error: ") != std::string::npos);
      ++files;
    }
  CHECK(files > 50);
}
