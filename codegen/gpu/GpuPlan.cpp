// The GPU mapping: kernels from device syncs (with loads sunk to their consumer's kernel), buffer
// placement and the unit-relative layout of register and shared arrays.
#include "codegen/gpu/GpuPlan.h"

#include <algorithm>
#include <cctype>
#include <limits>
#include <map>
#include <set>

#include "core/gir/Printer.h"
#include "core/gir/Verifier.h"

namespace gir::gpu {

namespace {

constexpr int64_t kMaxSlotsPerLane = 256;         // beyond this a register array would spill anyway
constexpr int64_t kStaticSharedBytes = 48 * 1024;  // static __shared__ limit per block (CUDA and HIP)

bool isDeviceSync(const Node& n) { return n.isSync() && n.syncScope() == Scope::Device; }

Scope scopeOfBuffer(const Graph& g, BufferId b) {
  const LevelDecl* l = g.levelOf(b);
  return l ? l->scope : Scope::Device;
}

std::pair<int64_t, int64_t> displacementRange(const MemorySlice& s) {
  int64_t lo = 0, hi = 0;
  for (size_t d = 0; d < s.shape.size(); ++d) {
    int64_t span = (s.shape[d] - 1) * s.strides[d];
    (span < 0 ? lo : hi) += span;
  }
  return {lo, hi};
}

// Every live node with its slices, per buffer: (slice, node) pairs.
struct BufferUse {
  std::vector<std::pair<SliceId, NodeId>> uses;
  std::set<int> kernels;
  bool written = false;
  std::vector<SliceId> writtenSlices;
};

std::vector<BufferUse> collectUses(const GpuPlan& p) {
  const Graph& g = p.graph;
  std::vector<BufferUse> out(g.buffers().size());
  for (uint32_t i = 0; i < g.nodes().size(); ++i) {
    const Node& n = g.nodes()[i];
    if (n.erased || n.isSync()) continue;
    for (SliceId s : n.inputs) {
      auto& u = out[g.slice(s).buffer.value];
      u.uses.push_back({s, NodeId(i)});
      u.kernels.insert(p.kernelOf[i]);
    }
    for (SliceId s : n.outputs) {
      auto& u = out[g.slice(s).buffer.value];
      u.uses.push_back({s, NodeId(i)});
      u.kernels.insert(p.kernelOf[i]);
      u.written = true;
      u.writtenSlices.push_back(s);
    }
  }
  return out;
}

// A node that only writes unit- or block-level buffers and whose consumers all run in a later kernel
// moves to the first of those kernels, so a load feeding a later kernel does not keep a register
// live across a kernel boundary. It may not pass a node that touches what it writes or writes what it reads.
void sinkIntoConsumers(GpuPlan& p, const std::vector<NodeId>& order, const std::vector<std::vector<NodeId>>& succ) {
  const Graph& g = p.graph;
  std::vector<bool> sunk(g.nodes().size(), false);
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    const Node& n = g.node(*it);
    int k = p.kernelOf[it->value];
    if (n.isSync() || k < 0) continue;
    bool localOnly = !n.outputs.empty();
    for (SliceId s : n.outputs) localOnly = localOnly && scopeOfBuffer(g, g.slice(s).buffer) != Scope::Device;
    if (!localOnly || succ[it->value].empty()) continue;
    int target = std::numeric_limits<int>::max();
    for (NodeId c : succ[it->value]) target = std::min(target, isDeviceSync(g.node(c)) ? -1 : p.kernelOf[c.value]);
    if (target <= k) continue;
    std::set<uint32_t> reads, writes;
    for (SliceId s : n.inputs) reads.insert(g.slice(s).buffer.value);
    for (SliceId s : n.outputs) writes.insert(g.slice(s).buffer.value);
    bool conflict = false;
    for (uint32_t j = 0; j < g.nodes().size() && !conflict; ++j) {
      const Node& m = g.nodes()[j];
      if (j == it->value || m.erased || m.isSync() || p.kernelOf[j] < k || p.kernelOf[j] >= target) continue;
      for (SliceId s : m.outputs) conflict = conflict || reads.count(g.slice(s).buffer.value) || writes.count(g.slice(s).buffer.value);
      for (SliceId s : m.inputs) conflict = conflict || writes.count(g.slice(s).buffer.value);
    }
    if (conflict) continue;
    p.kernelOf[it->value] = target;
    sunk[it->value] = true;
    ++p.sunkNodes;
  }
  // Schedule: per kernel, nodes sunk into it first (they ran before all of its nodes), then its own,
  // each group in the original topological order.
  int count = 0;
  for (int k : p.kernelOf) count = std::max(count, k + 1);
  p.kernels.assign(static_cast<size_t>(count), {});
  for (int pass = 0; pass < 2; ++pass)
    for (NodeId id : order)
      if (p.kernelOf[id.value] >= 0 && sunk[id.value] == (pass == 0)) p.kernels[p.kernelOf[id.value]].push_back(id);
}

std::string sanitize(const std::string& name) {
  std::string out;
  for (char c : name) out += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  return out.empty() ? "buf" : out;
}

// Per unit: the smallest element any active slice touches; slices must sit at a fixed distance from it.
Status planRegisters(const Graph& g, const BufferUse& use, BufferPlan& bp, std::vector<int64_t>& sliceRel, int lanes) {
  std::vector<int64_t> base(static_cast<size_t>(g.units), std::numeric_limits<int64_t>::max());
  for (auto [s, n] : use.uses) {
    const MemorySlice& sl = g.slice(s);
    int64_t lo = displacementRange(sl).first;
    UnitDomain d = g.domainOf(g.node(n));
    for (int64_t u = d.begin; u < d.end; ++u) base[u] = std::min(base[u], sl.offset.eval(u) + lo);
  }
  int64_t extent = 0;
  std::map<uint32_t, int64_t> rel;
  for (auto [s, n] : use.uses) {
    const MemorySlice& sl = g.slice(s);
    UnitDomain d = g.domainOf(g.node(n));
    for (int64_t u = d.begin; u < d.end; ++u) {
      int64_t r = sl.offset.eval(u) - base[u];
      auto [it, fresh] = rel.insert({s.value, r});
      if (!fresh && it->second != r)
        return makeError("its slice offset(" + sl.offset.str() + ") is not at a fixed place within each unit's elements");
    }
    auto [lo, hi] = displacementRange(sl);
    extent = std::max(extent, rel[s.value] + hi + 1);
    if (rel[s.value] + lo < 0) return makeError("a slice reaches below the unit's first element");
  }
  for (SliceId s : use.writtenSlices)
    if (!isDenseSlice(g.slice(s))) return makeError("a node writes it through a non-contiguous slice");
  int64_t slots = (extent + lanes - 1) / lanes;
  if (slots > kMaxSlotsPerLane) return makeError(std::to_string(slots) + " registers per lane exceed " + std::to_string(kMaxSlotsPerLane));
  for (auto [s, r] : rel) sliceRel[s] = r;
  bp.unitExtent = extent;
  bp.slots = std::max<int64_t>(slots, 1);
  return success();
}

// Per block: the elements its units touch start at scale * block + base and span at most `extent`.
Status planShared(const Graph& g, const BufferUse& use, BufferPlan& bp) {
  int64_t blocks = (g.units + g.unitsPerBlock - 1) / g.unitsPerBlock;
  std::vector<int64_t> lo(blocks, std::numeric_limits<int64_t>::max()), hi(blocks, std::numeric_limits<int64_t>::min());
  for (auto [s, n] : use.uses) {
    const MemorySlice& sl = g.slice(s);
    auto [dlo, dhi] = displacementRange(sl);
    UnitDomain d = g.domainOf(g.node(n));
    for (int64_t u = d.begin; u < d.end; ++u) {
      int64_t off = sl.offset.eval(u), b = g.blockOf(u);
      lo[b] = std::min(lo[b], off + dlo);
      hi[b] = std::max(hi[b], off + dhi);
    }
  }
  std::vector<int64_t> active;
  for (int64_t b = 0; b < blocks; ++b)
    if (lo[b] <= hi[b]) active.push_back(b);
  if (active.empty()) return makeError("no unit touches it");
  int64_t scale = 0;
  if (active.size() > 1) {
    int64_t db = active[1] - active[0], dv = lo[active[1]] - lo[active[0]];
    if (dv % db != 0) return makeError("the blocks' first elements are not affine in the block index");
    scale = dv / db;
  }
  int64_t base = lo[active[0]] - scale * active[0], extent = 0;
  for (int64_t b : active) {
    if (lo[b] != scale * b + base) return makeError("the blocks' first elements are not affine in the block index");
    extent = std::max(extent, hi[b] - lo[b] + 1);
  }
  if (extent * 4 > kStaticSharedBytes) return makeError(std::to_string(extent * 4) + " bytes per block exceed the 48 KiB of static shared memory");
  bp.blockScale = scale;
  bp.blockBase = base;
  bp.blockExtent = extent;
  return success();
}

void placeBuffers(GpuPlan& p) {
  const Graph& g = p.graph;
  auto uses = collectUses(p);
  p.buffers.assign(g.buffers().size(), {});
  p.sliceRel.assign(g.slices().size(), 0);
  std::set<std::string> idents;
  for (uint32_t b = 0; b < g.buffers().size(); ++b) {
    BufferPlan& bp = p.buffers[b];
    Scope scope = scopeOfBuffer(g, BufferId(b));
    const BufferUse& use = uses[b];
    if (scope != Scope::Device && !use.uses.empty()) {
      Status st = success();
      if (use.kernels.size() > 1) st = makeError("kernels " + std::to_string(*use.kernels.begin()) + " and " + std::to_string(*use.kernels.rbegin()) + " both touch it");
      else if (scope == Scope::Block) st = planShared(g, use, bp);
      else st = planRegisters(g, use, bp, p.sliceRel, p.target.lanes);
      if (st) {
        bp.placement = scope == Scope::Block ? Placement::Shared : Placement::Registers;
        bp.kernel = *use.kernels.begin();
      } else {
        bp.spilled = true;
        bp.spillReason = st.error().message;
      }
    }
    std::string prefix = bp.placement == Placement::Registers ? "r_" : bp.placement == Placement::Shared ? "s_" : "g_";
    std::string id = prefix + sanitize(g.buffers()[b].name);
    while (idents.count(id)) id += "_";
    idents.insert(id);
    bp.ident = id;
  }
}

}  // namespace

