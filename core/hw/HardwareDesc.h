// A target's hardware description, loaded from hardware/NAME.json (docs/hardware.md).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/Expected.h"
#include "core/Scope.h"

namespace gir {

// One memory level: which scope shares it, how big one instance is, how fast it is.
struct MemoryLevelDesc {
  std::string name;            // "dram", "smem", "reg", "local", "ub", ...
  Scope scope = Scope::Device;  // the scope whose units share one instance
  int64_t capacityBytes = 0;   // per instance (per block for smem, per unit for reg)
  double bandwidthGBs = 0;     // aggregate bandwidth of the level
  int64_t granularityBytes = 0;  // contiguous bytes for a full-efficiency access
};

// Ascend-specific facts: flags per ordered pipe pair and pipe latencies (docs/hardware.md, "Fields"; docs/ascend.md, "The machine").
struct AscendDesc {
  int flagsPerPipePair = 4;
  int syncCostCycles = 1;
  std::map<std::string, int> pipeLatencyCycles;  // S V M MTE1 MTE2 MTE3 FIX
};

struct WarmCopyPoint {
  int64_t footprintBytes = 0;
  double plainGBs = 0, streamingGBs = 0;
};

struct HardwareDesc {
  std::string name;
  std::string kind;   // cpu | gpu | npu | mlu
  std::string unitName;  // what one parallel unit is: thread, warp, wavefront, ai-core, ipu
  int lanesPerUnit = 1;
  int maxUnitsPerBlock = 1;
  int64_t maxUnits = 0;  // units that run at once (SMs x warps, cores); 0 = unknown
  std::vector<MemoryLevelDesc> levels;  // fastest last is not required; order is the file's
  double syncCostUs[4] = {0, 0, 0, 0};  // per Scope: lane, unit, block, device
  double launchCostUs = 0;
  double peakGflops = 0;
  // Transcendental evaluations (exp, erf, tanh, ...) per second over all units, in billions; 0 when not
  // measured (a CPU model then prices one at 24 flops). `gir run --calibrate` measures it.
  double transcendentalGelems = 0;
  // CPU: the same rate per function the kernels call for a transcendental, by the name the back end
  // gives it: each op's own spelling ("exp", "sigmoid", "erf", "tanh", "log", "pow") and the emitter's
  // special forms ("exp_nonpositive", "one_plus_erf"; codegen/cpu/EmittedArithmetic.h). On the AMD EPYC
  // host an erf costs about two exps and a scalar logf ten. A function not listed evaluates at
  // `transcendentalGelems`. `gir run --calibrate` measures every one.
  std::map<std::string, double> transcendentalGelemsByFunction;
  // CPU: the device footprint (bytes of a graph's device buffers together) above which its large write-once
  // outputs go out with streaming (non-temporal) stores; 0: never. Data above it no longer stays cached
  // between calls, so a plain store pays a read-for-ownership. `gir run --calibrate` measures it.
  int64_t streamStoreAboveBytes = 0;
  // CPU: how many segments of its row a lone row sum reads side by side: 1 (front to back) or 2 (its two
  // halves, two streams per thread; docs/cpu.md, "Two segments"). Which keeps more lines in flight
  // depends on the machine's prefetchers; `gir run --calibrate` measures both.
  int rowSumSegments = 1;
  // CPU: copy bandwidth when the same arrays are copied again and again (what a repeated, "hot" run of a
  // kernel sees), by footprint (bytes read + written), with plain and with streaming stores; ascending
  // footprints. A footprint that mostly stays in the caches copies faster than STREAM's. Empty: not
  // measured. `gir run --calibrate` measures it; the CPU cost model prices hot device traffic with it.
  std::vector<WarmCopyPoint> warmCopy;
  // CPU: copy bandwidth (bytes read + written over time) right after the caches were evicted by writing
  // twice the last-level cache, as `gir run --measure --cold` evicts them before each call; 0: not
  // measured (a cold run is then priced at the device level's STREAM bandwidth). `gir run --calibrate`
  // measures it; the CPU cost model prices cold device traffic with it.
  double coldCopyGBs = 0;
  // CPU: how much faster a read-only stream moves its bytes than a copy (STREAM read over STREAM copy,
  // both over arrays far beyond the last-level cache); 0: not measured, reads are priced like a copy's
  // bytes. The CPU cost model splits a copy's rate into a read rate and a write rate with it
  // (docs/cpu.md, "Reads and writes"). `gir run --calibrate` measures it.
  double readToCopyRatio = 0;
  std::optional<AscendDesc> ascend;

  const MemoryLevelDesc* level(const std::string& name) const;
  const MemoryLevelDesc* dramLevel() const;  // the device-scope level
  // Fastest level shared by exactly `scope` (for sync-insertion promotion); null when none.
  const MemoryLevelDesc* levelForScope(Scope scope) const;
  double dramBandwidthGBs() const;
  double ridgePointFlopsPerByte() const;  // peak FLOP/s over DRAM bandwidth
  // The warm copy's bandwidth at a footprint, interpolated in log(footprint) between the measured
  // points and held at the ends; 0 without a curve.
  double warmCopyGBs(int64_t footprintBytes, bool streaming) const;
  // Evaluations per second of the named transcendental function, in billions: its own rate, else
  // `transcendentalGelems`; 0 when neither is measured.
  double transcendentalGelemsOf(std::string_view function) const;
};

// Parse and validate; errors name the file, the field path and the reason.
Expected<HardwareDesc> parseHardwareDesc(const std::string& jsonText, const std::string& fileName);
Expected<HardwareDesc> loadHardwareDesc(const std::string& path);
// Looks up NAME in the hardware directory (GIR_HARDWARE_DIR env, else the built-in path).
Expected<HardwareDesc> loadHardwareByName(const std::string& name);
std::string hardwareDirectory();
// The names of the hardware directory's descriptions (NAME.json), sorted.
std::vector<std::string> bundledHardwareNames();
std::string hardwareToJson(const HardwareDesc& hw);

}  // namespace gir
