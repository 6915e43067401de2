// Graph storage, derived use-def facts, topological order and kernel split.
#include "core/gir/Graph.h"

#include <climits>
#include <algorithm>
#include <functional>
#include <numeric>
#include <queue>

namespace gir {

NarrowedAxes narrowAxes(const std::vector<int64_t>& written) {
  NarrowedAxes out;
  for (int64_t a : written) {
    if (a < INT_MIN || a > INT_MAX) {
      out.outOfRange = a;
      return out;
    }
    out.axes.push_back(static_cast<int>(a));
  }
  return out;
}

int64_t Buffer::numel() const {
  int64_t n = 1;
  for (auto d : shape) n *= d;
  return n;
}

int64_t MemorySlice::numel() const {
  int64_t n = 1;
  for (auto d : shape) n *= d;
  return n;
}

size_t MemorySlice::contiguousFrom() const {
  size_t from = shape.size();
  for (int64_t expected = 1; from > 0; --from) {
    size_t d = from - 1;
    if (shape[d] == 1) continue;
    if (strides[d] != expected) break;
    expected *= shape[d];
  }
  return from;
}

int64_t MemorySlice::contiguousWidth() const {
  int64_t width = 1;
  for (size_t d = contiguousFrom(); d < shape.size(); ++d) width *= shape[d];
  return width;
}

BufferId Graph::addBuffer(Buffer b) {
  buffers_.push_back(std::move(b));
  return BufferId(static_cast<uint32_t>(buffers_.size() - 1));
}

SliceId Graph::addSlice(MemorySlice s) {
  slices_.push_back(std::move(s));
  return SliceId(static_cast<uint32_t>(slices_.size() - 1));
}

NodeId Graph::addNode(Node n) {
  nodes_.push_back(std::move(n));
  return NodeId(static_cast<uint32_t>(nodes_.size() - 1));
}

const LevelDecl* Graph::level(const std::string& n) const {
  for (const auto& l : levels)
    if (l.name == n) return &l;
  return nullptr;
}

std::optional<BufferId> Graph::findBuffer(const std::string& n) const {
  for (uint32_t i = 0; i < buffers_.size(); ++i)
    if (!buffers_[i].erased && buffers_[i].name == n) return BufferId(i);
  return std::nullopt;
}

size_t Graph::liveNodeCount() const {
  return static_cast<size_t>(std::count_if(nodes_.begin(), nodes_.end(), [](const Node& n) { return !n.erased; }));
}

void refreshMemoryWriters(const Graph& g, UseDef& ud, BufferId b) {
  if (ud.memoryWriters.size() < g.slices().size()) ud.memoryWriters.resize(g.slices().size());
  if (ud.slicesOfBuffer.size() <= b.value) return;
  const auto& slices = ud.slicesOfBuffer[b.value];
  std::vector<NodeId> writers;
  bool any = false;
  for (SliceId s : slices) {
    ud.memoryWriters[s.value].clear();
    const MemorySlice& sl = g.slice(s);
    any |= !sl.erased && ud.writers[s.value].empty() && !ud.readers[s.value].empty();
  }
  if (!any || g.buffer(b).role == BufferRole::Input) return;
  for (SliceId t : slices) writers.insert(writers.end(), ud.writers[t.value].begin(), ud.writers[t.value].end());
  std::sort(writers.begin(), writers.end());
  writers.erase(std::unique(writers.begin(), writers.end()), writers.end());
  for (SliceId s : slices)
    if (!g.slice(s).erased && ud.writers[s.value].empty() && !ud.readers[s.value].empty()) ud.memoryWriters[s.value] = writers;
}

UseDef computeUseDef(const Graph& g) {
  UseDef ud;
  ud.writers.resize(g.slices().size());
  ud.readers.resize(g.slices().size());
  ud.memoryWriters.resize(g.slices().size());
  ud.slicesOfBuffer.resize(g.buffers().size());
  for (uint32_t s = 0; s < g.slices().size(); ++s) ud.slicesOfBuffer[g.slices()[s].buffer.value].push_back(SliceId(s));
  for (uint32_t i = 0; i < g.nodes().size(); ++i) {
    const Node& n = g.nodes()[i];
    if (n.erased) continue;
    for (SliceId s : n.outputs) ud.writers[s.value].push_back(NodeId(i));
    for (SliceId s : n.inputs) {
      auto& r = ud.readers[s.value];
      if (r.empty() || r.back() != NodeId(i)) r.push_back(NodeId(i));
    }
  }
  for (uint32_t b = 0; b < g.buffers().size(); ++b)
    if (!g.buffers()[b].erased) refreshMemoryWriters(g, ud, BufferId(b));
  return ud;
}

std::vector<std::vector<NodeId>> successors(const Graph& g, const UseDef& ud) {
  std::vector<std::vector<NodeId>> succ(g.nodes().size());
  for (size_t s = 0; s < ud.writers.size(); ++s) {
    for (NodeId w : ud.writers[s])
      for (NodeId r : ud.readers[s])
        if (w != r) succ[w.value].push_back(r);
    for (NodeId w : ud.memoryWriters[s])
      for (NodeId r : ud.readers[s])
        if (w != r) succ[w.value].push_back(r);
  }
  for (auto& v : succ) {
    std::sort(v.begin(), v.end());
    v.erase(std::unique(v.begin(), v.end()), v.end());
  }
  return succ;
}

namespace {

// Kahn's algorithm with a priority key; nullopt when a cycle remains.
std::optional<std::vector<NodeId>> kahn(const Graph& g, const std::vector<std::vector<NodeId>>& succ,
                                        const std::function<int64_t(NodeId)>& key) {
  size_t n = g.nodes().size();
  std::vector<int> indeg(n, 0);
  for (size_t i = 0; i < n; ++i)
    if (!g.nodes()[i].erased)
      for (NodeId s : succ[i]) ++indeg[s.value];
  using Item = std::pair<int64_t, uint32_t>;
  std::priority_queue<Item, std::vector<Item>, std::greater<Item>> ready;
  size_t live = 0;
  for (uint32_t i = 0; i < n; ++i) {
    if (g.nodes()[i].erased) continue;
    ++live;
    if (indeg[i] == 0) ready.push({key(NodeId(i)), i});
  }
  std::vector<NodeId> order;
  order.reserve(live);
  while (!ready.empty()) {
    uint32_t i = ready.top().second;
    ready.pop();
    order.push_back(NodeId(i));
    for (NodeId s : succ[i])
      if (--indeg[s.value] == 0) ready.push({key(s), s.value});
  }
  if (order.size() != live) return std::nullopt;
  return order;
}

bool isDeviceSync(const Node& n) { return n.isSync() && n.syncScope() == Scope::Device; }

// A device sync that still splits kernels: every one but those `lowered` marks (the syncs a rule asks about).
bool splitsKernels(const Graph& g, NodeId id, const std::vector<bool>& lowered) {
  return isDeviceSync(g.node(id)) && !(id.value < lowered.size() && lowered[id.value]);
}

// Number of device syncs on the longest path into each node, given a topological order.
std::vector<int> syncDepth(const Graph& g, const std::vector<std::vector<NodeId>>& succ,
                           const std::vector<NodeId>& order, const std::vector<bool>& lowered) {
  std::vector<int> depth(g.nodes().size(), 0);
  for (NodeId id : order) {
    int out = depth[id.value] + (splitsKernels(g, id, lowered) ? 1 : 0);
    for (NodeId s : succ[id.value]) depth[s.value] = std::max(depth[s.value], out);
  }
  return depth;
}

// The kernel of each node: as late as its consumers allow (a load feeding only a later kernel
// belongs to that kernel: registers do not live across a device sync), never earlier than the
// device syncs above it. A device sync keeps its depth (it closes kernel `depth`).
std::vector<int> kernelDepth(const Graph& g, const std::vector<std::vector<NodeId>>& succ, const std::vector<NodeId>& order,
                             const std::vector<bool>& lowered = {}) {
  auto depth = syncDepth(g, succ, order, lowered);
  std::vector<int> late = depth;
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    uint32_t n = it->value;
    if (splitsKernels(g, *it, lowered) || succ[n].empty()) continue;
    int k = INT32_MAX;
    for (NodeId s : succ[n]) k = std::min(k, late[s.value]);
    late[n] = std::max(depth[n], k);
  }
  return late;
}

// Unit-scope elements a node reads and writes (its register footprint going in and coming out).
std::pair<int64_t, int64_t> unitElements(const Graph& g, const Node& n) {
  auto count = [&](const std::vector<SliceId>& slices) {
    int64_t e = 0;
    for (SliceId s : slices) {
      const LevelDecl* l = g.level(g.buffer(g.slice(s).buffer).level);
      if (l && l->scope == Scope::Unit) e += g.slice(s).numel();
    }
    return e;
  };
  return {count(n.inputs), count(n.outputs)};
}

// Whether every input the node reads from outside the unit is the same for all units (a LayerNorm's
// gamma and beta, not its row of x).
bool readsOnlyShared(const Graph& g, const Node& n) {
  return std::all_of(n.inputs.begin(), n.inputs.end(), [&](SliceId s) {
    const LevelDecl* l = g.level(g.buffer(g.slice(s).buffer).level);
    return (l && l->scope == Scope::Unit) || g.slice(s).offset.isConstant();
  });
}

// Whether `a` and `b` touch a buffer that one of them writes (buffer-wide, so conservative).
bool conflicts(const Graph& g, const Node& a, const Node& b) {
  auto writes = [&](const Node& n, BufferId buf) {
    return std::any_of(n.outputs.begin(), n.outputs.end(), [&](SliceId s) { return g.slice(s).buffer == buf; });
  };
  auto touchesWritten = [&](const Node& writer, const Node& other) {
    for (const auto* list : {&other.inputs, &other.outputs})
      for (SliceId s : *list)
        if (writes(writer, g.slice(s).buffer)) return true;
    return false;
  };
  return touchesWritten(a, b) || touchesWritten(b, a);
}

// A node that grows a unit's footprint from data every unit shares or already holds (a load of a
// parameter, a broadcast of a scalar into a row) waits until just before its first consumer, so
// what it writes is live only while needed: a LayerNorm row's gamma and beta are loaded where they
// are used, not at the kernel's start (docs/scale.md, "Loads of shared data wait"). Loads of a
// unit's own data keep their place: moving a matrix-vector product's K-chunk loads let the search
// pick 24-chunk templates whose kernels took ptxas 50 s and 3.5 GB each. It never passes a device sync (a kernel's end) or a node touching a
// buffer either of them writes (a block sync included), so the order stays one that every unit's
// program order allows.
void sinkToFirstConsumer(const Graph& g, const std::vector<std::vector<NodeId>>& succ, std::vector<NodeId>& order) {
  std::vector<size_t> pos(g.nodes().size(), 0);
  for (size_t i = 0; i < order.size(); ++i) pos[order[i].value] = i;
  for (size_t i = order.size(); i-- > 0;) {
    const Node& n = g.node(order[i]);
    if (n.isSync() || succ[order[i].value].empty()) continue;
    auto [in, out] = unitElements(g, n);
    if (out <= in || !readsOnlyShared(g, n)) continue;
    size_t consumer = order.size();
    for (NodeId s : succ[order[i].value]) consumer = std::min(consumer, pos[s.value]);
    size_t to = i;
    while (to + 1 < consumer && !isDeviceSync(g.node(order[to + 1])) && !conflicts(g, n, g.node(order[to + 1]))) ++to;
    if (to == i) continue;
    std::rotate(order.begin() + static_cast<long>(i), order.begin() + static_cast<long>(i) + 1, order.begin() + static_cast<long>(to) + 1);
    for (size_t k = i; k <= to; ++k) pos[order[k].value] = k;
  }
}

}  // namespace

