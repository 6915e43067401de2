// codegen::generatedKernelSources, the Measure tab's source view: the emitted file cut per kernel,
// for the CPU (C++/OpenMP) and a GPU target (CUDA), each kernel with its GIR node comments and no
// other kernel's code.
#include <catch2/catch.hpp>

#include "codegen/KernelSource.h"
#include "core/gir/Parser.h"
#include "tests/support/TestSupport.h"

using namespace gir;

namespace {

Graph golden(const std::string& relative) {
  auto g = parseGirText(test::readText(test::sourcePath(relative)), relative);
  REQUIRE(g);
  return *g;
}

}  // namespace

TEST_CASE("generated source per kernel on the CPU: one function each, with its GIR node comments", "[cpu][source]") {
  Graph g = golden("tests/golden/gir/figure6.gir");
  auto hw = loadHardwareByName("cpu-host");
  REQUIRE(hw);
  auto s = codegen::generatedKernelSources(g, *hw);
  REQUIRE(s);
  CHECK(s->language == "C++/OpenMP");
  REQUIRE(s->kernels.size() == 3);
  size_t last = 0;
  for (int k = 0; k < 3; ++k) {
    const std::string& text = s->kernels[k];
    INFO("kernel " << k << ":\n" << text);
    CHECK(text.rfind("// kernel " + std::to_string(k) + ": ", 0) == 0);  // starts at its comment
    CHECK(text.find("void kernel" + std::to_string(k) + "(float* const* g) {") != std::string::npos);
    CHECK(text.find("// node ") != std::string::npos);
    for (int other = 0; other < 3; ++other)
      if (other != k) CHECK(text.find("void kernel" + std::to_string(other) + "(") == std::string::npos);
    CHECK(text.substr(text.size() - 3) == "\n}\n");
    size_t at = s->whole.find(text);  // a verbatim cut, in file order
    REQUIRE(at != std::string::npos);
    CHECK(at >= last);
    last = at + text.size();
  }
  // figure6's kernels: two moves; an exp and a move; a neg and a move.
  CHECK(s->kernels[1].find("// node 3: ew.exp") != std::string::npos);
  CHECK(s->kernels[2].find("// node 6: ew.neg") != std::string::npos);
}

TEST_CASE("generated source per kernel on a GPU target is the CUDA kernel the golden file holds", "[cpu][source]") {
  Graph g = golden("tests/golden/gir/relu.gir");
  auto hw = loadHardwareByName("nvidia-h100");
  REQUIRE(hw);
  auto s = codegen::generatedKernelSources(g, *hw);
  REQUIRE(s);
  CHECK(s->language == "CUDA");
  REQUIRE(s->kernels.size() == 1);
  CHECK(s->kernels[0].rfind("__global__ void __launch_bounds__(128) relu_k0(", 0) == 0);
  CHECK(test::readText(test::sourcePath("tests/golden/gpu/relu.cu")).find(s->kernels[0]) != std::string::npos);
  CHECK(s->kernels[0].find("// move %s0 -> %s1") != std::string::npos);
  auto amd = codegen::generatedKernelSources(g, *loadHardwareByName("amd-mi100"));
  REQUIRE(amd);
  CHECK(amd->language == "HIP");
}

TEST_CASE("functionText: the definition, not a call or a longer name", "[cpu][source]") {
  std::string code = "// helper\nint f2(int x) {\n  return x;\n}\n// the one\n// two lines\nint f(int x) {\n  return f2(x);\n}\nint g() {\n  return f(1);\n}\n";
  CHECK(codegen::functionText(code, "f") == "// the one\n// two lines\nint f(int x) {\n  return f2(x);\n}\n");
  CHECK(codegen::functionText(code, "g") == "int g() {\n  return f(1);\n}\n");
  CHECK(codegen::functionText(code, "h").empty());
}

TEST_CASE("an Ascend target has no source view here, and says where its kernel is", "[cpu][source]") {
  Graph g = golden("tests/golden/gir/relu.gir");
  auto hw = loadHardwareByName("ascend910b");
  REQUIRE(hw);
  auto s = codegen::generatedKernelSources(g, *hw);
  REQUIRE_FALSE(s);
  CHECK_THAT(s.error().message, Catch::Contains("Ascend tab"));
}
