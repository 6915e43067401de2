// Every valid GIR golden (tests/golden/gir) compiled for the CPU matches the interpreter; the emitted
// code has the promised shape (parallel loop over blocks, omp simd on inner loops, one comment per node).
#include <catch2/catch.hpp>

#include <filesystem>

#include "codegen/cpu/CpuCheck.h"
#include "core/gir/Parser.h"
#include "core/gir/Validity.h"
#include "tests/cpu/CpuTestSupport.h"

using namespace gir;
using gir::test::countOf;
using namespace gir::codegen::cpu;

TEST_CASE("every valid GIR golden runs on the CPU and matches the interpreter", "[cpu][golden]") {
  int valid = 0, invalid = 0;
  for (const auto& entry : std::filesystem::directory_iterator(test::sourcePath("tests/golden/gir"))) {
    if (entry.path().extension() != ".gir") continue;
    INFO(entry.path().string());
    auto g = parseGirText(test::readText(entry.path().string()), entry.path().string());
    REQUIRE(g);
    if (!checkValidity(*g, randomInputs(*g, 3)).valid()) {
      ++invalid;  // softmax_race and friends: the checker's negative examples, not programs to run
      continue;
    }
    ++valid;
    auto k = CompiledKernel::build(*g, test::cpuTestOptions());
    INFO((k ? "" : k.error().str()));
    REQUIRE(k);
    for (uint64_t seed : {1, 2}) {
      auto check = checkAgainstInterpreter(*g, *k, seed);
      REQUIRE(check);
      INFO(check->firstMismatch);
      CHECK(check->close);
    }
    const std::string& code = k->source().code;
    CHECK(countOf(code, "#pragma omp for schedule(static)") == static_cast<size_t>(kernelCount(*g)));
    CHECK(countOf(code, "#pragma omp simd") >= 1);
    size_t nodes = 0;
    for (const Node& n : g->nodes()) nodes += !n.erased && !n.isSync();
    CHECK(countOf(code, "// node ") == nodes);
  }
  CHECK(valid >= 6);
  CHECK(invalid >= 1);
}
