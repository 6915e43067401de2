// Streaming-store decisions (StreamingStores.h), shared by the CPU emitter and the CPU cost model.
#include "codegen/cpu/StreamingStores.h"

namespace gir::codegen::cpu {

std::vector<bool> streamedBuffers(const Graph& g, const Schedule& s, int64_t cacheBytes) {
  std::vector<bool> out(g.buffers().size(), false);
  if (cacheBytes <= 0) return out;
  int64_t footprint = 0;
  for (const BufferPlan& p : s.buffers)
    if (p.used && p.placement == Placement::Global) footprint += g.buffer(p.buffer).numel() * 4;
  if (footprint <= cacheBytes) return out;
  std::vector<int> writers(g.buffers().size(), 0), readers(g.buffers().size(), 0);
  for (const Node& n : g.nodes()) {
    if (n.erased || n.isSync()) continue;
    for (SliceId sl : n.outputs) ++writers[g.slice(sl).buffer.value];
    for (SliceId sl : n.inputs) ++readers[g.slice(sl).buffer.value];
  }
  for (const BufferPlan& p : s.buffers) {
    uint32_t b = p.buffer.value;
    out[b] = p.deviceLevel && g.buffer(p.buffer).role == BufferRole::Output && writers[b] == 1 && readers[b] == 0 &&
             g.buffer(p.buffer).numel() * 4 >= kStreamMinBytes;
  }
  return out;
}

// Rows that cut 64-byte lines would mix streaming and plain stores in one line: depthwise + SiLU's
// 56-float rows ran 0.79x as fast streamed (docs/cpu.md, "Streaming stores").
bool streamsOutput(const Graph& g, const std::vector<bool>& streamed, const LoopGroup& grp, size_t k) {
  for (NodeId id : grp.nodes)
    if (g.node(id).kind() == NodeKind::Reduce) return false;  // a line holds element results only
  const LoopNest& nest = grp.nests[k];
  if (nest.output.staged || grp.extents.empty() || nest.output.strides.empty()) return false;
  const MemorySlice& out = g.slice(nest.output.slice);
  int64_t row = grp.extents.back();
  bool lines = row % kLineFloats == 0 && out.offset.constant() % kLineFloats == 0;
  for (const UnitTerm& t : out.offset.terms()) lines = lines && t.coeff % kLineFloats == 0;
  for (size_t d = 0; d + 1 < nest.output.strides.size(); ++d) lines = lines && nest.output.strides[d] % kLineFloats == 0;
  return streamed[out.buffer.value] && nest.output.strides.back() == 1 && lines;
}

}  // namespace gir::codegen::cpu
