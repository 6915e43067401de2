// Buffer homes (see BufferHomes.h): each per-unit buffer is tried as a copy's source first, then as an
// output; an output holds at most one buffer.
#include "codegen/schedule/BufferHomes.h"

#include <algorithm>
#include <optional>

#include "core/Expected.h"

namespace gir::codegen {

namespace {

// One access of a buffer inside the stage: which group, which member, through which operand.
struct Use {
  size_t group = 0, member = 0;
  const NestOperand* operand = nullptr;
  bool write = false;
};

struct Uses {
  std::vector<std::vector<Use>> inStage;          // per buffer id
  std::vector<std::vector<NodeId>> graphWriters;  // per buffer id: every live node that writes it
  std::vector<int> graphTouches;                  // per buffer id: live nodes that read or write it
};

Uses collectUses(const Graph& g, const std::vector<LoopGroup>& groups) {
  size_t buffers = g.buffers().size();
  Uses u{std::vector<std::vector<Use>>(buffers), std::vector<std::vector<NodeId>>(buffers), std::vector<int>(buffers, 0)};
  for (size_t gi = 0; gi < groups.size(); ++gi)
    for (size_t k = 0; k < groups[gi].nodes.size(); ++k) {
      const LoopNest& nest = groups[gi].nests[k];
      for (const NestOperand& in : nest.inputs) u.inStage[g.slice(in.slice).buffer.value].push_back({gi, k, &in, false});
      u.inStage[g.slice(nest.output.slice).buffer.value].push_back({gi, k, &nest.output, true});
    }
  for (uint32_t id = 0; id < g.nodes().size(); ++id) {
    const Node& n = g.nodes()[id];
    if (n.erased || n.isSync()) continue;
    std::vector<uint32_t> touched;
    for (SliceId s : n.inputs) touched.push_back(g.slice(s).buffer.value);
    for (SliceId s : n.outputs) {
      touched.push_back(g.slice(s).buffer.value);
      u.graphWriters[g.slice(s).buffer.value].push_back(NodeId{id});
    }
    std::sort(touched.begin(), touched.end());
    touched.erase(std::unique(touched.begin(), touched.end()), touched.end());
    for (uint32_t b : touched) ++u.graphTouches[b];
  }
  return u;
}

bool dense(const MemorySlice& s) { return s.contiguousWidth() == s.numel(); }

// The slice's first element inside its unit's instance (as the emitter addresses it), when constant.
std::optional<int64_t> instanceOffset(const Graph& g, const Schedule& s, SliceId sid) {
  const MemorySlice& sl = g.slice(sid);
  const BufferPlan& p = s.buffers[sl.buffer.value];
  if (!p.affine) return s.sliceRel[sid.value];
  AffineIndex off = sl.offset;
  off.addTerm(UnitTermKind::Identity, 1, -p.loStride);
  off.addConstant(-p.loBase);
  if (!off.isConstant()) return std::nullopt;
  return off.constant();
}

// The operand covers the buffer's whole instance, densely, from its first element.
bool coversInstance(const Graph& g, const Schedule& s, const NestOperand& op) {
  const MemorySlice& sl = g.slice(op.slice);
  return !op.staged && dense(sl) && sl.numel() == s.buffers[sl.buffer.value].instanceSize && instanceOffset(g, s, op.slice) == 0;
}

// Written once, by a move of a dense global slice in the same element order, which no node of this
// kernel writes: the buffer can be that slice.
std::optional<BufferHome> copySource(const Graph& g, const Schedule& s, const std::vector<LoopGroup>& groups, const Uses& u, size_t b) {
  if (u.graphWriters[b].size() != 1) return std::nullopt;
  const Use* write = nullptr;
  for (const Use& use : u.inStage[b])
    if (use.write) write = &use;
  if (!write) return std::nullopt;
  NodeId copy = groups[write->group].nodes[write->member];
  const LoopNest& nest = groups[write->group].nests[write->member];
  if (!g.node(copy).isMove() || !coversInstance(g, s, nest.output)) return std::nullopt;
  const NestOperand& src = nest.inputs[0];
  BufferId from = g.slice(src.slice).buffer;
  if (src.staged || src.strides != nest.output.strides || s.buffers[from.value].placement != Placement::Global) return std::nullopt;
  int kernel = s.buffers[b].kernel;
  for (NodeId w : u.graphWriters[from.value])
    if (s.kernelOf[w.value] == kernel) return std::nullopt;
  return BufferHome{HomeKind::CopySource, src.slice, copy};
}

// The band that holds group `gi`.
const LoopBand& bandOf(const std::vector<LoopBand>& bands, size_t gi) {
  for (const LoopBand& band : bands)
    if (std::find(band.groups.begin(), band.groups.end(), gi) != band.groups.end()) return band;
  GIR_UNREACHABLE("every group is in a band");
}

// The last group touching the buffer only reads it, element for element and before writing there, as
// it writes a graph output that nothing else touches: the buffer can be that output's slice.
std::optional<BufferHome> outputHome(const Graph& g, const Schedule& s, const std::vector<LoopGroup>& groups,
                                     const std::vector<LoopBand>& bands, const Uses& u, size_t b,
                                     const std::vector<bool>& streamed, const std::vector<bool>& claimed) {
  size_t last = 0;
  for (const Use& use : u.inStage[b]) last = std::max(last, use.group);
  const LoopGroup& grp = groups[last];
  if (!grp.fused || std::count(grp.reduced.begin(), grp.reduced.end(), true) > 0) return std::nullopt;
  size_t lastRead = 0;
  for (const Use& use : u.inStage[b]) {
    if (use.group != last) continue;
    if (use.write || !coversInstance(g, s, *use.operand)) return std::nullopt;
    lastRead = std::max(lastRead, use.member);
  }
  for (size_t k = lastRead + 1; k < grp.nodes.size(); ++k) {
    const NestOperand& out = grp.nests[k].output;
    const MemorySlice& sl = g.slice(out.slice);
    size_t o = sl.buffer.value;
    const BufferPlan& p = s.buffers[o];
    if (p.placement != Placement::Global || !p.deviceLevel || g.buffer(sl.buffer).role != BufferRole::Output || claimed[o] ||
        (!streamed.empty() && streamed[o]) || u.graphTouches[o] != 1 || out.staged || !dense(sl) ||
        sl.numel() != s.buffers[b].instanceSize)
      continue;
    bool sameWalk = true;
    for (const Use& use : u.inStage[b])
      if (use.group == last) sameWalk = sameWalk && use.operand->strides == out.strides;
    if (!sameWalk) continue;
    // In a band, outer iteration i writes the output cell that holds the buffer's cell i: no member may
    // touch the buffer outside its own cell (LoopBands.h).
    const LoopBand& band = bandOf(bands, last);
    std::vector<const LoopGroup*> members;
    for (size_t m : band.groups) members.push_back(&groups[m]);
    if (band.depth > 0 && !bandPartitions(g, members, BufferId{static_cast<uint32_t>(b)}, band.depth)) return std::nullopt;
    return BufferHome{HomeKind::Output, out.slice, NodeId{}};
  }
  return std::nullopt;
}

}  // namespace

std::vector<BufferHome> bufferHomes(const Graph& g, const Schedule& s, const std::vector<LoopGroup>& groups,
                                    const std::vector<LoopBand>& bands, const std::vector<bool>& values,
                                    const std::vector<bool>& streamed, int64_t maxInstanceElements) {
  Uses u = collectUses(g, groups);
  std::vector<BufferHome> homes(g.buffers().size());
  std::vector<bool> claimed(g.buffers().size(), false);
  for (size_t b = 0; b < homes.size(); ++b) {
    const BufferPlan& p = s.buffers[b];
    if (p.placement != Placement::PerUnit || p.deviceLevel || values[b] || u.inStage[b].empty() || (!streamed.empty() && streamed[b]) ||
        p.instanceSize > maxInstanceElements)
      continue;
    if (auto home = copySource(g, s, groups, u, b)) {
      homes[b] = *home;
    } else if (auto out = outputHome(g, s, groups, bands, u, b, streamed, claimed)) {
      homes[b] = *out;
      claimed[g.slice(out->slice).buffer.value] = true;
    }
  }
  return homes;
}

}  // namespace gir::codegen
