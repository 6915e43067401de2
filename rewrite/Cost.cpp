// Counting traffic per kernel and level, net DRAM bytes as the union of touched runs (or marked
// elements), then the formula of Cost.h.
#include "rewrite/Cost.h"

#include <algorithm>
#include <array>
#include <iomanip>
#include <map>
#include <sstream>

#include "core/gir/Interpreter.h"

namespace gir {

namespace {

// Touched elements of device-level buffers within one kernel, counted once each. A slice is a set
// of contiguous runs (its innermost contiguous block, once per index of its other dims and per
// unit), so the distinct elements of a buffer are the union of its runs: sorting and merging them
// costs the number of runs, not of elements (a LayerNorm row per unit is one run per unit). Where
// runs are not markedly fewer than elements (a column strip), elements are marked instead.
class NetCounter {
 public:
  explicit NetCounter(const Graph& g) : g_(g) {}

  void add(const MemorySlice& s, UnitDomain d, bool write) { uses_[{s.buffer.value, write}].emplace_back(&s, d); }

  // Distinct elements read (or written) in this kernel, inside their buffers; forgets them.
  int64_t take(bool write) {
    int64_t total = 0;
    for (auto it = uses_.begin(); it != uses_.end();) {
      if (it->first.second != write) {
        ++it;
        continue;
      }
      total += distinct(g_.buffer(BufferId(it->first.first)).numel(), it->second);
      it = uses_.erase(it);
    }
    return total;
  }

 private:
  using Uses = std::vector<std::pair<const MemorySlice*, UnitDomain>>;

  int64_t distinct(int64_t size, const Uses& uses) {
    int64_t elements = 0, runCount = 0;
    for (auto [s, d] : uses) {
      elements += s->numel() * (d.end - d.begin);
      runCount += s->numel() / std::max<int64_t>(1, s->contiguousWidth()) * (d.end - d.begin);
    }
    return runsPayOff(runCount, elements) ? byRuns(size, uses) : byMarks(size, uses);
  }

  int64_t byRuns(int64_t size, const Uses& uses) {
    runs_.clear();
    for (auto [s, d] : uses)
      for (int64_t u = d.begin; u < d.end; ++u) {
        sliceRuns(*s, u, unitRuns_);
        runs_.insert(runs_.end(), unitRuns_.begin(), unitRuns_.end());
      }
    std::sort(runs_.begin(), runs_.end(), [](const ElementRun& a, const ElementRun& b) { return a.begin < b.begin; });
    int64_t total = 0, end = 0;
    for (auto [b, e] : runs_) {
      b = std::max({b, end, int64_t{0}});
      e = std::min(e, size);
      if (e > b) total += e - b;
      end = std::max(end, e);
    }
    return total;
  }

  int64_t byMarks(int64_t size, const Uses& uses) {
    marks_.assign(static_cast<size_t>(size), 0);
    int64_t total = 0;
    for (auto [s, d] : uses)
      for (int64_t u = d.begin; u < d.end; ++u) {
        sliceElements(*s, u, elements_);
        for (int64_t e : elements_)
          if (e >= 0 && e < size && !marks_[static_cast<size_t>(e)]) {
            marks_[static_cast<size_t>(e)] = 1;
            ++total;
          }
      }
    return total;
  }

  const Graph& g_;
  std::map<std::pair<uint32_t, bool>, Uses> uses_;
  std::vector<ElementRun> runs_, unitRuns_;
  std::vector<uint8_t> marks_;
  std::vector<int64_t> elements_;
};

int64_t flopsOf(const Graph& g, const Node& n, int64_t units) {
  switch (n.kind()) {  // exhaustive: a new kind must say what it computes
    case NodeKind::Elementwise: return g.slice(n.outputs[0]).numel() * units;
    case NodeKind::Reduce: return g.slice(n.inputs[0]).numel() * units;
    case NodeKind::Move:
    case NodeKind::Broadcast:
    case NodeKind::Sync: return 0;
  }
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
  // A buffer below device scope that two kernels touch lives in device memory on every back end
  // (docs/gir.md, "Kernels"): its bytes are device traffic, priced at the device level.
  auto acrossKernels = buffersAcrossKernels(g, kernelOf);
  const LevelDecl* deviceLevel = nullptr;
  for (const LevelDecl& l : g.levels)
    if (!deviceLevel && l.scope == Scope::Device) deviceLevel = &l;
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
        const LevelDecl* l = g.level(g.buffer(sl.buffer).level);
        if (acrossKernels[sl.buffer.value] && deviceLevel) l = deviceLevel;
        const std::string& level = l ? l->name : g.buffer(sl.buffer).level;
        c.bytesPerLevel[level] += bytes;
        auto& w = weighted[level];
        w.first += bytes;
        w.second += bytes * inefficiency(sl, hw ? hw->level(level) : nullptr);
        if (!l || l->scope != Scope::Device) return;
        kc.dramAccess += bytes;
        net.add(sl, d, write);
      };
      for (SliceId s : n.inputs) count(s, false);
      for (SliceId s : n.outputs) count(s, true);
    }
    kc.dramRead += net.take(false) * 4;
    kc.dramWrite += net.take(true) * 4;
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
