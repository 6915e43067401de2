// The modelled time of a GIR-Graph on the CPU mapping, per kernel, and the error figures of modelled
// against measured times (docs/cpu.md, "Modelled against measured": MAPE, Spearman across candidates).
//
//   kernel k [us] = launch_cost_us + sync_cost_us[device]              (its parallel loop and barrier)
//                 + block_syncs_k * sync_cost_us[block]
//                 + max(memory_k, compute_k) + 0.1 min(memory_k, compute_k)   (overlapping almost wholly)
//   memory_k      = max(device_k + cache_k / 2, cache_k)               (in part side by side)
//   device_k      = device bytes_k at the device rates (below)
//   cache_k       = sum over the cache levels of bytes_k(level) / (bandwidth(level) GB/s * 1e3)
//   compute_k     = flops_k / (peak_gflops * 1e3) + sum over f of transcendentals_k(f) / (rate(f) * 1e3)
//   graph [us]    = launch_cost_us + sum_k (kernel k - launch_cost_us)  (gir_run: one parallel region)
//
// The bytes are those of the code the emitter writes (docs/cpu.md, "The cost model"): loop groups as
// codegen/schedule/FusedLoops forms them, where a value buffer and a read served from a register move
// nothing. A level of the graph is priced with the hardware level of the same scope (device -> dram,
// block -> tile, unit -> local on cpu-host), so graphs written for a GPU (smem, reg) are modelled
// too. Device traffic is priced at the cache level (block scope) when the graph's device data fits
// every thread's cache together (a repeated run finds it there), and a device buffer read again
// after its first touch that fits one thread's cache (a parameter row every unit reads) is priced
// there past that first touch. dramBytes stays every device access, what instrumented builds count.
// Divisions and square roots weigh 4 flops per element. Each transcendental runs at the rate `gir run
// --calibrate` measures for the function the emitter calls for it (`transcendental_gelems_by_function`:
// girSigmoid, girErf, girOnePlusErf, girExpNonPositive, ...; else girExp's rate); an uncalibrated
// description prices one at 24 flops; pow by an immediate 2 is a multiply. Streamed writes
// (StreamingStores.h) move at the streaming rate; with a calibrated `read_to_copy_ratio` reads move
// faster and writes slower, so that a copy still costs what the calibration measured (docs/cpu.md,
// "Reads and writes"). Device and cache traffic overlap in part; compute overlaps memory almost wholly
// (docs/cpu.md, "Modelled against measured", has the fit).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "core/gir/Graph.h"
#include "core/hw/HardwareDesc.h"

namespace gir::codegen::cpu {

struct KernelModel {
  int kernel = 0;
  std::map<std::string, int64_t> bytesPerLevel;  // hardware level name -> bytes read + written
  int64_t dramBytes = 0;
  int64_t flops = 0;            // besides the transcendentals
  int64_t transcendentals = 0;  // elements of exp, sigmoid, tanh, erf, log, pow
  std::map<std::string, int64_t> transcendentalsByFunction;  // the same by the function called, each at its rate
  int blockSyncs = 0;
  double deviceUs = 0;          // the device traffic at the device rates
  double cacheUs = 0;           // the cache levels' traffic, each at its bandwidth
  double memoryUs = 0;          // the slower of the two
  double computeUs = 0;         // flops at peak_gflops, transcendentals at their calibrated rate
  double modelledUs = 0;  // alone: launch + barrier + syncs + traffic and compute, overlapping in part
};

struct GraphModel {
  std::vector<KernelModel> kernels;
  int64_t dramBytes = 0;
  int64_t deviceFootprintBytes = 0;  // distinct bytes of the device-scope buffers the graph touches
  bool cacheResident = false;        // device traffic priced at the cache level's bandwidth
  double devicePlainGBs = 0, deviceStreamingGBs = 0;  // the device rates used (below)
  double modelledUs = 0;  // all kernels in one parallel region
};

// Warm: the kernel runs again and again on the same buffers (what `gir run --measure` times); cold: the
// caches are flushed before each call (`--measure --cold`).
enum class CacheState { Warm, Cold };

struct ModelOptions {
  CacheState cache = CacheState::Warm;
  int64_t streamAboveBytes = -1;  // the emitter's streaming-store threshold; -1: the description's
};

// Device rates: the GB/s a plain and a streamed device byte moves at. Warm, with the description's
// warm-copy curve (`gir run --calibrate`), both come from the curve: GraphModel reports them at the
// graph's device footprint, and each kernel prices a buffer's bytes at the buffer's reuse footprint
// (the bytes touched since its previous touch; docs/cpu.md, "Reuse footprints"): on this machine a 64
// MiB footprint copied again and again runs at twice the STREAM rate. Cold, plain bytes move at the
// calibrated cold copy's rate (`cold_copy_gbs`); without it, and warm without a curve, at the device
// level's (STREAM copy) bandwidth.
struct DeviceRates {
  double plainGBs = 0, streamingGBs = 0;
  // The warm-copy curve's rates at a footprint, held at the curve's first point below it.
  static DeviceRates warmAt(const HardwareDesc& hw, int64_t footprintBytes);
};

GraphModel modelCpu(const Graph& g, const HardwareDesc& hw, const ModelOptions& options = {});

// Figures over pairs (modelled, measured), measured > 0.
struct ModelError {
  size_t count = 0;
  double mapePercent = 0;          // mean |modelled - measured| / measured * 100
  double maxRelativeError = 0;     // max |modelled - measured| / measured
  double spearman = 0;             // rank correlation (average ranks on ties); 0 with fewer than 2 points
  bool pickWithin5Percent = false; // the candidate with the least modelled time measures within 5 % of the fastest
};
ModelError modelError(const std::vector<double>& modelled, const std::vector<double>& measured);

}  // namespace gir::codegen::cpu
