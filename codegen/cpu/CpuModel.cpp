// Modelled CPU time per kernel (formula in CpuModel.h) and modelled-vs-measured error figures.
#include "codegen/cpu/CpuModel.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <set>

#include "codegen/cpu/CpuEmitter.h"
#include "codegen/cpu/EmittedArithmetic.h"
#include "codegen/cpu/StreamingStores.h"
#include "codegen/schedule/BufferHomes.h"
#include "codegen/schedule/FusedLoops.h"
#include "codegen/schedule/LoopInvariants.h"
#include "codegen/schedule/VisitReuse.h"
#include "core/gir/ValueSigns.h"

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

// Floating-point work per output element besides the transcendentals (counted on their own): a
// division or square root costs the latency of several.
int64_t flopsPerElement(const ElementwisePayload& p, bool invariantDivisor = false) {
  if (callsTranscendental(p)) return 0;
  if (reciprocalOfDivisor(p) || dividesByInvariantReciprocal(p, invariantDivisor)) return 1;  // emitted as a multiply
  switch (p.op) {
    case ElementwiseOp::Div:
    case ElementwiseOp::Sqrt:
    case ElementwiseOp::Rsqrt:
    case ElementwiseOp::Recip: return 4;
    default: return 1;
  }
}

int64_t nodeFlops(const Graph& g, const Node& n, bool invariantDivisor = false) {
  switch (n.kind()) {
    case NodeKind::Elementwise: return g.slice(n.outputs[0]).numel() * flopsPerElement(std::get<ElementwisePayload>(n.payload), invariantDivisor);
    case NodeKind::Reduce: return g.slice(n.inputs[0]).numel();
    case NodeKind::Move:
    case NodeKind::Broadcast:
    case NodeKind::Sync: return 0;
  }
  return 0;
}

bool isDeviceLevel(const Graph& g, const HardwareDesc& hw, const std::string& level) {
  const MemoryLevelDesc* hl = hardwareLevelFor(g, hw, level);
  return hl ? hl->scope == Scope::Device : (g.level(level) == nullptr || g.level(level)->scope == Scope::Device);
}

// What the emitted loops of one kernel move, per level and per device buffer.
struct KernelTraffic {
  std::map<std::string, int64_t> bytesPerLevel;
  std::map<uint32_t, int64_t> deviceBytesPerBuffer;
  std::map<uint32_t, int64_t> deviceReadBytesPerBuffer;  // the reads among them
  std::map<uint32_t, int64_t> streamedBytesPerBuffer;  // device writes the emitter makes with streaming stores
  std::vector<codegen::DeviceRead> deviceReads;  // the device reads themselves, for what the visits before read
};

void addAccess(const Graph& g, const HardwareDesc& hw, SliceId s, UnitDomain d, bool read, KernelTraffic& t) {
  const Buffer& b = g.buffer(g.slice(s).buffer);
  const MemoryLevelDesc* hl = hardwareLevelFor(g, hw, b.level);
  int64_t bytes = g.slice(s).numel() * 4 * (d.end - d.begin);
  t.bytesPerLevel[hl ? hl->name : b.level] += bytes;
  if (!isDeviceLevel(g, hw, b.level)) return;
  t.deviceBytesPerBuffer[g.slice(s).buffer.value] += bytes;
  if (!read) return;
  t.deviceReadBytesPerBuffer[g.slice(s).buffer.value] += bytes;
  t.deviceReads.push_back({s, d});
}