int64_t sliceDisplacement(const MemorySlice& s, int64_t e) {
  int64_t disp = 0;
  for (size_t d = s.shape.size(); d-- > 0;) {
    disp += (e % s.shape[d]) * s.strides[d];
    e /= s.shape[d];
  }
  return disp;
}

bool isDenseSlice(const MemorySlice& s) { return s.contiguousWidth() == s.numel(); }

Expected<GpuPlan> planGpu(const Graph& input, const GpuTarget& target) {
  // Verified before compacting: compaction orders the nodes and asserts the graph has no cycle.
  if (auto st = verifyGraph(input); !st) return st.takeError();
  GpuPlan p;
  p.graph = input.compacted();
  p.target = target;
  const Graph& g = p.graph;
  if (g.unitsPerBlock * target.lanes > target.maxThreadsPerBlock)
    return makeError("block=" + std::to_string(g.unitsPerBlock) + " units of " + std::to_string(target.lanes) + " lanes make " +
                     std::to_string(g.unitsPerBlock * target.lanes) + " threads per block; " + target.name + " allows " +
                     std::to_string(target.maxThreadsPerBlock), SourceLocation{"", 0, 0, "graph @" + g.name});
  for (const auto& b : g.buffers())
    if (b.numel() >= (int64_t{1} << 31))
      return makeError("buffer %" + b.name + " has " + std::to_string(b.numel()) + " elements; the GPU emitter indexes with 32-bit integers");
  auto order = topologicalOrder(g);
  if (!order) return makeError("the graph has a cycle");
  auto ud = computeUseDef(g);
  auto succ = successors(g, ud);
  p.kernelOf = kernelIndices(g);
  sinkIntoConsumers(p, *order, succ);
  placeBuffers(p);
  return p;
}

}  // namespace gir::gpu
