// Loop bands (see LoopBands.h): greedy over the stage's groups; a band's depth only shrinks as groups
// join, and every pair of members is checked again at the new depth.
#include "codegen/schedule/LoopBands.h"

#include <algorithm>
#include <utility>

namespace gir::codegen {

namespace {

// Loops [0, d) that both groups have with equal extents and that neither reduces.
size_t sharedPrefix(const LoopGroup& a, const LoopGroup& b) {
  size_t d = 0;
  while (d < a.extents.size() && d < b.extents.size() && a.extents[d] == b.extents[d] && !a.reduced[d] && !b.reduced[d]) ++d;
  return d;
}

int64_t innerIterations(const LoopGroup& grp, size_t depth) {
  int64_t n = 1;
  for (size_t d = depth; d < grp.extents.size(); ++d) n *= grp.extents[d];
  return n;
}

struct Access {
  const LoopGroup* group;
  const NestOperand* operand;
  bool write;
};

void collect(const Graph& g, const LoopGroup& grp, BufferId b, std::vector<Access>& out) {
  for (const LoopNest& nest : grp.nests) {
    for (const NestOperand& in : nest.inputs)
      if (g.slice(in.slice).buffer == b) out.push_back({&grp, &in, false});
    if (g.slice(nest.output.slice).buffer == b) out.push_back({&grp, &nest.output, true});
  }
}

// Every access walks the buffer from the same offset with the same outer strides, and the outer
// loops, taken by increasing stride, each step past all that the smaller ones and the inner loops
// cover: outer iteration i touches a cell no other outer iteration touches, in every access.
bool partitioned(const Graph& g, const std::vector<Access>& accesses, size_t depth) {
  const Access& first = accesses.front();
  const MemorySlice& base = g.slice(first.operand->slice);
  int64_t span = 1;
  for (const Access& a : accesses) {
    const MemorySlice& s = g.slice(a.operand->slice);
    if (!(s.offset == base.offset)) return false;
    const std::vector<int64_t>& strides = a.operand->strides;
    for (size_t d = 0; d < depth; ++d)
      if (strides[d] != first.operand->strides[d]) return false;
    int64_t inner = 1;
    for (size_t d = depth; d < strides.size(); ++d) {
      if (strides[d] < 0) return false;
      inner += (a.group->extents[d] - 1) * strides[d];
    }
    span = std::max(span, inner);
  }
  std::vector<std::pair<int64_t, int64_t>> outer;  // (stride, extent) of the outer loops that step
  for (size_t d = 0; d < depth; ++d)
    if (first.group->extents[d] > 1) outer.push_back({first.operand->strides[d], first.group->extents[d]});
  std::sort(outer.begin(), outer.end());
  int64_t covered = span;
  for (auto [stride, extent] : outer) {
    if (stride < covered) return false;
    covered += stride * (extent - 1);
  }
  return true;
}

// Running `a` and `b` interleaved by their first `depth` loops keeps every dependence between them.
bool interleavable(const Graph& g, const LoopGroup& a, const LoopGroup& b, size_t depth) {
  std::vector<bool> seen(g.buffers().size(), false);
  for (const LoopGroup* grp : {&a, &b})
    for (const LoopNest& nest : grp->nests) seen[g.slice(nest.output.slice).buffer.value] = true;
  for (size_t buf = 0; buf < seen.size(); ++buf) {  // only buffers one of them writes can conflict
    if (!seen[buf]) continue;
    std::vector<Access> inA, inB;
    collect(g, a, BufferId{static_cast<uint32_t>(buf)}, inA);
    collect(g, b, BufferId{static_cast<uint32_t>(buf)}, inB);
    if (inA.empty() || inB.empty()) continue;
    inA.insert(inA.end(), inB.begin(), inB.end());
    if (!partitioned(g, inA, depth)) return false;
  }
  return true;
}

// The depth at which the band with `next` added shares its loops, or 0 when it cannot.
size_t joinDepth(const Graph& g, const std::vector<LoopGroup>& groups, const LoopBand& band, size_t next,
                 int64_t minInner) {
  const LoopGroup& head = groups[band.groups.front()];
  const LoopGroup& cand = groups[next];
  if (!head.fused || !cand.fused) return 0;
  if (!(g.domainOf(g.node(head.nodes[0])) == g.domainOf(g.node(cand.nodes[0])))) return 0;
  size_t depth = sharedPrefix(head, cand);
  if (band.groups.size() > 1) depth = std::min(depth, band.depth);
  auto shortInside = [&](size_t d) {
    if (innerIterations(cand, d) < minInner) return true;
    for (size_t k : band.groups)
      if (innerIterations(groups[k], d) < minInner) return true;
    return false;
  };
  while (depth > 0 && shortInside(depth)) --depth;
  if (depth == 0) return 0;
  std::vector<size_t> members = band.groups;
  members.push_back(next);
  for (size_t i = 0; i < members.size(); ++i)
    for (size_t j = i + 1; j < members.size(); ++j)
      if (!interleavable(g, groups[members[i]], groups[members[j]], depth)) return 0;
  return depth;
}

}  // namespace

std::vector<LoopBand> bandGroups(const Graph& g, const std::vector<LoopGroup>& groups, int64_t minInnerIterations) {
  std::vector<LoopBand> bands;
  for (size_t i = 0; i < groups.size(); ++i) {
    if (!bands.empty()) {
      if (size_t depth = joinDepth(g, groups, bands.back(), i, minInnerIterations)) {
        bands.back().groups.push_back(i);
        bands.back().depth = depth;
        continue;
      }
    }
    bands.push_back(LoopBand{{i}, 0});
  }
  return bands;
}

bool bandPartitions(const Graph& g, const std::vector<const LoopGroup*>& members, BufferId b, size_t depth) {
  std::vector<Access> accesses;
  for (const LoopGroup* grp : members) collect(g, *grp, b, accesses);
  return accesses.empty() || partitioned(g, accesses, depth);
}

}  // namespace gir::codegen