std::optional<std::vector<NodeId>> topologicalOrder(const Graph& g, LoadPlacement loads) {
  auto ud = computeUseDef(g);
  auto succ = successors(g, ud);
  auto first = kahn(g, succ, [](NodeId id) { return static_cast<int64_t>(id.value); });
  if (!first) return std::nullopt;
  auto depth = kernelDepth(g, succ, *first);
  auto order = kahn(g, succ, [&](NodeId id) {
    int64_t k = 2 * depth[id.value] + (isDeviceSync(g.node(id)) ? 1 : 0);
    return (k << 32) | id.value;
  });
  if (order && loads == LoadPlacement::AtFirstConsumer) sinkToFirstConsumer(g, succ, *order);
  return order;
}

std::vector<int> kernelIndices(const Graph& g) { return kernelIndices(g, computeUseDef(g), {}); }

std::vector<int> kernelIndices(const Graph& g, const UseDef& ud, const std::vector<bool>& lowered) {
  auto succ = successors(g, ud);
  auto order = kahn(g, succ, [](NodeId id) { return static_cast<int64_t>(id.value); });
  std::vector<int> k(g.nodes().size(), -1);
  if (!order) return k;
  auto depth = kernelDepth(g, succ, *order, lowered);
  for (NodeId id : *order)
    if (!splitsKernels(g, id, lowered)) k[id.value] = depth[id.value];
  return k;
}

