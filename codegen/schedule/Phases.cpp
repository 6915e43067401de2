// Levels (stages, phases) of a GIR-Graph's nodes (see Phases.h).
#include "codegen/schedule/Phases.h"

#include <algorithm>
#include <limits>
#include <set>

#include "core/gir/Interpreter.h"

namespace gir::codegen {

std::vector<int> levelNodes(size_t nodeCount, const std::vector<NodeId>& order, const LevelEdges& edges, LevelSink sink) {
  std::vector<int> level(nodeCount, -1);
  for (NodeId id : order) level[id.value] = 0;
  for (NodeId id : order)  // predecessors come first, so a node's level is final when it is reached
    for (const LevelEdge& e : edges[id.value])
      if (level[e.to.value] >= 0) level[e.to.value] = std::max(level[e.to.value], level[id.value] + e.weight);
  if (sink == LevelSink::Earliest) return level;
  // Nodes without successors keep their place: moving them later would keep their inputs alive longer.
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    int latest = std::numeric_limits<int>::max();
    for (const LevelEdge& e : edges[it->value])
      if (level[e.to.value] >= 0) latest = std::min(latest, level[e.to.value] - e.weight);
    if (latest != std::numeric_limits<int>::max()) level[it->value] = std::max(level[it->value], latest);
  }
  return level;
}

namespace {

// A sync orders units only when it spans more than one: device syncs, and block syncs of real blocks.
bool splitsUnits(const Graph& g, const Node& n) {
  if (!n.isSync()) return false;
  return n.syncScope() == Scope::Device || (n.syncScope() == Scope::Block && g.unitsPerBlock > 1);
}

// Node pairs (earlier, later) between which some element passes from one unit to another, in the
// interpreter's order: the later node must run in a later phase. Only device- and block-scoped buffers are
// tracked: the memory checker rejects a unit- or lane-scoped element touched by two units, so those never
// carry data between units, and they hold most of the elements (one slice per unit).
class CrossUnitEdges : public AccessObserver {
 public:
  explicit CrossUnitEdges(const Graph& g) : last_(g.buffers().size()), readers_(g.buffers().size()) {
    for (size_t b = 0; b < g.buffers().size(); ++b) {
      const gir::Buffer& buf = g.buffers()[b];
      const LevelDecl* l = buf.erased ? nullptr : g.levelOf(BufferId(static_cast<uint32_t>(b)));
      if (!l || l->scope == Scope::Unit || l->scope == Scope::Lane) continue;
      last_[b].assign(static_cast<size_t>(buf.numel()), {-1, -1});
      readers_[b].resize(last_[b].size());
    }
  }
  void access(NodeId node, int64_t unit, BufferId b, const std::vector<int64_t>& elements, bool isWrite) override {
    if (last_[b.value].empty()) return;  // unit- or lane-private
    int32_t n = static_cast<int32_t>(node.value), me = static_cast<int32_t>(unit);
    for (int64_t e : elements) {
      auto& w = last_[b.value][e];
      auto& rs = readers_[b.value][e];
      if (w.first >= 0 && w.second != me) edges.insert({w.first, n});
      if (!isWrite) {
        if (rs.empty() || rs.back() != std::make_pair(n, me)) rs.push_back({n, me});
        continue;
      }
      for (const auto& r : rs)
        if (r.second != me) edges.insert({r.first, n});
      rs.clear();
      w = {n, me};
    }
  }
  std::set<std::pair<int64_t, int64_t>> edges;

 private:
  std::vector<std::vector<std::pair<int32_t, int32_t>>> last_;                 // (node, unit) per element
  std::vector<std::vector<std::vector<std::pair<int32_t, int32_t>>>> readers_;  // since the last write
};

}  // namespace

Expected<std::vector<int>> phasesOf(const Graph& g, const std::vector<NodeId>& order, PhaseSplit split) {
  auto succ = successors(g, computeUseDef(g));
  LevelEdges edges(g.nodes().size());
  for (NodeId id : order) {
    int w = split == PhaseSplit::Sync && splitsUnits(g, g.node(id)) ? 1 : 0;
    for (NodeId s : succ[id.value]) edges[id.value].push_back({s, w});
  }
  if (split == PhaseSplit::Data) {
    CrossUnitEdges obs(g);
    auto run = interpret(g, randomInputs(g, 1), &obs);
    if (!run) return run.takeError();
    for (const auto& [a, b] : obs.edges) edges[a].push_back({NodeId(static_cast<uint32_t>(b)), 1});
  }
  return levelNodes(g.nodes().size(), order, edges, LevelSink::ToConsumers);
}

}  // namespace gir::codegen
