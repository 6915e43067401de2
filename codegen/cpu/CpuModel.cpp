// Modelled CPU time per kernel (formula in CpuModel.h) and modelled-vs-measured error figures.
#include "codegen/cpu/CpuModel.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace gir::codegen::cpu {

namespace {

const MemoryLevelDesc* hardwareLevelFor(const Graph& g, const HardwareDesc& hw, const std::string& level) {
  if (const MemoryLevelDesc* l = hw.level(level)) return l;
  const LevelDecl* decl = g.level(level);
  Scope scope = decl ? decl->scope : Scope::Device;
  if (scope == Scope::Lane) scope = Scope::Unit;
  for (const MemoryLevelDesc& l : hw.levels)
    if (l.scope == scope) return &l;
  return nullptr;
}

int64_t nodeFlops(const Graph& g, const Node& n) {
  switch (n.kind()) {
    case NodeKind::Elementwise: return g.slice(n.outputs[0]).numel();
    case NodeKind::Reduce: return g.slice(n.inputs[0]).numel();
    case NodeKind::Move:
    case NodeKind::Broadcast:
    case NodeKind::Sync: return 0;
  }
  return 0;
}

std::vector<double> ranks(const std::vector<double>& v) {
  std::vector<size_t> idx(v.size());
  std::iota(idx.begin(), idx.end(), 0);
  std::sort(idx.begin(), idx.end(), [&](size_t a, size_t b) { return v[a] < v[b]; });
  std::vector<double> r(v.size());
  for (size_t i = 0; i < idx.size();) {
    size_t j = i;
    while (j + 1 < idx.size() && v[idx[j + 1]] == v[idx[i]]) ++j;
    for (size_t k = i; k <= j; ++k) r[idx[k]] = 0.5 * static_cast<double>(i + j);  // average rank of the tie
    i = j + 1;
  }
  return r;
}

double pearson(const std::vector<double>& a, const std::vector<double>& b) {
  double n = static_cast<double>(a.size());
  double ma = std::accumulate(a.begin(), a.end(), 0.0) / n, mb = std::accumulate(b.begin(), b.end(), 0.0) / n;
  double sab = 0, saa = 0, sbb = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    sab += (a[i] - ma) * (b[i] - mb);
    saa += (a[i] - ma) * (a[i] - ma);
    sbb += (b[i] - mb) * (b[i] - mb);
  }
  return saa > 0 && sbb > 0 ? sab / std::sqrt(saa * sbb) : 0;
}

}  // namespace

GraphModel modelCpu(const Graph& g, const HardwareDesc& hw) {
  GraphModel m;
  auto kernelOf = kernelIndices(g);
  int kernels = 0;
  for (int k : kernelOf) kernels = std::max(kernels, k + 1);
  m.kernels.resize(static_cast<size_t>(kernels));
  for (int k = 0; k < kernels; ++k) m.kernels[k].kernel = k;
  for (uint32_t i = 0; i < g.nodes().size(); ++i) {
    const Node& n = g.nodes()[i];
    if (n.erased || kernelOf[i] < 0) continue;
    KernelModel& km = m.kernels[static_cast<size_t>(kernelOf[i])];
    if (n.isSync()) {
      km.blockSyncs += n.syncScope() == Scope::Block;
      continue;
    }
    UnitDomain d = g.domainOf(n);
    int64_t units = d.end - d.begin;
    km.flops += nodeFlops(g, n) * units;
    for (const auto* list : {&n.inputs, &n.outputs})
      for (SliceId s : *list) {
        const std::string& level = g.buffer(g.slice(s).buffer).level;
        const MemoryLevelDesc* hl = hardwareLevelFor(g, hw, level);
        int64_t bytes = g.slice(s).numel() * 4 * units;
        km.bytesPerLevel[hl ? hl->name : level] += bytes;
        if (hl ? hl->scope == Scope::Device : (g.level(level) == nullptr || g.level(level)->scope == Scope::Device)) km.dramBytes += bytes;
      }
  }
  std::vector<bool> touched(g.buffers().size(), false);
  for (const Node& n : g.nodes())
    if (!n.erased && !n.isSync())
      for (const auto* list : {&n.inputs, &n.outputs})
        for (SliceId s : *list) touched[g.slice(s).buffer.value] = true;
  for (uint32_t b = 0; b < g.buffers().size(); ++b) {
    const LevelDecl* l = g.level(g.buffers()[b].level);
    if (touched[b] && (!l || l->scope == Scope::Device)) m.deviceFootprintBytes += g.buffers()[b].numel() * 4;
  }
  const MemoryLevelDesc* cache = hw.levelForScope(Scope::Block);
  m.cacheResident = cache && cache->bandwidthGBs > 0 && m.deviceFootprintBytes <= cache->capacityBytes * std::max<int64_t>(1, hw.maxUnits);
  m.modelledUs = hw.launchCostUs;
  for (KernelModel& km : m.kernels) {
    double us = hw.launchCostUs + hw.syncCostUs[static_cast<int>(Scope::Device)] + km.blockSyncs * hw.syncCostUs[static_cast<int>(Scope::Block)];
    for (const auto& [level, bytes] : km.bytesPerLevel) {
      const MemoryLevelDesc* l = hw.level(level);
      if (l && l->scope == Scope::Device && m.cacheResident) l = cache;
      if (l && l->bandwidthGBs > 0) us += static_cast<double>(bytes) / (l->bandwidthGBs * 1e3);
    }
    if (hw.peakGflops > 0) us += static_cast<double>(km.flops) / (hw.peakGflops * 1e3);
    km.modelledUs = us;
    m.modelledUs += us - hw.launchCostUs;
    m.dramBytes += km.dramBytes;
  }
  return m;
}

ModelError modelError(const std::vector<double>& modelled, const std::vector<double>& measured) {
  ModelError e;
  e.count = std::min(modelled.size(), measured.size());
  if (e.count == 0) return e;
  for (size_t i = 0; i < e.count; ++i) {
    double rel = std::fabs(modelled[i] - measured[i]) / measured[i];
    e.mapePercent += rel * 100;
    e.maxRelativeError = std::max(e.maxRelativeError, rel);
  }
  e.mapePercent /= static_cast<double>(e.count);
  std::vector<double> a(modelled.begin(), modelled.begin() + static_cast<long>(e.count)), b(measured.begin(), measured.begin() + static_cast<long>(e.count));
  if (e.count >= 2) e.spearman = pearson(ranks(a), ranks(b));
  size_t pick = static_cast<size_t>(std::min_element(a.begin(), a.end()) - a.begin());
  double best = *std::min_element(b.begin(), b.end());
  e.pickWithin5Percent = b[pick] <= best * 1.05;
  return e;
}

}  // namespace gir::codegen::cpu
