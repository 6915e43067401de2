// Shared by the cpu test area: one kernel cache in the build tree, -O1 to bound compile time (-O0 for
// instrumented builds, which only count bytes).
#pragma once

#include "codegen/cpu/CpuLauncher.h"
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

}  // namespace gir::test
