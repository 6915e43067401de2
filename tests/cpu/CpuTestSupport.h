// Shared by the cpu test area: one kernel cache in the build tree, -O1 to bound compile time (-O0 for
// instrumented builds, which only count bytes).
#pragma once

#include <catch2/catch.hpp>

#include "codegen/cpu/CpuCheck.h"
#include "codegen/cpu/CpuLauncher.h"
#include "codegen/cpu/CpuModel.h"
#include "codegen/schedule/Schedule.h"
#include "core/gir/Validity.h"
#include "core/hw/HardwareDesc.h"
#include "tests/support/GirText.h"
#include "tests/support/TestSupport.h"

namespace gir::test {

inline codegen::cpu::LaunchOptions cpuTestOptions(bool instrument = false) {
  codegen::cpu::LaunchOptions o;
  o.compile.cacheDir = binaryPath("tests/cpu-kernel-cache");
  o.compile.optLevel = instrument ? "-O0" : "-O1";
  o.emit.instrument = instrument;
  o.threads = 2;
  return o;
}

// The schedule's plan of the buffer named `name`.
inline const codegen::BufferPlan& planOf(const Graph& g, const codegen::Schedule& s, const std::string& name) {
  auto b = g.findBuffer(name);
  REQUIRE(b);
  return s.buffers[b->value];
}

// A valid graph whose compiled kernel matches the interpreter on every seed: the kernel's source.
inline std::string requireKernelMatches(const Graph& g, std::initializer_list<uint64_t> seeds = {1, 2}) {
  ValidityReport v = checkValidity(g, randomInputs(g, 1));
  INFO(v.str());
  REQUIRE(v.valid());
  auto k = codegen::cpu::CompiledKernel::build(g, cpuTestOptions());
  INFO((k ? "" : k.error().str()));
  REQUIRE(k);
  for (uint64_t seed : seeds) {
    auto check = codegen::cpu::checkAgainstInterpreter(g, *k, seed);
    REQUIRE(check);
    INFO(check->firstMismatch);
    CHECK(check->close);
  }
  return k->source().code;
}

// The graph's instrumented build moves exactly the DRAM bytes the cost model counts on cpu-host.
inline void requireCountsModelledBytes(const Graph& g) {
  auto hw = loadHardwareByName("cpu-host");
  REQUIRE(hw);
  auto counting = codegen::cpu::CompiledKernel::build(g, cpuTestOptions(/*instrument=*/true));
  REQUIRE(counting);
  auto counted = counting->countBytes(randomInputs(g, 1));
  REQUIRE(counted);
  CHECK(*counted == codegen::cpu::modelCpu(g, *hw).dramBytes);
}

}  // namespace gir::test
