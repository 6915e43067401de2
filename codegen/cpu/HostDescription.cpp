#include "codegen/cpu/HostDescription.h"

#include <filesystem>

#include "codegen/cpu/CpuCompiler.h"

namespace gir::codegen::cpu {

std::string cachedCalibrationPath(const std::string& cacheDir) {
  return (cacheDir.empty() ? defaultCacheDir() : cacheDir) + "/cpu-host.calibrated.json";
}

// Why a cached calibration comes before the bundled file: docs/cpu.md, "A calibration is kept".
Expected<HostDescription> cpuHostDescription(const std::string& explicitPath, const std::string& cacheDir, bool skipCached) {
  if (!explicitPath.empty()) {
    auto hw = loadHardwareDesc(explicitPath);
    if (!hw) return hw.error();
    return HostDescription{*hw, "from " + explicitPath};
  }
  std::string cached = cachedCalibrationPath(cacheDir);
  if (!skipCached && std::filesystem::exists(cached)) {
    auto hw = loadHardwareDesc(cached);
    if (!hw) {
      Diagnostic d = hw.error();
      d.notes.push_back("this is the calibration an earlier `gir run --calibrate` left in the cache: run --calibrate again, or delete it");
      return d;
    }
    return HostDescription{*hw, "calibrated earlier: " + cached};
  }
  auto hw = loadHardwareByName("cpu-host");
  if (!hw) return hw.error();
  return HostDescription{*hw, "from the description"};
}

}  // namespace gir::codegen::cpu
