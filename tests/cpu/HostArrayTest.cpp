// Host arrays: large ones sit on huge-page boundaries and carry the huge-page advice (docs/cpu.md "Huge pages").
#include <catch2/catch.hpp>

#include <cstdint>
#include <fstream>
#include <sstream>
#include <string>

#include "codegen/cpu/HostArray.h"

using namespace gir::codegen::cpu;

namespace {

// The VmFlags of the mapping of /proc/self/smaps that holds `p` ("" when none does).
std::string vmFlagsAt(const void* p) {
  std::ifstream smaps("/proc/self/smaps");
  auto at = reinterpret_cast<uintptr_t>(p);
  bool inside = false;
  for (std::string line; std::getline(smaps, line);) {
    uintptr_t lo = 0, hi = 0;
    char dash = 0;
    std::istringstream head(line);
    if (head >> std::hex >> lo >> dash >> hi && dash == '-') {
      inside = lo <= at && at < hi;
      continue;
    }
    if (inside && line.rfind("VmFlags:", 0) == 0) return line;
  }
  return "";
}

}  // namespace

TEST_CASE("a small host array is 64-byte aligned and writable", "[cpu][host-array]") {
  for (int64_t n : {0, 1, 17, 1000}) {
    auto a = allocateHostArray(n);
    REQUIRE(a);
    REQUIRE(reinterpret_cast<uintptr_t>(a->get()) % 64 == 0);
    for (int64_t i = 0; i < n; ++i) a->get()[i] = static_cast<float>(i);
    if (n > 0) REQUIRE(a->get()[n - 1] == static_cast<float>(n - 1));
  }
}

TEST_CASE("an array of a huge page or more is aligned to it and advised onto huge pages", "[cpu][host-array]") {
  int64_t page = transparentHugePageBytes();
  if (page == 0) {
    WARN("this kernel offers no transparent huge pages: nothing to check");
    return;
  }
  // Odd sizes too: the allocation is rounded up to whole huge pages.
  for (int64_t n : {page / 4, page / 4 * 3 + 5}) {
    auto a = allocateHostArray(n);
    REQUIRE(a);
    REQUIRE(reinterpret_cast<uintptr_t>(a->get()) % page == 0);
    a->get()[n - 1] = 1.0f;
    std::string flags = vmFlagsAt(a->get());
    INFO(flags);
    // "hg": the mapping carries MADV_HUGEPAGE. Whether the kernel then backs it with huge pages depends on
    // free memory; the advice is what the code controls.
    REQUIRE(flags.find(" hg") != std::string::npos);
  }
  auto small = allocateHostArray(page / 4 - 16);
  REQUIRE(small);
  REQUIRE(vmFlagsAt(small->get()).find(" hg") == std::string::npos);
}
