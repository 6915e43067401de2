// Lane chains: which consecutive nodes share one lane loop, and which per-unit buffers become values.
#include "codegen/schedule/LaneChains.h"

#include <map>

namespace gir::codegen {

bool isDenseSlice(const MemorySlice& s) { return s.contiguousWidth() == s.numel(); }

bool isPerUnit(Placement p) { return p == Placement::PerUnit || p == Placement::PerBlockUnits; }


bool overwritesWhatItReads(const Graph& g, const Node& n) {
  bool elementwise = n.kind() != NodeKind::Reduce && n.kind() != NodeKind::Broadcast;
  for (SliceId o : n.outputs)
    for (SliceId i : n.inputs)
      if (g.slice(o).buffer == g.slice(i).buffer && !(elementwise && g.slice(o).samePattern(g.slice(i)))) return true;
  return false;
}

namespace {

class ChainFinder {
 public:
  ChainFinder(const Graph& g, const Schedule& s, int k, int64_t lanes)
      : s_(s), g_(g), ids_(s.kernels[static_cast<size_t>(k)].program), W_(lanes) {}

  KernelChains run() {
    KernelChains out;
    for (size_t i = 0; i < ids_.size();) {
      LaneChain c = grow(i);
      if (c.end - c.begin >= 2) {
        out.chains.push_back(c);
        i = c.end;
      } else {
        ++i;
      }
    }
    out.valueBuffers = values(out.chains);
    return out;
  }

 private:
  bool registers(SliceId s) const { return isPerUnit(s_.buffers[g_.slice(s).buffer.value].placement); }
  uint32_t bufferOf(SliceId s) const { return g_.slice(s).buffer.value; }

  // A node that can be a chain member at all: an unguarded move or elementwise node with one output
  // that reads nothing from global memory. A load keeps its own loop, so that a lane issues all of
  // its loads before it waits for the first (measured on an H200, docs/gpu.md "Lane chains": loads
  // inside the chain cost SiLU 18 -> 26 us and RMSNorm 64 -> 110 us).
  bool member(const Node& n) const {
    if (n.kind() != NodeKind::Elementwise && n.kind() != NodeKind::Move) return false;
    for (SliceId s : n.inputs)
      if (s_.buffers[bufferOf(s)].placement == Placement::Global) return false;
    if (n.outputs.size() != 1 || overwritesWhatItReads(g_, n)) return false;
    UnitDomain d = g_.domainOf(n);
    int64_t blocks = (g_.units + g_.unitsPerBlock - 1) / g_.unitsPerBlock;
    return d.begin == 0 && d.end >= blocks * g_.unitsPerBlock;
  }

  // The lane loop of a member: its output's element count and shift.
  std::pair<int64_t, int64_t> loopOf(const Node& n) const {
    SliceId out = n.outputs[0];
    int64_t shift = registers(out) ? s_.sliceRel[out.value] % W_ : 0;
    return {g_.slice(out).numel(), shift};
  }

  // Whether input `in` reads, element for element of the loop, what output `out` wrote.
  bool sameElement(SliceId in, SliceId out, int64_t elements) const {
    const MemorySlice& s = g_.slice(in);
    return registers(in) && registers(out) && s.numel() == elements && isDenseSlice(s) && isDenseSlice(g_.slice(out)) &&
           s_.sliceRel[in.value] == s_.sliceRel[out.value];
  }

  // The longest chain starting at position i (a single node when none).
  LaneChain grow(size_t i) {
    LaneChain c{i, i + 1, 0, 0};
    const Node& first = g_.node(ids_[i]);
    if (!member(first)) return c;
    std::tie(c.elements, c.shift) = loopOf(first);
    std::map<uint32_t, SliceId> written;  // buffer -> the chain's slice that wrote it
    std::set<uint32_t> read;
    auto take = [&](const Node& n) {
      for (SliceId s : n.inputs) read.insert(bufferOf(s));
      written[bufferOf(n.outputs[0])] = n.outputs[0];
    };
    take(first);
    for (size_t j = i + 1; j < ids_.size(); ++j) {
      const Node& n = g_.node(ids_[j]);
      if (!member(n) || loopOf(n) != std::make_pair(c.elements, c.shift)) break;
      bool fits = true;
      for (SliceId s : n.inputs) {
        auto w = written.find(bufferOf(s));
        if (w != written.end() && !sameElement(s, w->second, c.elements)) fits = false;
      }
      uint32_t out = bufferOf(n.outputs[0]);
      if (written.count(out) || read.count(out)) fits = false;
      if (!fits) break;
      take(n);
      c.end = j + 1;
    }
    return c;
  }

  // Register buffers written by one node of the kernel, inside a chain, and read (by someone) only
  // by later nodes of that chain, which read them element for element (grow() admits no other reader).
  std::set<uint32_t> values(const std::vector<LaneChain>& chains) const {
    std::map<uint32_t, std::vector<size_t>> writers, readers;  // buffer -> positions
    for (size_t j = 0; j < ids_.size(); ++j) {
      const Node& n = g_.node(ids_[j]);
      for (SliceId s : n.inputs) readers[bufferOf(s)].push_back(j);
      for (SliceId s : n.outputs) writers[bufferOf(s)].push_back(j);
    }
    std::set<uint32_t> out;
    for (const auto& c : chains)
      for (size_t j = c.begin; j < c.end; ++j) {
        SliceId o = g_.node(ids_[j]).outputs[0];
        uint32_t b = bufferOf(o);
        if (!registers(o) || writers[b].size() != 1 || readers[b].empty()) continue;
        bool inside = true;
        for (size_t r : readers[b]) inside = inside && r > j && r < c.end;
        if (inside) out.insert(b);
      }
    return out;
  }

  const Schedule& s_;
  const Graph& g_;
  const std::vector<NodeId>& ids_;
  int64_t W_;
};

}  // namespace

KernelChains findLaneChains(const Graph& g, const Schedule& s, int kernel, int64_t lanes) { return ChainFinder(g, s, kernel, lanes).run(); }

}  // namespace gir::codegen
