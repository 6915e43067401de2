// Host arrays for the generated kernels and the calibration (docs/cpu.md "Huge pages").
#pragma once

#include <cstdint>
#include <cstdlib>
#include <memory>

#include "core/Expected.h"

namespace gir::codegen::cpu {

struct FreeHostArray {
  void operator()(float* p) const { std::free(p); }
};
using HostArray = std::unique_ptr<float, FreeHostArray>;

// The kernel's transparent huge page size, or 0 where the kernel offers none (not Linux, THP "never").
int64_t transparentHugePageBytes();

// `elements` floats, 64-byte aligned. An array of at least one huge page is aligned to it and advised onto
// huge pages, as NumPy does for its arrays: a 64 MB operand then needs 32 TLB entries, not 16,384.
Expected<HostArray> allocateHostArray(int64_t elements);

}  // namespace gir::codegen::cpu
