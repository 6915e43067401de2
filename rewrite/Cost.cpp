// Counting traffic per kernel and level, net DRAM bytes by marking touched elements, then the
// formula of Cost.h.
#include "rewrite/Cost.h"

#include <algorithm>
#include <array>
#include <iomanip>
#include <sstream>

namespace gir {

namespace {

// Touched elements of device-level buffers within one kernel, cleared between kernels.
class NetCounter {
 public:
  explicit NetCounter(const Graph& g) : g_(g), marks_(g.buffers().size()) {}

  int64_t mark(const MemorySlice& s, UnitDomain d, bool write) {
    auto& m = marks_[s.buffer.value][write];
    if (m.empty()) {
      m.assign(static_cast<size_t>(g_.buffer(s.buffer).numel()), 0);
      touched_.emplace_back(s.buffer.value, write);
    }
    int64_t fresh = 0;
    std::vector<int64_t> idx(s.shape.size(), 0);
    int64_t n = s.numel(), size = static_cast<int64_t>(m.size());
    for (int64_t u = d.begin; u < d.end; ++u) {
      int64_t base = s.offset.eval(u);
      std::fill(idx.begin(), idx.end(), 0);
      for (int64_t e = 0; e < n; ++e) {
        int64_t off = base;
        for (size_t k = 0; k < idx.size(); ++k) off += idx[k] * s.strides[k];
        if (off >= 0 && off < size && !m[off]) {
          m[off] = 1;
          ++fresh;
        }
        for (size_t k = idx.size(); k-- > 0;) {
          if (++idx[k] < s.shape[k]) break;
          idx[k] = 0;
        }
      }
    }
    return fresh;
  }

  void clear() {
    for (auto [b, w] : touched_) marks_[b][w].clear();
    touched_.clear();
  }

 private:
  const Graph& g_;
  std::vector<std::array<std::vector<uint8_t>, 2>> marks_;
  std::vector<std::pair<uint32_t, int>> touched_;
};

int64_t flopsOf(const Graph& g, const Node& n, int64_t units) {
  if (n.kind() == NodeKind::Elementwise) return g.slice(n.outputs[0]).numel() * units;
  if (n.kind() == NodeKind::Reduce) return g.slice(n.inputs[0]).numel() * units;
  return 0;
}

double inefficiency(const MemorySlice& s, const MemoryLevelDesc* l) {
  if (!l || l->granularityBytes <= 0) return 1;
  double contiguous = static_cast<double>(s.contiguousWidth()) * 4;
  return std::max(1.0, static_cast<double>(l->granularityBytes) / std::max(4.0, contiguous));
}

}  // namespace

GraphCost computeCost(const Graph& g, const HardwareDesc* hw) {
  GraphCost c;
  auto kernelOf = kernelIndices(g);
  for (int k : kernelOf) c.kernels = std::max(c.kernels, k + 1);
  c.perKernel.resize(std::max(1, c.kernels));
  std::vector<std::vector<uint32_t>> byKernel(c.perKernel.size());
  for (uint32_t i = 0; i < g.nodes().size(); ++i)
    if (!g.nodes()[i].erased) byKernel[std::max(0, kernelOf[i])].push_back(i);
  NetCounter net(g);
  for (size_t k = 0; k < byKernel.size(); ++k) {
    KernelCost& kc = c.perKernel[k];
    std::map<std::string, std::pair<double, double>> weighted;  // level -> (bytes, bytes * inefficiency)
    for (uint32_t i : byKernel[k]) {
      const Node& n = g.nodes()[i];
      if (n.isSync()) {
        ++c.syncs[static_cast<int>(n.syncScope())];
        ++kc.syncs[static_cast<int>(n.syncScope())];
        continue;
      }
      UnitDomain d = g.domainOf(n);
      int64_t units = d.end - d.begin;
      kc.flops += flopsOf(g, n, units);
      auto count = [&](SliceId s, bool write) {
        const MemorySlice& sl = g.slice(s);
        int64_t bytes = sl.numel() * 4 * units;
        const std::string& level = g.buffer(sl.buffer).level;
        c.bytesPerLevel[level] += bytes;
        auto& w = weighted[level];
        w.first += bytes;
        w.second += bytes * inefficiency(sl, hw ? hw->level(level) : nullptr);
        const LevelDecl* l = g.level(level);
        if (!l || l->scope != Scope::Device) return;
        kc.dramAccess += bytes;
        (write ? kc.dramWrite : kc.dramRead) += net.mark(sl, d, write) * 4;
      };
      for (SliceId s : n.inputs) count(s, false);
      for (SliceId s : n.outputs) count(s, true);
    }
    net.clear();
    c.dramBytes += kc.dramRead + kc.dramWrite;
    c.dramAccessBytes += kc.dramAccess;
    c.flops += kc.flops;
    if (!hw) continue;
    kc.launchUs = hw->launchCostUs;
    for (const auto& [level, w] : weighted) {
      const MemoryLevelDesc* l = hw->level(level);
      if (!l || l->bandwidthGBs <= 0 || w.first <= 0) continue;
      double ineff = w.second / w.first;
      bool device = l->scope == Scope::Device;
      double bytes = device ? static_cast<double>(kc.dramRead + kc.dramWrite) : w.first;
      (device ? kc.dramUs : kc.levelUs) += bytes * ineff / (l->bandwidthGBs * 1e3);
    }
    for (int s = 1; s < 3; ++s) kc.syncUs += kc.syncs[s] * hw->syncCostUs[s];
    if (hw->peakGflops > 0) kc.computeUs = static_cast<double>(kc.flops) / (hw->peakGflops * 1e3);
    c.modelledUs += kc.totalUs();
  }
  if (c.kernels == 0) c.perKernel.clear();
  return c;
}

std::string GraphCost::str() const {
  std::ostringstream os;
  os << "kernels " << kernels << ", dram bytes " << dramBytes << ", syncs (unit/block/device) " << syncs[1] << "/" << syncs[2]
     << "/" << syncs[3] << ", modelled " << modelledUs << " us";
  return os.str();
}

std::string GraphCost::breakdown() const {
  std::ostringstream os;
  os << std::fixed << std::setprecision(3);
  os << "kernel  dram_read  dram_write  dram_access      flops  launch_us    dram_us   level_us    sync_us compute_us   total_us\n";
  for (size_t k = 0; k < perKernel.size(); ++k) {
    const auto& kc = perKernel[k];
    os << std::setw(6) << k << std::setw(11) << kc.dramRead << std::setw(12) << kc.dramWrite << std::setw(13) << kc.dramAccess
       << std::setw(11) << kc.flops << std::setw(11) << kc.launchUs << std::setw(11) << kc.dramUs << std::setw(11) << kc.levelUs
       << std::setw(11) << kc.syncUs << std::setw(11) << kc.computeUs << std::setw(11) << kc.totalUs() << "\n";
  }
  return os.str();
}

}  // namespace gir
