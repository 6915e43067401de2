// Counting traffic per level and converting it to time with the target's bandwidths.
// modelled time [us] = sum_level bytes_level / (bandwidth_level GB/s * 1e3)
//                    + sum_scope syncs_scope * sync_cost_us[scope] + kernels * launch_cost_us
#include "rewrite/Cost.h"

#include <sstream>

namespace gir {

GraphCost computeCost(const Graph& g, const HardwareDesc* hw) {
  GraphCost c;
  for (const Node& n : g.nodes()) {
    if (n.erased) continue;
    if (n.isSync()) {
      ++c.syncs[static_cast<int>(n.syncScope())];
      continue;
    }
    UnitDomain d = g.domainOf(n);
    int64_t units = d.end - d.begin;
    auto count = [&](SliceId s) {
      const MemorySlice& sl = g.slice(s);
      int64_t bytes = sl.numel() * 4 * units;
      const std::string& level = g.buffer(sl.buffer).level;
      c.bytesPerLevel[level] += bytes;
      const LevelDecl* l = g.level(level);
      if (l && l->scope == Scope::Device) c.dramBytes += bytes;
    };
    for (SliceId s : n.inputs) count(s);
    for (SliceId s : n.outputs) count(s);
  }
  c.kernels = kernelCount(g);
  if (!hw) return c;
  for (const auto& [level, bytes] : c.bytesPerLevel) {
    const MemoryLevelDesc* l = hw->level(level);
    if (l && l->bandwidthGBs > 0) c.modelledUs += static_cast<double>(bytes) / (l->bandwidthGBs * 1e3);
  }
  for (int s = 1; s < 3; ++s) c.modelledUs += c.syncs[s] * hw->syncCostUs[s];
  c.modelledUs += c.kernels * hw->launchCostUs;
  return c;
}

std::string GraphCost::str() const {
  std::ostringstream os;
  os << "kernels " << kernels << ", dram bytes " << dramBytes << ", syncs (unit/block/device) " << syncs[1] << "/" << syncs[2]
     << "/" << syncs[3] << ", modelled " << modelledUs << " us";
  return os.str();
}

}  // namespace gir
