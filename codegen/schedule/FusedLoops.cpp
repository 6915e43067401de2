// Loop groups of a stage (see FusedLoops.h): greedy, in stage order, with the open group's members
// re-expressed over the common refinement of their iteration spaces whenever a node joins.
#include "codegen/schedule/FusedLoops.h"

#include <algorithm>
#include <optional>

namespace gir::codegen {

namespace {

BufferId bufferOf(const Graph& g, const NestOperand& op) { return g.slice(op.slice).buffer; }

bool isReduce(const Graph& g, NodeId id) { return g.node(id).kind() == NodeKind::Reduce; }

// Same elements at every iteration: same buffer, same unit offset, same strides over the loops.
bool sameWalk(const Graph& g, const NestOperand& a, const NestOperand& b) {
  const MemorySlice& sa = g.slice(a.slice);
  const MemorySlice& sb = g.slice(b.slice);
  return sa.buffer == sb.buffer && sa.offset == sb.offset && a.strides == b.strides;
}

// A node can be a group's member when nothing is staged and a reduce reduces its innermost loops
// (the accumulator then lives across those loops only).
bool fusable(const Graph& g, NodeId id, const LoopNest& nest) {
  if (nest.output.staged) return false;
  for (const auto& in : nest.inputs)
    if (in.staged) return false;
  if (!isReduce(g, id)) return true;
  return nest.reductionIsInnermost() && std::find(nest.reduced.begin(), nest.reduced.end(), true) != nest.reduced.end();
}

struct OpenGroup {
  std::vector<NodeId> nodes;
  std::vector<LoopNest> own;  // each member's own nest (refined again when the space changes)
  LoopGroup group;            // the members over the current common space
};

bool writes(const Graph& g, const LoopGroup& grp, BufferId b) {
  for (const auto& n : grp.nests)
    if (bufferOf(g, n.output) == b) return true;
  return false;
}

bool reads(const Graph& g, const LoopGroup& grp, BufferId b) {
  for (const auto& n : grp.nests)
    for (const auto& in : n.inputs)
      if (bufferOf(g, in) == b) return true;
  return false;
}

// The group's nodes re-expressed over a new space, or nullopt when one of them does not refine.
std::optional<LoopGroup> regroup(const Graph& g, const std::vector<NodeId>& nodes, const std::vector<LoopNest>& own,
                                 const std::vector<int64_t>& extents) {
  LoopGroup out;
  out.fused = true;
  out.nodes = nodes;
  out.extents = extents;
  out.reduced.assign(extents.size(), false);
  for (size_t k = 0; k < nodes.size(); ++k) {
    auto nest = refineNest(own[k], extents);
    if (!nest) return std::nullopt;
    if (isReduce(g, nodes[k])) {
      if (!nest->reductionIsInnermost()) return std::nullopt;
      bool first = std::find(out.reduced.begin(), out.reduced.end(), true) == out.reduced.end();
      if (!first && nest->reduced != out.reduced) return std::nullopt;
      out.reduced = nest->reduced;
    }
    out.nests.push_back(std::move(*nest));
  }
  return out;
}

// The open group with `id` added, or nullopt when `id` may not join it.
std::optional<LoopGroup> joined(const Graph& g, const OpenGroup& open, NodeId id, const LoopNest& nest) {
  if (nest.iterations() != open.own.front().iterations()) return std::nullopt;
  auto space = commonRefinement(open.group.extents, nest.extents);
  if (!space) return std::nullopt;
  std::vector<NodeId> nodes = open.nodes;
  std::vector<LoopNest> own = open.own;
  nodes.push_back(id);
  own.push_back(nest);
  auto grp = regroup(g, nodes, own, *space);
  if (!grp) return std::nullopt;
  const LoopGroup& before = *grp;  // the last member is the new node
  const LoopNest& mine = before.nests.back();
  BufferId out = bufferOf(g, mine.output);
  for (size_t k = 0; k + 1 < before.nodes.size(); ++k) {
    const LoopNest& other = before.nests[k];
    if (bufferOf(g, other.output) == out) return std::nullopt;  // two writers
    for (const auto& in : other.inputs)
      if (bufferOf(g, in) == out) return std::nullopt;  // it would overwrite what a member reads
  }
  for (const auto& in : mine.inputs) {
    for (size_t k = 0; k + 1 < before.nodes.size(); ++k) {
      const LoopNest& other = before.nests[k];
      if (bufferOf(g, other.output) != bufferOf(g, in)) continue;
      if (isReduce(g, before.nodes[k]) || !sameWalk(g, other.output, in)) return std::nullopt;
    }
  }
  return grp;
}

// Adds `id` to `open` when it may join: same unit domain (the guard of a node that runs for some units
// wraps its group) and `joined` allows it.
bool join(const Graph& g, OpenGroup& open, NodeId id, const LoopNest& nest) {
  if (g.domainOf(g.node(id)) != g.domainOf(g.node(open.nodes[0]))) return false;
  auto grp = joined(g, open, id, nest);
  if (!grp) return false;
  open.nodes.push_back(id);
  open.own.push_back(nest);
  open.group = std::move(*grp);
  return true;
}

// Nothing `id` reads is written by the group, nothing it writes is touched by the group.
bool independent(const Graph& g, const LoopGroup& grp, const LoopNest& nest) {
  for (const auto& in : nest.inputs)
    if (writes(g, grp, bufferOf(g, in))) return false;
  BufferId out = bufferOf(g, nest.output);
  return !writes(g, grp, out) && !reads(g, grp, out);
}

LoopGroup single(NodeId id, LoopNest nest, bool fused) {
  LoopGroup grp;
  grp.fused = fused;
  grp.nodes = {id};
  grp.extents = nest.extents;
  grp.reduced = nest.reduced;
  grp.nests = {std::move(nest)};
  return grp;
}

// True when `last` is a lone move whose output the reduce `id` (not fusable) reads element for
// element, over the same space and unit domain.
bool movesIntoReduce(const Graph& g, const LoopGroup& last, NodeId id, const LoopNest& nest) {
  if (!last.fused || last.nodes.size() != 1 || g.node(last.nodes[0]).kind() != NodeKind::Move || !isReduce(g, id)) return false;
  const LoopNest& move = last.nests[0];
  if (move.extents != nest.extents || nest.inputs.size() != 1 || nest.inputs[0].staged) return false;
  if (g.domainOf(g.node(last.nodes[0])) != g.domainOf(g.node(id))) return false;
  return sameWalk(g, move.output, nest.inputs[0]) && bufferOf(g, move.inputs[0]) != bufferOf(g, move.output);
}

}  // namespace

std::vector<LoopGroup> fuseStage(const Graph& g, const Stage& stage) {
  std::vector<LoopGroup> out, hoisted;
  std::optional<OpenGroup> open;
  auto close = [&] {
    for (auto& h : hoisted) out.push_back(std::move(h));
    hoisted.clear();
    if (!open) return;
    out.push_back(open->nodes.size() == 1 ? single(open->nodes[0], open->own[0], true) : std::move(open->group));
    open.reset();
  };
  // The last node run first, when it commutes with every member of the open group (it was independent
  // of the group when it came; members that joined later may read it): taken out before the group
  // closes, to run after it instead, where the next nodes may join it. A depthwise convolution's
  // first-tap weight broadcast, run first beside the stride-2 input's copy, then joins the taps and is
  // a scalar, not an array stored and read back per unit (docs/cpu.md, "Run after").
  auto carryOut = [&]() -> std::optional<LoopGroup> {
    if (!open || hoisted.empty()) return std::nullopt;
    const LoopGroup& last = hoisted.back();
    if (!last.fused || last.nodes.size() != 1 || !independent(g, open->group, last.nests[0])) return std::nullopt;
    LoopGroup carried = std::move(hoisted.back());
    hoisted.pop_back();
    return carried;
  };
  for (NodeId id : stage.nodes) {
    auto nest = loopNestOf(g, id);
    if (!nest) {  // the emitter reports the error when it emits the node on its own
      close();
      out.push_back(LoopGroup{false, {id}, {}, {}, {}});
      continue;
    }
    bool canFuse = fusable(g, id, *nest);
    if (open && canFuse && join(g, *open, id, *nest)) continue;
    if (open && independent(g, open->group, *nest)) {
      hoisted.push_back(single(id, std::move(*nest), canFuse));
      continue;
    }
    std::optional<LoopGroup> carried = canFuse ? carryOut() : std::nullopt;
    close();
    if (carried) {  // `id` joins it, or it runs first in the group `id` opens, or it runs now
      OpenGroup withCarried{{carried->nodes[0]}, {carried->nests[0]}, *carried};
      if (join(g, withCarried, id, *nest)) {
        open = std::move(withCarried);
        continue;
      }
      if (independent(g, *carried, *nest)) hoisted.push_back(std::move(*carried));
      else out.push_back(std::move(*carried));
    }
    if (!canFuse && !out.empty() && movesIntoReduce(g, out.back(), id, *nest)) {
      LoopGroup& pair = out.back();
      pair.fused = false;
      pair.readsThroughMove = true;
      pair.nodes.push_back(id);
      pair.nests.push_back(std::move(*nest));
      pair.reduced = pair.nests.back().reduced;
      continue;
    }
    if (!canFuse) {
      out.push_back(single(id, std::move(*nest), false));
      continue;
    }
    open = OpenGroup{{id}, {*nest}, single(id, *nest, true)};
  }
  close();
  return out;
}

int forwardedFrom(const Graph& g, const LoopGroup& group, size_t k, size_t input) {
  if (!group.fused) return -1;
  const NestOperand& in = group.nests[k].inputs[input];
  for (size_t j = k; j-- > 0;)
    if (!isReduce(g, group.nodes[j]) && sameWalk(g, group.nests[j].output, in)) return static_cast<int>(j);
  return -1;
}

std::vector<bool> valueBuffers(const Graph& g, const Schedule& s, const std::vector<LoopGroup>& groups) {
  // Per buffer: accesses anywhere in the stage, and accesses a fused group serves from a value.
  std::vector<int> accesses(g.buffers().size(), 0), served(g.buffers().size(), 0);
  for (const LoopGroup& grp : groups) {
    for (NodeId id : grp.nodes) {
      const Node& n = g.node(id);
      for (const auto* list : {&n.inputs, &n.outputs})
        for (SliceId sl : *list) ++accesses[g.slice(sl).buffer.value];
    }
    if (grp.readsThroughMove) served[bufferOf(g, grp.nests[0].output).value] += 2;  // the move's write, the reduce's read
    if (!grp.fused) continue;
    for (size_t k = 0; k < grp.nodes.size(); ++k) {
      if (!isReduce(g, grp.nodes[k])) ++served[bufferOf(g, grp.nests[k].output).value];  // the write
      for (size_t i = 0; i < grp.nests[k].inputs.size(); ++i)
        if (forwardedFrom(g, grp, k, i) >= 0) ++served[bufferOf(g, grp.nests[k].inputs[i]).value];
    }
  }
  std::vector<bool> out(g.buffers().size(), false);
  for (size_t b = 0; b < out.size(); ++b) {
    const BufferPlan& p = s.buffers[b];
    out[b] = p.placement == Placement::PerUnit && !p.deviceLevel && accesses[b] > 1 && served[b] == accesses[b];
  }
  return out;
}

}  // namespace gir::codegen