// The accesses of one loop group as emitted (docs/cpu.md, "One loop nest per fused group"): a value
// buffer is never stored or loaded, a read served from a member's register costs nothing, and a copy
// whose buffer lives in its source stores nothing (docs/cpu.md, "Buffer homes").
void addGroup(const Graph& g, const HardwareDesc& hw, const codegen::LoopGroup& grp, const std::vector<bool>& values,
              const std::vector<codegen::BufferHome>& homes, const std::vector<bool>& streamed, const std::vector<bool>& nonPositive,
              KernelModel& km, KernelTraffic& t) {
  std::vector<bool> invariant = grp.fused ? codegen::innermostInvariant(g, grp) : std::vector<bool>(grp.nodes.size(), false);
  ErfPlusOne plusOne = erfPlusOne(g, grp, values);  // as the emitter spells GELU's 1 + erf
  for (size_t k = 0; k < grp.nodes.size(); ++k) {
    const Node& n = g.node(grp.nodes[k]);
    UnitDomain d = g.domainOf(n);
    int64_t units = d.end - d.begin;
    km.flops += nodeFlops(g, n, grp.fused && codegen::invariantDivisor(g, grp, invariant, k)) * units;
    if (callsTranscendental(n)) {
      int64_t elements = g.slice(n.outputs[0]).numel() * units;
      km.transcendentals += elements;
      km.transcendentalsByFunction[std::string(transcendentalFunction(n, nonPositive, plusOne.addOf[k] >= 0))] += elements;
    }
    for (size_t i = 0; i < n.inputs.size(); ++i) {
      BufferId b = g.slice(n.inputs[i]).buffer;
      bool device = isDeviceLevel(g, hw, g.buffer(b).level);
      if (values[b.value] || (!device && codegen::forwardedFrom(g, grp, k, i) >= 0)) continue;
      addAccess(g, hw, n.inputs[i], d, true, t);
    }
    const uint32_t out = g.slice(n.outputs[0]).buffer.value;
    if (values[out] || (homes[out].kind == codegen::HomeKind::CopySource && homes[out].copy == grp.nodes[k])) continue;
    addAccess(g, hw, n.outputs[0], d, false, t);
    if (streamsOutput(g, streamed, grp, k)) t.streamedBytesPerBuffer[out] += g.slice(n.outputs[0]).numel() * 4 * units;
  }
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

// Device traffic priced by the level that serves it: a buffer read again after its first touch
// (a parameter row every unit reads) comes from the cache when it fits one thread's cache, and
// everything comes from the cache when the graph's device data fits all threads' caches together.
// A buffer read more than once also gets from the cache the share of its reads that the units its
// worker visited just before had read (`revisited`: a convolution's shared input row; docs/cpu.md,
// "Reads the last visits made"), up to its reads beyond the first.
// What stays device traffic is left per buffer in `t.deviceBytesPerBuffer`.
void priceDeviceTraffic(const Graph& g, const HardwareDesc& hw, const GraphModel& m, const std::map<uint32_t, double>& revisited,
                        KernelTraffic& t) {
  const MemoryLevelDesc* cache = hw.levelForScope(Scope::Block);
  if (!cache || cache->bandwidthGBs <= 0) return;
  for (auto& [buffer, bytes] : t.deviceBytesPerBuffer) {
    const Buffer& b = g.buffers()[buffer];
    const MemoryLevelDesc* dram = hardwareLevelFor(g, hw, b.level);
    if (!dram) continue;
    int64_t footprint = b.numel() * 4;
    int64_t cached = m.cacheResident ? bytes : footprint <= cache->capacityBytes && bytes > footprint ? bytes - footprint : 0;
    auto share = revisited.find(buffer);
    auto reads = t.deviceReadBytesPerBuffer.find(buffer);
    if (share != revisited.end() && reads != t.deviceReadBytesPerBuffer.end() && bytes > footprint)
      cached = std::max(cached, std::min<int64_t>(bytes - footprint, std::llround(share->second * static_cast<double>(reads->second))));
    t.bytesPerLevel[dram->name] -= cached;
    t.bytesPerLevel[cache->name] += cached;
    bytes -= cached;
    // what the cache serves is read again: the reads left are the first ones
    if (auto r = t.deviceReadBytesPerBuffer.find(buffer); r != t.deviceReadBytesPerBuffer.end()) r->second = std::max<int64_t>(0, r->second - cached);
  }
}

// Warm, the bytes a repeated run touches from a buffer's previous touch to its touch in kernel k: the
// distinct device buffers of the kernels from the last one before k that touches it (k itself in the
// run before, when no other does) through k. That is the footprint a copy would repeat over with the
// same reuse, so the warm-copy curve prices the buffer's bytes at it (docs/cpu.md, "Reuse
// footprints"): a buffer the previous kernel wrote comes back from the cache even when the whole
// graph is far larger than it.
std::vector<std::map<uint32_t, int64_t>> reuseFootprints(const Graph& g, const std::vector<KernelTraffic>& traffic) {
  size_t n = traffic.size();
  std::vector<std::map<uint32_t, int64_t>> out(n);
  for (size_t k = 0; k < n; ++k)
    for (const auto& [buffer, bytes] : traffic[k].deviceBytesPerBuffer) {
      size_t back = 1;
      while (back < n && !traffic[(k + n - back) % n].deviceBytesPerBuffer.count(buffer)) ++back;
      std::set<uint32_t> touched;
      for (size_t d = 0; d <= std::min(back, n - 1); ++d)
        for (const auto& [b, _] : traffic[(k + n - d) % n].deviceBytesPerBuffer) touched.insert(b);
      int64_t footprint = 0;
      for (uint32_t b : touched) footprint += g.buffers()[b].numel() * 4;
      out[k][buffer] = footprint;
    }
  return out;
}

int64_t deviceFootprint(const Graph& g, const HardwareDesc& hw) {
  std::vector<bool> touched(g.buffers().size(), false);
  for (const Node& n : g.nodes())
    if (!n.erased && !n.isSync())
      for (const auto* list : {&n.inputs, &n.outputs})
        for (SliceId s : *list) touched[g.slice(s).buffer.value] = true;
  int64_t bytes = 0;
  for (uint32_t b = 0; b < g.buffers().size(); ++b)
    if (touched[b] && isDeviceLevel(g, hw, g.buffers()[b].level)) bytes += g.buffers()[b].numel() * 4;
  return bytes;
}

// A transcendental without a measured rate weighs 24 flops (the prelude's polynomials).
constexpr double kTranscendentalFlops = 24;
// What one byte of device traffic costs (CpuModel.h, "device rates"): a warm run over a footprint the
// calibrated warm-copy curve covers copies at that curve's rate, where part of the data stays cached
// between calls; a cold run at the calibrated cold copy's rate (what a copy moves right after the same
// eviction), or without one at the device level's STREAM bandwidth, as does a footprint under the curve's
// first point (priced by the cache levels above). Streamed writes at the streaming copy's rate.
DeviceRates deviceRates(const HardwareDesc& hw, const GraphModel& m, CacheState cache) {
  DeviceRates r;
  const MemoryLevelDesc* dram = hw.dramLevel();
  r.plainGBs = r.streamingGBs = dram ? dram->bandwidthGBs : 0;
  if (cache == CacheState::Cold) {
    if (hw.coldCopyGBs > 0) r.plainGBs = hw.coldCopyGBs;
    if (!hw.warmCopy.empty()) r.streamingGBs = hw.warmCopy.back().streamingGBs;
    return r;
  }
  return hw.warmCopy.empty() ? r : DeviceRates::warmAt(hw, m.deviceFootprintBytes);
}

}  // namespace

