// Sign facts from the graph's structure (ValueSigns.h).
#include "core/gir/ValueSigns.h"

#include <optional>

namespace gir {

namespace {

// Per buffer: how many live nodes write it, and the last of them.
struct Writers {
  std::vector<int> count;
  std::vector<NodeId> last;
};

Writers writersOf(const Graph& g) {
  Writers w{std::vector<int>(g.buffers().size(), 0), std::vector<NodeId>(g.buffers().size())};
  for (uint32_t i = 0; i < g.nodes().size(); ++i) {
    const Node& n = g.node(NodeId{i});
    if (n.erased || n.isSync()) continue;
    for (SliceId s : n.outputs) {
      ++w.count[g.slice(s).buffer.value];
      w.last[g.slice(s).buffer.value] = NodeId{i};
    }
  }
  return w;
}

// The node that wrote what `s` reads: the sole writer of its buffer, through a slice of the same pattern.
std::optional<NodeId> writerOf(const Graph& g, const Writers& writers, SliceId s) {
  uint32_t b = g.slice(s).buffer.value;
  if (writers.count[b] != 1) return std::nullopt;
  const Node& w = g.node(writers.last[b]);
  if (w.outputs.size() != 1 || !g.slice(w.outputs[0]).samePattern(g.slice(s))) return std::nullopt;
  return writers.last[b];
}

// Whether `sub` computes A - max(A) broadcast back along the axes the max took.
bool subtractsItsMax(const Graph& g, const Writers& writers, const Node& sub) {
  if (sub.kind() != NodeKind::Elementwise || sub.inputs.size() != 2) return false;
  const auto& p = std::get<ElementwisePayload>(sub.payload);
  if (p.op != ElementwiseOp::Sub || p.operands.size() != 2 || p.operands[0].isImmediate() || p.operands[1].isImmediate()) return false;
  SliceId a = sub.inputs[static_cast<size_t>(p.operands[0].input)], b = sub.inputs[static_cast<size_t>(p.operands[1].input)];
  BufferId aBuffer = g.slice(a).buffer;
  int aWriters = writers.count[aBuffer.value];
  if (aWriters > 1 || (aWriters == 0 && g.buffer(aBuffer).role != BufferRole::Input)) return false;
  std::optional<NodeId> bcast = writerOf(g, writers, b);
  if (!bcast || g.node(*bcast).kind() != NodeKind::Broadcast || g.node(*bcast).inputs.size() != 1) return false;
  std::optional<NodeId> max = writerOf(g, writers, g.node(*bcast).inputs[0]);
  if (!max || g.node(*max).kind() != NodeKind::Reduce || g.node(*max).inputs.size() != 1) return false;
  const auto& r = std::get<ReducePayload>(g.node(*max).payload);
  return r.op == ReduceOp::Max && r.axes == std::get<BroadcastPayload>(g.node(*bcast).payload).axes &&
         g.slice(g.node(*max).inputs[0]).samePattern(g.slice(a)) && g.slice(a).shape == g.slice(b).shape;
}

}  // namespace

std::vector<bool> nonPositiveSlices(const Graph& g) {
  std::vector<bool> out(g.slices().size(), false);
  Writers writers = writersOf(g);
  for (uint32_t s = 0; s < g.slices().size(); ++s) {
    if (g.slice(SliceId{s}).erased) continue;
    std::optional<NodeId> w = writerOf(g, writers, SliceId{s});
    out[s] = w && subtractsItsMax(g, writers, g.node(*w));
  }
  return out;
}

}  // namespace gir
