// Building the GIR view: use-def gives the edges, kernelIndices the clusters, computeCost the totals.
#include "viz/GirView.h"

#include <tuple>

#include "core/gir/Printer.h"
#include "rewrite/Cost.h"
#include "core/gir/OpSpelling.h"

namespace gir::viz {

std::string nodeLabel(const Graph& g, const Node& n) {
  switch (n.kind()) {
    case NodeKind::Move: {  // what it moves and where: "move x\ndram -> local" (issue #18: 499 nodes read "move")
      if (n.inputs.empty() || n.outputs.empty()) return opSpelling(n);
      const Buffer& from = g.buffer(g.slice(n.inputs.front()).buffer);
      const Buffer& to = g.buffer(g.slice(n.outputs.front()).buffer);
      return opSpelling(n) + " " + from.name + "\n" + from.level + " -> " + to.level;
    }
    case NodeKind::Elementwise:
    case NodeKind::Reduce:
    case NodeKind::Broadcast: return opSpelling(n);
    case NodeKind::Sync: return opSpelling(n) + " " + std::string(scopeName(n.syncScope()));
  }
  return "?";
}

ItemKind itemKindOf(const Node& n) {
  switch (n.kind()) {
    case NodeKind::Move: return ItemKind::Movement;
    case NodeKind::Elementwise:
    case NodeKind::Reduce:
    case NodeKind::Broadcast: return ItemKind::Compute;
    case NodeKind::Sync: return ItemKind::Sync;
  }
  return ItemKind::Compute;
}

namespace {

// "t0 (dram), r0_0 (reg)": the buffers of a node's slices with their levels, for find and tooltips
// (the printed IR line names slices, %s6, not buffers).
std::string buffersText(const Graph& g, const std::vector<SliceId>& slices) {
  std::string s;
  for (SliceId id : slices) {
    const Buffer& b = g.buffer(g.slice(id).buffer);
    s += (s.empty() ? "" : ", ") + b.name + " (" + b.level + ")";
  }
  return s;
}

// Builds nodes and edges of one graph; node keys are "n<id>" and "b<id>" so two versions of the
// same graph share keys.
class Builder {
 public:
  explicit Builder(const Graph& g) : g_(g), ud_(computeUseDef(g)), kernels_(kernelIndices(g)) {}

  VizGraph build() {
    int kernels = kernelCount(g_);
    for (int k = 0; k < kernels; ++k) out_.clusters.push_back({"kernel " + std::to_string(k), false, false});
    for (uint32_t i = 0; i < g_.nodes().size(); ++i)
      if (!g_.nodes()[i].erased) addNode(NodeId(i));
    for (uint32_t i = 0; i < g_.nodes().size(); ++i)
      if (!g_.nodes()[i].erased) addEdges(NodeId(i));
    mergeParallelEdges(out_);
    out_.levelBytes = computeCost(g_).bytesPerLevel;
    return std::move(out_);
  }

 private:
  void addNode(NodeId id) {
    const Node& n = g_.node(id);
    VizNode v;
    v.key = "n" + std::to_string(id.value);
    v.label = nodeLabel(g_, n);
    v.detail = describeNode(g_, id) + "; reads " + buffersText(g_, n.inputs) + "; writes " + buffersText(g_, n.outputs);
    v.kind = itemKindOf(n);
    v.cluster = kernels_[id.value];
    v.source = id.value;
    nodeIndex_[id.value] = static_cast<int>(out_.nodes.size());
    out_.nodes.push_back(std::move(v));
  }

  int terminal(BufferId b) {
    auto it = terminalIndex_.find(b.value);
    if (it != terminalIndex_.end()) return it->second;
    const Buffer& buf = g_.buffer(b);
    VizNode v;
    v.key = "b" + std::to_string(b.value);
    v.label = buf.name;
    v.detail = std::string(roleName(buf.role)) + " buffer " + buf.name + " at " + buf.level;
    v.kind = ItemKind::Terminal;
    v.source = b.value;
    int idx = static_cast<int>(out_.nodes.size());
    out_.nodes.push_back(std::move(v));
    terminalIndex_.emplace(b.value, idx);
    return idx;
  }

  int64_t bytesOf(SliceId s, const Node& reader) const {
    UnitDomain d = g_.domainOf(reader);
    return g_.slice(s).numel() * 4 * (d.end - d.begin);
  }