int kernelCount(const Graph& g) {
  auto k = kernelIndices(g);
  int m = -1;
  for (int v : k) m = std::max(m, v);
  return m + 1;
}

std::vector<bool> buffersAcrossKernels(const Graph& g, const std::vector<int>& kernelOf) {
  std::vector<int> firstKernel(g.buffers().size(), -1);
  std::vector<bool> across(g.buffers().size(), false);
  for (uint32_t i = 0; i < g.nodes().size(); ++i) {
    const Node& n = g.nodes()[i];
    if (n.erased || kernelOf[i] < 0) continue;
    for (const auto* list : {&n.inputs, &n.outputs})
      for (SliceId s : *list) {
        uint32_t b = g.slice(s).buffer.value;
        const LevelDecl* l = g.level(g.buffers()[b].level);
        if (l && l->scope == Scope::Device) continue;
        if (firstKernel[b] < 0) firstKernel[b] = kernelOf[i];
        else if (firstKernel[b] != kernelOf[i]) across[b] = true;
      }
  }
  return across;
}

Graph Graph::compacted() const {
  Graph out;
  out.name = name;
  out.target = target;
  out.units = units;
  out.unitsPerBlock = unitsPerBlock;
  out.levels = levels;
  // Graph inputs and outputs always stay; temporaries only while a live node uses them.
  std::vector<bool> used(buffers_.size(), false);
  for (const Node& n : nodes_)
    if (!n.erased)
      for (const auto* list : {&n.inputs, &n.outputs})
        for (SliceId s : *list) used[slices_[s.value].buffer.value] = true;
  std::vector<BufferId> bufMap(buffers_.size());
  for (uint32_t i = 0; i < buffers_.size(); ++i)
    if (!buffers_[i].erased && (used[i] || buffers_[i].role != BufferRole::Temp)) bufMap[i] = out.addBuffer(buffers_[i]);
  std::vector<SliceId> sliceMap(slices_.size());
  auto mapSlice = [&](SliceId s) {
    if (!sliceMap[s.value].valid()) {
      MemorySlice copy = slices_[s.value];
      copy.buffer = bufMap[copy.buffer.value];
      sliceMap[s.value] = out.addSlice(std::move(copy));
    }
    return sliceMap[s.value];
  };
  auto order = topologicalOrder(*this);
  GIR_ASSERT(order.has_value(), "compacted() needs an acyclic graph");
  for (NodeId id : *order) {
    Node n = nodes_[id.value];
    for (auto& s : n.inputs) s = mapSlice(s);
    for (auto& s : n.outputs) s = mapSlice(s);
    out.addNode(std::move(n));
  }
  return out;
}

std::string_view nodeKindName(NodeKind k) {
  switch (k) {
    case NodeKind::Move: return "move";
    case NodeKind::Elementwise: return "elementwise";
    case NodeKind::Reduce: return "reduce";
    case NodeKind::Broadcast: return "broadcast";
    case NodeKind::Sync: return "sync";
  }
  return "?";
}

std::string_view roleName(BufferRole r) {
  switch (r) {
    case BufferRole::Temp: return "";
    case BufferRole::Input: return "input";
    case BufferRole::Output: return "output";
  }
  return "";
}

}  // namespace gir
