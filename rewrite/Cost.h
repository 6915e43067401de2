// What a GIR-Graph costs, read from the graph alone: bytes per level, syncs per scope, kernels,
// and a modelled time when a hardware description is given (design.md section 6).
#pragma once

#include <map>
#include <string>

#include "core/gir/Graph.h"
#include "core/hw/HardwareDesc.h"

namespace gir {

struct GraphCost {
  std::map<std::string, int64_t> bytesPerLevel;  // bytes read + written by all units, per level name
  int64_t dramBytes = 0;                          // bytes at device-scope levels
  int syncs[4] = {0, 0, 0, 0};                    // sync nodes per scope (lane, unit, block, device)
  int kernels = 0;
  double modelledUs = 0;  // sum over levels of bytes / bandwidth + syncs x cost + kernels x launch

  std::string str() const;
};

// Traffic of one node: each slice it reads or writes, times the units of its domain.
GraphCost computeCost(const Graph& g, const HardwareDesc* hw = nullptr);

}  // namespace gir
