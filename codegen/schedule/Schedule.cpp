// Kernels, stages and buffer placement of a GIR-Graph (see Schedule.h).
#include "codegen/schedule/Schedule.h"

#include <algorithm>
#include <limits>
#include <set>

#include "codegen/schedule/Phases.h"
#include "core/gir/Printer.h"
#include "core/gir/Verifier.h"

namespace gir::codegen {

std::string_view placementName(Placement p) {
  switch (p) {
    case Placement::Global: return "global";
    case Placement::PerUnit: return "per-unit";
    case Placement::PerBlockUnits: return "per-unit, kept for the block";
    case Placement::PerBlock: return "per-block";
  }
  GIR_UNREACHABLE("unknown placement");
}

Scope bufferScope(const Graph& g, BufferId b) {
  const LevelDecl* l = g.levelOf(b);
  return l ? l->scope : Scope::Device;
}

namespace {

// Stage of every node of one kernel: the number of block syncs on the longest path into it
// inside that kernel (codegen/schedule/Phases.h's levels over the kernel's own edges). A unit-major
// run of one stage is then safe: data crosses units only through a block sync (or a device sync,
// which ends the kernel), and every sync starts a stage.
std::vector<int> stagesOf(const Graph& g, const std::vector<NodeId>& order, const std::vector<int>& kernelOf,
                          const std::vector<std::vector<NodeId>>& succ) {
  std::vector<NodeId> scheduled;
  LevelEdges edges(g.nodes().size());
  for (NodeId id : order) {
    int k = kernelOf[id.value];
    if (k < 0) continue;
    scheduled.push_back(id);
    const Node& n = g.node(id);
    int w = n.isSync() && n.syncScope() == Scope::Block ? 1 : 0;
    for (NodeId s : succ[id.value])
      if (kernelOf[s.value] == k) edges[id.value].push_back({s, w});
  }
  return levelNodes(g.nodes().size(), scheduled, edges, LevelSink::Earliest);
}

int64_t instanceOf(const Graph& g, bool perUnit, int64_t u) { return perUnit ? u : g.blockOf(u); }

// The instance footprint and the kernels and stages that touch the buffer.
struct Footprint : InstanceFootprint {
  std::set<int> kernels, stages;
};

Footprint footprintOf(const Graph& g, BufferId b, bool perUnit, const std::vector<int>& kernelOf,
                      const std::vector<int>& stageOf) {
  Footprint f;
  static_cast<InstanceFootprint&>(f) = instanceFootprint(g, b, perUnit);
  for (auto [s, n] : f.uses) {
    f.kernels.insert(kernelOf[n.value]);
    f.stages.insert(stageOf[n.value]);
  }
  return f;
}

// Fills loStride/loBase when every touched instance's first index is affine in the instance
// number; false otherwise.
bool fitAffineFootprint(const Footprint& f, BufferPlan& plan) {
  std::vector<int64_t> touched;
  for (size_t i = 0; i < f.first.size(); ++i)
    if (f.touched(i)) touched.push_back(static_cast<int64_t>(i));
  if (touched.empty()) return false;
  int64_t i0 = touched[0];
  int64_t stride = 0;
  if (touched.size() > 1) {
    int64_t i1 = touched[1], delta = f.first[i1] - f.first[i0];
    if (delta % (i1 - i0) != 0) return false;
    stride = delta / (i1 - i0);
  }
  int64_t base = f.first[i0] - stride * i0;
  for (int64_t i : touched)
    if (f.first[i] != stride * i + base) return false;
  plan.loStride = stride;
  plan.loBase = base;
  return true;
}

// Each slice's offset minus its instance's first element, for every unit that runs it; fails
// (naming the slice) when that differs between units.
Status fixSliceOffsets(const Graph& g, const Footprint& f, bool perUnit, std::vector<int64_t>& sliceRel) {
  for (auto [s, n] : f.uses) {
    const MemorySlice& sl = g.slice(s);
    UnitDomain d = g.domainOf(g.node(n));
    for (int64_t u = d.begin; u < d.end; ++u) {
      int64_t rel = sl.offset.eval(u) - f.first[static_cast<size_t>(instanceOf(g, perUnit, u))];
      if (u > d.begin && rel != sliceRel[s.value])
        return makeError("its slice offset(" + sl.offset.str() + ") is not at a fixed place within each unit's elements");
      sliceRel[s.value] = rel;
    }
  }
  return success();
}

// The target's rules for a per-unit instance; an error names the one broken.
Status checkUnitInstance(const Graph& g, const Footprint& f, const ScheduleTarget& t, bool fixed, const Status& whyNotFixed,
                         int64_t size) {
  if (t.fixedUnitSlices) {
    if (!fixed) return whyNotFixed;
    for (auto [s, n] : f.uses)
      for (SliceId out : g.node(n).outputs)
        if (out == s && g.slice(s).contiguousWidth() != g.slice(s).numel()) return makeError("a node writes it through a non-contiguous slice");
  }
  int64_t slots = (size + t.lanes - 1) / t.lanes;
  if (t.maxSlotsPerLane > 0 && slots > t.maxSlotsPerLane)
    return makeError(std::to_string(slots) + " registers per lane exceed " + std::to_string(t.maxSlotsPerLane));
  return success();
}

BufferPlan globalPlan(BufferPlan p, std::string why) {
  p.placement = Placement::Global;
  p.kernel = -1;
  p.why = std::move(why);
  return p;
}

BufferPlan planBuffer(const Graph& g, BufferId b, const Schedule& s, const ScheduleTarget& t, const std::vector<bool>& buffersAcross,
                      std::vector<int64_t>& sliceRel) {
  BufferPlan p;
  p.buffer = b;
  Scope scope = bufferScope(g, b);
  bool perUnit = scope == Scope::Unit || scope == Scope::Lane;
  Footprint f = footprintOf(g, b, perUnit, s.kernelOf, s.stageOf);
  p.used = !f.kernels.empty();
  p.deviceLevel = scope == Scope::Device;
  if (p.deviceLevel) return globalPlan(p, "device-scope level");
  if (g.buffer(b).role != BufferRole::Temp) return globalPlan(p, "graph input or output");
  if (f.kernels.empty()) return globalPlan(p, "unused");
  if (buffersAcross[b.value])  // docs/gir.md, "Kernels": the cost model prices it in device memory too
    return globalPlan(p, "kernels " + std::to_string(*f.kernels.begin()) + " and " + std::to_string(*f.kernels.rbegin()) +
                             " both touch it");
  p.affine = fitAffineFootprint(f, p);
  p.instanceSize = f.largest();
  Status fixed = fixSliceOffsets(g, f, perUnit, sliceRel);
  if (!perUnit) {
    if (!p.affine) return globalPlan(p, "the blocks' first elements are not affine in the block index");
    if (t.maxBlockBytes > 0 && p.instanceSize * 4 > t.maxBlockBytes)
      return globalPlan(p, std::to_string(p.instanceSize * 4) + " bytes per block exceed the " + std::to_string(t.maxBlockBytes / 1024) +
                               " KiB of static shared memory");
    p.kernel = *f.kernels.begin();
    p.placement = Placement::PerBlock;
    p.why = "block-scope level: one scratch per block";
    return p;
  }
  if (!p.affine && !fixed) return globalPlan(p, "instances are not translates of one another");
  if (auto st = checkUnitInstance(g, f, t, static_cast<bool>(fixed), fixed, p.instanceSize); !st) return globalPlan(p, st.error().message);
  p.kernel = *f.kernels.begin();
  if (f.stages.size() > 1) {
    p.placement = Placement::PerBlockUnits;
    p.why = "unit-scope level live across a block sync: kept for every unit of the block";
  } else {
    p.placement = Placement::PerUnit;
    p.why = "unit-scope level used inside one stage";
  }
  return p;
}

}  // namespace

int64_t InstanceFootprint::largest() const {
  int64_t size = 0;
  for (size_t i = 0; i < first.size(); ++i)
    if (touched(i)) size = std::max(size, last[i] - first[i] + 1);
  return size;
}

InstanceFootprint instanceFootprint(const Graph& g, BufferId b, bool perUnit) {
  InstanceFootprint f;
  int64_t instances = perUnit ? g.units : (g.units + g.unitsPerBlock - 1) / g.unitsPerBlock;
  f.first.assign(static_cast<size_t>(instances), std::numeric_limits<int64_t>::max());
  f.last.assign(static_cast<size_t>(instances), std::numeric_limits<int64_t>::min());
  for (uint32_t i = 0; i < g.nodes().size(); ++i) {
    const Node& n = g.nodes()[i];
    if (n.erased || n.isSync()) continue;
    UnitDomain d = g.domainOf(n);
    for (const auto* list : {&n.inputs, &n.outputs})
      for (SliceId s : *list) {
        const MemorySlice& sl = g.slice(s);
        if (sl.buffer != b) continue;
        f.uses.push_back({s, NodeId(i)});
        for (int64_t u = std::max<int64_t>(d.begin, 0); u < std::min(d.end, g.units); ++u) {
          auto [lo, hi] = sliceExtent(sl, u);
          auto inst = static_cast<size_t>(instanceOf(g, perUnit, u));
          f.first[inst] = std::min(f.first[inst], lo);
          f.last[inst] = std::max(f.last[inst], hi);
        }
      }
  }
  return f;
}

Expected<Schedule> buildSchedule(const Graph& g, const ScheduleTarget& target) {
  if (g.units < 1 || g.unitsPerBlock < 1) return makeError("graph @" + g.name + " needs units >= 1 and block >= 1");
  auto order = topologicalOrder(g);
  if (!order) return makeError("graph @" + g.name + " has a cycle; it cannot be scheduled");
  Schedule s;
  s.units = g.units;
  s.unitsPerBlock = g.unitsPerBlock;
  s.blocks = (g.units + g.unitsPerBlock - 1) / g.unitsPerBlock;
  s.kernelOf = kernelIndices(g);
  auto ud = computeUseDef(g);
  s.stageOf = stagesOf(g, *order, s.kernelOf, successors(g, ud));
  int kernels = 0;
  for (int k : s.kernelOf) kernels = std::max(kernels, k + 1);
  s.kernels.resize(static_cast<size_t>(kernels));
  for (int k = 0; k < kernels; ++k) s.kernels[k].index = k;
  for (NodeId id : *order) {
    int k = s.kernelOf[id.value];
    if (k < 0) continue;
    const Node& n = g.node(id);
    KernelSchedule& ks = s.kernels[k];
    ks.program.push_back(id);
    if (n.isSync()) {
      if (n.syncScope() == Scope::Block) ++ks.blockSyncs;
      continue;  // unit and lane syncs order one unit with itself: program order already does
    }
    size_t st = static_cast<size_t>(s.stageOf[id.value]);
    if (ks.stages.size() <= st) ks.stages.resize(st + 1);
    ks.stages[st].nodes.push_back(id);
  }
  s.sliceRel.assign(g.slices().size(), 0);
  auto across = buffersAcrossKernels(g, s.kernelOf);
  for (uint32_t b = 0; b < g.buffers().size(); ++b) {
    if (g.buffers()[b].erased) {
      BufferPlan erased;
      erased.buffer = BufferId(b);
      s.buffers.push_back(globalPlan(erased, "erased"));
      continue;
    }
    s.buffers.push_back(planBuffer(g, BufferId(b), s, target, across, s.sliceRel));
  }
  return s;
}

}  // namespace gir::codegen
