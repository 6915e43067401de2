// Which description of this CPU a run prices and emits with (docs/cpu.md, "A calibration is kept"): a file
// the user names; else the calibrated copy an earlier `gir run --calibrate` left in the compile cache; else
// the bundled hardware/cpu-host.json. One rule for the `gir` command and the app's Measure tab.
#pragma once

#include <string>

#include "core/Expected.h"
#include "core/hw/HardwareDesc.h"

namespace gir::codegen::cpu {

struct HostDescription {
  HardwareDesc desc;
  std::string source;  // "from FILE", "calibrated earlier: PATH" or "from the description"
};

// Where `--calibrate` keeps its copy and a later run looks for it: CACHE/cpu-host.calibrated.json, with
// the default cache directory when `cacheDir` is empty.
std::string cachedCalibrationPath(const std::string& cacheDir);

// `explicitPath` when not empty; else the cached calibration unless `skipCached` (a run about to
// calibrate anew); else the bundled cpu-host. A cached file that does not parse is an error naming it.
Expected<HostDescription> cpuHostDescription(const std::string& explicitPath, const std::string& cacheDir, bool skipCached = false);

}  // namespace gir::codegen::cpu