DeviceRates DeviceRates::warmAt(const HardwareDesc& hw, int64_t footprintBytes) {
  int64_t footprint = std::max(footprintBytes, hw.warmCopy.front().footprintBytes);
  return DeviceRates{hw.warmCopyGBs(footprint, false), hw.warmCopyGBs(footprint, true)};
}

namespace {

// Seconds per byte of a buffer's device traffic at `at` (docs/cpu.md, "Reads and writes"): a read
// streams `readToCopyRatio` times faster than a copy moves its bytes; a plain write takes what is left
// of a copied element's time (2/copy - 1/read per byte), and a streamed one what is left of a streaming
// copy's. A copy kernel is priced at the copy rate measured, a read-only one at the read rate. The
// ratio is held within [1, 1.9]: a read is never priced slower than a copy, nor a write as free.
double deviceTrafficUs(const HardwareDesc& hw, const DeviceRates& at, int64_t reads, int64_t plainWrites, int64_t streamed) {
  double f = hw.readToCopyRatio > 0 ? std::clamp(hw.readToCopyRatio, 1.0, 1.9) : 1.0;
  double readGBs = at.plainGBs * f;
  double plainWriteGBs = 1.0 / (2.0 / at.plainGBs - 1.0 / readGBs);
  double streamedWriteGBs = f == 1.0 ? at.streamingGBs : 1.0 / std::max(2.0 / at.streamingGBs - 1.0 / readGBs, 1.0 / (2.0 * at.streamingGBs));
  return static_cast<double>(reads) / (readGBs * 1e3) + static_cast<double>(plainWrites) / (plainWriteGBs * 1e3) +
         static_cast<double>(streamed) / (streamedWriteGBs * 1e3);
}

// A kernel's memory time is its device traffic plus half its cache traffic (at least the cache
// traffic): the prefetchers stream DRAM lines while the core works in L1 and L2, but the core's own
// loads and stores of its per-unit arrays take issue slots the stream then waits on. Compute overlaps
// memory almost wholly: the kernel takes the slower of the two plus kUnoverlapped of the lesser
// (docs/cpu.md, "Modelled against measured"). Fitted on 2026-11-29 on the 01:12 benchmark run's 49
// DRAM-scale candidates over its three rounds, each round re-modelled on its own calibrated
// description, with each transcendental at its function's rate: 13.7 % (14.4 % re-modelled by this
// code with one calibration's ratios) against 15.5 % for one exp rate, a memory term of max(device,
// cache) and 0.4 of the lesser. Half the cache traffic also fitted best on the run of 2026-11-27 10:17.
// The run after the fit (2026-11-29 04:44): 11.4 % hot, 10.8 % cold.
constexpr double kCacheShare = 0.5;
constexpr double kUnoverlapped = 0.1;
void priceKernel(const HardwareDesc& hw, const DeviceRates& rates, const std::map<uint32_t, int64_t>& reuse, KernelModel& km,
                 const KernelTraffic& t) {
  km.deviceUs = km.cacheUs = 0;
  bool deviceRated = rates.plainGBs > 0;  // device bytes at the rates, per buffer (below); else at the level's bandwidth
  for (const auto& [level, bytes] : t.bytesPerLevel) {
    const MemoryLevelDesc* l = hw.level(level);
    if (!l || l->bandwidthGBs <= 0 || (l->scope == Scope::Device && deviceRated)) continue;
    double& us = l->scope == Scope::Device ? km.deviceUs : km.cacheUs;
    us += static_cast<double>(bytes) / (l->bandwidthGBs * 1e3);
  }
  if (deviceRated)
    for (const auto& [buffer, bytes] : t.deviceBytesPerBuffer) {
      auto s = t.streamedBytesPerBuffer.find(buffer);
      int64_t streamed = std::min(bytes, s == t.streamedBytesPerBuffer.end() ? 0 : s->second);
      auto r = reuse.find(buffer);
      DeviceRates at = r == reuse.end() ? rates : DeviceRates::warmAt(hw, r->second);
      auto rd = t.deviceReadBytesPerBuffer.find(buffer);
      int64_t reads = std::min(bytes - streamed, rd == t.deviceReadBytesPerBuffer.end() ? 0 : rd->second);
      km.deviceUs += deviceTrafficUs(hw, at, reads, bytes - streamed - reads, streamed);
    }
  km.memoryUs = std::max(km.deviceUs + kCacheShare * km.cacheUs, km.cacheUs);
  km.computeUs = 0;
  double flops = static_cast<double>(km.flops);
  for (const auto& [function, elements] : km.transcendentalsByFunction) {
    double rate = hw.transcendentalGelemsOf(function);
    if (rate > 0) km.computeUs += static_cast<double>(elements) / (rate * 1e3);
    else flops += kTranscendentalFlops * static_cast<double>(elements);
  }
  if (hw.peakGflops > 0) km.computeUs += flops / (hw.peakGflops * 1e3);
  km.modelledUs = hw.launchCostUs + hw.syncCostUs[static_cast<int>(Scope::Device)] + km.blockSyncs * hw.syncCostUs[static_cast<int>(Scope::Block)] +
                  std::max(km.memoryUs, km.computeUs) + kUnoverlapped * std::min(km.memoryUs, km.computeUs);
}

}  // namespace

