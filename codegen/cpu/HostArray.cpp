// Host arrays on transparent huge pages (docs/cpu.md "Huge pages").
#include "codegen/cpu/HostArray.h"

#include <algorithm>
#include <fstream>
#include <string>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace gir::codegen::cpu {

int64_t transparentHugePageBytes() {
#if defined(__linux__)
  static const int64_t bytes = [] {
    std::ifstream mode("/sys/kernel/mm/transparent_hugepage/enabled");
    std::string line;
    // "always [madvise] never": the bracketed word is the mode in force.
    if (!std::getline(mode, line) || line.find("[never]") != std::string::npos) return int64_t{0};
    std::ifstream size("/sys/kernel/mm/transparent_hugepage/hpage_pmd_size");
    int64_t b = 0;
    size >> b;
    return b > 0 && (b & (b - 1)) == 0 ? b : int64_t{0};
  }();
  return bytes;
#else
  return 0;
#endif
}

Expected<HostArray> allocateHostArray(int64_t elements) {
  size_t bytes = static_cast<size_t>(std::max<int64_t>(elements, 1)) * sizeof(float);
  size_t page = static_cast<size_t>(transparentHugePageBytes());
  size_t align = page > 0 && bytes >= page ? page : 64;
  size_t rounded = (bytes + align - 1) / align * align;  // aligned_alloc wants a multiple of the alignment
  HostArray a(static_cast<float*>(std::aligned_alloc(align, rounded)));
  if (!a) return makeError("cannot allocate " + std::to_string(rounded) + " bytes for a host array");
#if defined(__linux__)
  // Advice only: where the kernel declines, the array stays on small pages and is as correct.
  if (align == page) (void)madvise(a.get(), rounded, MADV_HUGEPAGE);
#endif
  return a;
}

}  // namespace gir::codegen::cpu
