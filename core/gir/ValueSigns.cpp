// Sign facts from the graph's structure (ValueSigns.h).
#include "core/gir/ValueSigns.h"

#include <algorithm>
#include <optional>

namespace gir {

namespace {

// The live nodes other than syncs that write buffer b, each once (from the graph's use-def).
std::vector<NodeId> writersOf(const Graph& g, const UseDef& ud, BufferId b) {
  std::vector<NodeId> out;
  for (SliceId s : ud.slicesOfBuffer[b.value])
    for (NodeId w : ud.writers[s.value])
      if (!g.node(w).isSync() && std::find(out.begin(), out.end(), w) == out.end()) out.push_back(w);
  return out;
}

// The node that wrote what `s` reads: the sole writer of its buffer, through a slice of the same pattern.
std::optional<NodeId> writerOf(const Graph& g, const UseDef& ud, SliceId s) {
  std::vector<NodeId> w = writersOf(g, ud, g.slice(s).buffer);
  if (w.size() != 1) return std::nullopt;
  const Node& n = g.node(w[0]);
  if (n.outputs.size() != 1 || !g.slice(n.outputs[0]).samePattern(g.slice(s))) return std::nullopt;
  return w[0];
}

// Whether `sub` computes A - max(A) broadcast back along the axes the max took.
bool subtractsItsMax(const Graph& g, const UseDef& ud, const Node& sub) {
  if (sub.kind() != NodeKind::Elementwise || sub.inputs.size() != 2) return false;
  const auto& p = std::get<ElementwisePayload>(sub.payload);
  if (p.op != ElementwiseOp::Sub || p.operands.size() != 2 || p.operands[0].isImmediate() || p.operands[1].isImmediate()) return false;
  SliceId a = sub.inputs[static_cast<size_t>(p.operands[0].input)], b = sub.inputs[static_cast<size_t>(p.operands[1].input)];
  BufferId aBuffer = g.slice(a).buffer;
  size_t aWriters = writersOf(g, ud, aBuffer).size();
  if (aWriters > 1 || (aWriters == 0 && g.buffer(aBuffer).role != BufferRole::Input)) return false;
  std::optional<NodeId> bcast = writerOf(g, ud, b);
  if (!bcast || g.node(*bcast).kind() != NodeKind::Broadcast || g.node(*bcast).inputs.size() != 1) return false;
  std::optional<NodeId> max = writerOf(g, ud, g.node(*bcast).inputs[0]);
  if (!max || g.node(*max).kind() != NodeKind::Reduce || g.node(*max).inputs.size() != 1) return false;
  const auto& r = std::get<ReducePayload>(g.node(*max).payload);
  return r.op == ReduceOp::Max && r.axes == std::get<BroadcastPayload>(g.node(*bcast).payload).axes &&
         g.slice(g.node(*max).inputs[0]).samePattern(g.slice(a)) && g.slice(a).shape == g.slice(b).shape;
}

}  // namespace

std::vector<bool> nonPositiveSlices(const Graph& g) {
  std::vector<bool> out(g.slices().size(), false);
  UseDef ud = computeUseDef(g);
  for (uint32_t s = 0; s < g.slices().size(); ++s) {
    if (g.slice(SliceId{s}).erased) continue;
    std::optional<NodeId> w = writerOf(g, ud, SliceId{s});
    out[s] = w && subtractsItsMax(g, ud, g.node(*w));
  }
  return out;
}

}  // namespace gir
