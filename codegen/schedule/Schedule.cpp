// Kernels, stages and buffer placement of a GIR-Graph (see Schedule.h).
#include "codegen/schedule/Schedule.h"

#include <algorithm>
#include <limits>
#include <set>

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
// inside that kernel. A unit-major run of one stage is then safe: data crosses units only
// through a block sync (or a device sync, which ends the kernel), and every sync starts a stage.
std::vector<int> stagesOf(const Graph& g, const std::vector<NodeId>& order, const std::vector<int>& kernelOf,
                          const std::vector<std::vector<NodeId>>& succ) {
  std::vector<int> stage(g.nodes().size(), -1);
  for (NodeId id : order)
    if (kernelOf[id.value] >= 0) stage[id.value] = std::max(stage[id.value], 0);
  for (NodeId id : order) {
    int k = kernelOf[id.value];
    if (k < 0) continue;
    const Node& n = g.node(id);
    int next = stage[id.value] + (n.isSync() && n.syncScope() == Scope::Block ? 1 : 0);
    for (NodeId s : succ[id.value])
      if (kernelOf[s.value] == k) stage[s.value] = std::max(stage[s.value], next);
  }
  return stage;
}

// What one buffer's instances touch, gathered over every non-sync access.
struct Footprint {
  std::vector<int64_t> lo, hi;  // per instance; lo > hi when untouched
  std::set<int> kernels, stages;
};

Footprint footprintOf(const Graph& g, BufferId b, bool perUnit, const std::vector<int>& kernelOf,
                      const std::vector<int>& stageOf) {
  Footprint f;
  int64_t instances = perUnit ? g.units : (g.units + g.unitsPerBlock - 1) / g.unitsPerBlock;
  f.lo.assign(static_cast<size_t>(instances), std::numeric_limits<int64_t>::max());
  f.hi.assign(static_cast<size_t>(instances), std::numeric_limits<int64_t>::min());
  for (uint32_t i = 0; i < g.nodes().size(); ++i) {
    const Node& n = g.nodes()[i];
    if (n.erased || n.isSync()) continue;
    UnitDomain d = g.domainOf(n);
    for (const auto* list : {&n.inputs, &n.outputs})
      for (SliceId s : *list) {
        const MemorySlice& sl = g.slice(s);
        if (sl.buffer != b) continue;
        f.kernels.insert(kernelOf[i]);
        f.stages.insert(stageOf[i]);
        for (int64_t u = d.begin; u < d.end; ++u) {
          auto [first, last] = sliceExtent(sl, u);
          size_t inst = static_cast<size_t>(perUnit ? u : g.blockOf(u));
          f.lo[inst] = std::min(f.lo[inst], first);
          f.hi[inst] = std::max(f.hi[inst], last);
        }
      }
  }
  return f;
}

// Fills loStride/loBase/instanceSize when every touched instance's first index is affine in the
// instance number; false otherwise (the buffer then stays global).
bool fitAffineFootprint(const Footprint& f, BufferPlan& plan) {
  std::vector<int64_t> touched;
  for (size_t i = 0; i < f.lo.size(); ++i)
    if (f.lo[i] <= f.hi[i]) touched.push_back(static_cast<int64_t>(i));
  if (touched.empty()) return false;
  int64_t i0 = touched[0];
  int64_t stride = 0;
  if (touched.size() > 1) {
    int64_t i1 = touched[1], delta = f.lo[i1] - f.lo[i0];
    if (delta % (i1 - i0) != 0) return false;
    stride = delta / (i1 - i0);
  }
  int64_t base = f.lo[i0] - stride * i0, size = 0;
  for (int64_t i : touched) {
    if (f.lo[i] != stride * i + base) return false;
    size = std::max(size, f.hi[i] - f.lo[i] + 1);
  }
  plan.loStride = stride;
  plan.loBase = base;
  plan.instanceSize = size;
  return true;
}

BufferPlan planBuffer(const Graph& g, BufferId b, const std::vector<int>& kernelOf, const std::vector<int>& stageOf) {
  BufferPlan p;
  p.buffer = b;
  Scope scope = bufferScope(g, b);
  bool perUnit = scope == Scope::Unit || scope == Scope::Lane;
  Footprint f = footprintOf(g, b, perUnit, kernelOf, stageOf);
  p.used = !f.kernels.empty();
  p.deviceLevel = scope == Scope::Device;
  if (p.deviceLevel) {
    p.why = "device-scope level";
    return p;
  }
  if (g.buffer(b).role != BufferRole::Temp) {
    p.why = "graph input or output";
    return p;
  }
  if (f.kernels.size() != 1) {
    p.why = f.kernels.empty() ? "unused" : "lives across a device sync";
    return p;
  }
  if (!fitAffineFootprint(f, p)) {
    p.why = "instances are not translates of one another";
    return p;
  }
  p.kernel = *f.kernels.begin();
  if (!perUnit) {
    p.placement = Placement::PerBlock;
    p.why = "block-scope level: one scratch per block";
  } else if (f.stages.size() > 1) {
    p.placement = Placement::PerBlockUnits;
    p.why = "unit-scope level live across a block sync: kept for every unit of the block";
  } else {
    p.placement = Placement::PerUnit;
    p.why = "unit-scope level used inside one stage";
  }
  return p;
}

}  // namespace

Expected<Schedule> buildSchedule(const Graph& g) {
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
    if (n.isSync()) {
      if (n.syncScope() == Scope::Block) ++ks.blockSyncs;
      continue;  // unit and lane syncs order one unit with itself: program order already does
    }
    size_t st = static_cast<size_t>(s.stageOf[id.value]);
    if (ks.stages.size() <= st) ks.stages.resize(st + 1);
    ks.stages[st].nodes.push_back(id);
  }
  for (uint32_t b = 0; b < g.buffers().size(); ++b) {
    if (g.buffers()[b].erased) {
      s.buffers.push_back(BufferPlan{BufferId(b), Placement::Global, false, false, -1, 0, 0, 0, "erased"});
      continue;
    }
    s.buffers.push_back(planBuffer(g, BufferId(b), s.kernelOf, s.stageOf));
  }
  return s;
}

}  // namespace gir::codegen