  void addEdges(NodeId id) {
    const Node& n = g_.node(id);
    int self = nodeIndex_.at(id.value);
    for (SliceId s : n.inputs) {
      const MemorySlice& sl = g_.slice(s);
      const std::string& level = g_.buffer(sl.buffer).level;
      const std::vector<NodeId>* from = &ud_.writers[s.value];
      if (from->empty() && s.value < ud_.memoryWriters.size()) from = &ud_.memoryWriters[s.value];
      if (!from->empty()) {
        for (NodeId w : *from)
          if (w != id && nodeIndex_.count(w.value)) out_.edges.push_back({nodeIndex_.at(w.value), self, level, bytesOf(s, n)});
        continue;
      }
      if (g_.buffer(sl.buffer).role == BufferRole::Input) out_.edges.push_back({terminal(sl.buffer), self, level, bytesOf(s, n)});
    }
    for (SliceId s : n.outputs) {
      const MemorySlice& sl = g_.slice(s);
      if (g_.buffer(sl.buffer).role != BufferRole::Output) continue;
      out_.edges.push_back({self, terminal(sl.buffer), g_.buffer(sl.buffer).level, bytesOf(s, n)});
    }
  }

  const Graph& g_;
  UseDef ud_;
  std::vector<int> kernels_;
  VizGraph out_;
  std::map<uint32_t, int> nodeIndex_, terminalIndex_;
};

bool sameNode(const Node& a, const Node& b) {
  return a.payload == b.payload && a.inputs == b.inputs && a.outputs == b.outputs && a.domain == b.domain;
}

using EdgeKey = std::tuple<std::string, std::string, std::string>;

EdgeKey edgeKey(const VizGraph& g, const VizEdge& e) { return {g.nodes[e.from].key, g.nodes[e.to].key, e.level}; }

}  // namespace

VizGraph girToViz(const Graph& g) { return Builder(g).build(); }

VizGraph girDiff(const Graph& before, const Graph& after) {
  VizGraph a = girToViz(after);
  VizGraph b = girToViz(before);
  std::map<std::string, int> keyIndex;
  for (size_t i = 0; i < a.nodes.size(); ++i) keyIndex[a.nodes[i].key] = static_cast<int>(i);
  for (VizNode& n : a.nodes) {
    if (n.kind == ItemKind::Terminal) continue;
    uint32_t id = static_cast<uint32_t>(n.source);
    bool existed = id < before.nodes().size() && !before.nodes()[id].erased;
    if (!existed) n.state = DiffState::New;
    else if (!sameNode(before.nodes()[id], after.nodes()[id])) n.state = DiffState::Changed;
  }
  // Removed nodes join the after-graph's view, kept in their old kernel when it still exists.
  std::map<int, int> bIndexToA;
  for (size_t i = 0; i < b.nodes.size(); ++i) {
    auto it = keyIndex.find(b.nodes[i].key);
    if (it != keyIndex.end()) {
      bIndexToA[static_cast<int>(i)] = it->second;
      continue;
    }
    VizNode gone = b.nodes[i];
    gone.state = DiffState::Removed;
    if (gone.cluster >= static_cast<int>(a.clusters.size())) gone.cluster = -1;
    bIndexToA[static_cast<int>(i)] = static_cast<int>(a.nodes.size());
    keyIndex[gone.key] = static_cast<int>(a.nodes.size());
    a.nodes.push_back(std::move(gone));
  }
  std::map<EdgeKey, int64_t> beforeEdges;
  for (const VizEdge& e : b.edges) beforeEdges[edgeKey(b, e)] = e.bytes;
  std::set<EdgeKey> afterKeys;
  for (VizEdge& e : a.edges) {
    EdgeKey k = edgeKey(a, e);
    afterKeys.insert(k);
    auto it = beforeEdges.find(k);
    if (it == beforeEdges.end()) e.state = DiffState::New;
    else if (it->second != e.bytes) e.state = DiffState::Changed;
  }
  for (const VizEdge& e : b.edges) {
    if (afterKeys.count(edgeKey(b, e))) continue;
    VizEdge gone = e;
    gone.from = bIndexToA.at(e.from);
    gone.to = bIndexToA.at(e.to);
    gone.state = DiffState::Removed;
    a.edges.push_back(gone);
  }
  return a;
}

}  // namespace gir::viz