GraphModel modelCpu(const Graph& g, const HardwareDesc& hw, const ModelOptions& o) {
  GraphModel m;
  m.deviceFootprintBytes = deviceFootprint(g, hw);
  const MemoryLevelDesc* cache = hw.levelForScope(Scope::Block);
  m.cacheResident = cache && cache->bandwidthGBs > 0 && m.deviceFootprintBytes <= cache->capacityBytes * std::max<int64_t>(1, hw.maxUnits);
  m.modelledUs = hw.launchCostUs;
  auto schedule = codegen::buildSchedule(g);
  if (!schedule) return m;  // the emitter refuses such a graph with the same reason
  DeviceRates rates = deviceRates(hw, m, o.cache);
  m.devicePlainGBs = rates.plainGBs;
  m.deviceStreamingGBs = rates.streamingGBs;
  auto streamed = streamedBuffers(g, *schedule, o.streamAboveBytes < 0 ? hw.streamStoreAboveBytes : o.streamAboveBytes);
  std::vector<bool> nonPositive = nonPositiveSlices(g);
  std::vector<KernelModel> kernels;
  std::vector<KernelTraffic> traffic;
  for (const codegen::KernelSchedule& ks : schedule->kernels) {
    KernelModel& km = kernels.emplace_back();
    km.kernel = ks.index;
    km.blockSyncs = ks.blockSyncs;
    KernelTraffic& t = traffic.emplace_back();
    for (const codegen::Stage& st : ks.stages) {
      auto groups = codegen::fuseStage(g, st);
      auto values = codegen::valueBuffers(g, *schedule, groups);
      auto homes = codegen::bufferHomes(g, *schedule, groups, codegen::bandGroups(g, groups), values, streamed, kStackArrayLimit);
      for (const auto& grp : groups) addGroup(g, hw, grp, values, homes, streamed, nonPositive, km, t);
    }
    for (const auto& [buffer, bytes] : t.deviceBytesPerBuffer) km.dramBytes += bytes;
    km.bytesPerLevel = t.bytesPerLevel;
  }
  auto reuse = o.cache == CacheState::Warm && !hw.warmCopy.empty() ? reuseFootprints(g, traffic) : std::vector<std::map<uint32_t, int64_t>>(kernels.size());
  codegen::VisitReuseOptions visits;  // a worker's cache keeps about half its capacity of the lines it read last
  if (cache && cache->capacityBytes > 0) visits.windowBytes = cache->capacityBytes / 2;
  for (size_t k = 0; k < kernels.size(); ++k) {
    priceDeviceTraffic(g, hw, m, codegen::revisitedReadShare(g, *schedule, schedule->kernels[k], traffic[k].deviceReads, visits), traffic[k]);
    priceKernel(hw, rates, reuse[k], kernels[k], traffic[k]);
    m.modelledUs += kernels[k].modelledUs - hw.launchCostUs;
    m.dramBytes += kernels[k].dramBytes;
    m.kernels.push_back(std::move(kernels[k]));
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
