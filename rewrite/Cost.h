// What a GIR-Graph costs, read from the graph alone (docs/plans.md, "The cost model").
//
// Per kernel k (kernels are separated by device syncs):
//   t_k = launch_cost_us
//       + dram_net_bytes(k) * inefficiency_dram(k) / (bandwidth_dram GB/s * 1e3)
//       + sum_{other levels l} access_bytes(l, k) * inefficiency_l(k) / (bandwidth_l * 1e3)
//       + sum_{scope in unit, block} syncs(scope, k) * sync_cost_us[scope]
//       + flops(k) / (peak_gflops * 1e3)
//   modelled time = sum_k t_k
// dram_net_bytes counts each element of a device-level buffer once per kernel for reading and once
// for writing (a second read by another unit in the same kernel hits a cache, as in the baselines'
// accounting), and so a buffer below device scope that two kernels touch, which lives in device
// memory (buffersAcrossKernels); access bytes count every unit's every access. inefficiency = the access-weighted
// mean of max(1, granularity_bytes / contiguous_bytes) over the level's slices in the kernel: a
// slice whose innermost contiguous run is shorter than the level's transaction wastes the rest.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "core/gir/Graph.h"
#include "core/hw/HardwareDesc.h"

namespace gir {

struct KernelCost {
  int64_t dramRead = 0, dramWrite = 0;  // net bytes
  int64_t dramAccess = 0;               // bytes over all units' accesses
  int64_t flops = 0;
  int syncs[4] = {0, 0, 0, 0};
  double launchUs = 0, dramUs = 0, levelUs = 0, syncUs = 0, computeUs = 0;
  double totalUs() const { return launchUs + dramUs + levelUs + syncUs + computeUs; }
};

struct GraphCost {
  std::map<std::string, int64_t> bytesPerLevel;  // bytes read + written by all units, per level name
  int64_t dramBytes = 0;                          // net bytes at device-scope levels (sum over kernels)
  int64_t dramAccessBytes = 0;                    // every unit's device-level accesses
  int64_t flops = 0;
  int syncs[4] = {0, 0, 0, 0};                    // sync nodes per scope (lane, unit, block, device)
  int kernels = 0;
  double modelledUs = 0;  // the formula above; 0 without a hardware description
  std::vector<KernelCost> perKernel;

  std::string str() const;
  std::string breakdown() const;  // one line per kernel with every term
};

GraphCost computeCost(const Graph& g, const HardwareDesc* hw = nullptr);

}  // namespace gir
