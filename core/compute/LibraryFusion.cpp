// Library-op epilogues: find each compute-bound call's epilogue (the rule in LibraryFusion.h), take
// those ops out of their subgraph and re-partition what is left.
#include "core/compute/LibraryFusion.h"

#include <algorithm>
#include <map>
#include <numeric>
#include <optional>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

namespace gir::compute {

namespace {

class EpilogueFinder {
 public:
  // regionOf: per op, the region (subgraph) it belongs to, or -1 for ops that may not join.
  EpilogueFinder(const Graph& g, const std::vector<int>& regionOf)
      : g_(g), regionOf_(regionOf), producers_(g.producers()), consumers_(g.consumers()) {
    for (TensorId t : g.outputs) graphOutputs_.insert(index(t));
  }

  std::optional<LibraryEpilogue> find(OpId libId) const {
    const Op& lib = g_.op(libId);
    if (lib.outputs.size() != 1) return std::nullopt;
    if (lib.kind() != OpKind::MatMul && lib.kind() != OpKind::Gemm && lib.kind() != OpKind::Conv) return std::nullopt;
    TensorId raw = lib.outputs.front();
    const auto& readers = consumers_[index(raw)];
    if (readers.empty() || graphOutputs_.count(index(raw))) return std::nullopt;
    int sub = regionOf_[index(readers.front())];
    if (sub < 0) return std::nullopt;
    std::vector<Body> candidates = collect(raw, sub);
    for (size_t k = candidates.size(); k > 0; --k) {
      auto e = accept(lib, raw, candidates, k);
      if (e) return e;
    }
    return std::nullopt;
  }

 private:
  struct Body {
    OpId op{};
    std::vector<OpId> sideBroadcasts;
  };

  // The broadcast feeding `t` to `reader`, if `t` is a small side operand (see the header).
  std::optional<OpId> sideBroadcast(TensorId t, OpId reader, int sub) const {
    auto p = producers_[index(t)];
    if (!p || regionOf_[index(*p)] != sub) return std::nullopt;
    const Op& b = g_.op(*p);
    if (b.kind() != OpKind::Broadcast || graphOutputs_.count(index(t))) return std::nullopt;
    if (consumers_[index(t)].size() != 1 || consumers_[index(t)].front() != reader) return std::nullopt;
    TensorId src = b.inputs.front();
    if (producers_[index(src)]) return std::nullopt;  // computed values would order the call after their producer
    const Dims& dims = g_.tensor(src).dims;
    auto wide = std::count_if(dims.begin(), dims.end(), [](int64_t e) { return e > 1; });
    if (wide > 1) return std::nullopt;
    return *p;
  }

  // Body ops reachable from `raw` inside subgraph `sub`, in graph order.
  std::vector<Body> collect(TensorId raw, int sub) const {
    std::set<int32_t> inside{index(raw)};
    int64_t tile = numElements(g_.tensor(raw).dims);
    std::vector<Body> out;
    for (const Op& op : g_.ops) {
      if (regionOf_[index(op.id)] != sub || op.outputs.size() != 1) continue;
      if (numElements(g_.tensor(op.outputs.front()).dims) != tile) continue;
      bool readsInside = false, ok = true;
      Body body{op.id, {}};
      if (op.kind() == OpKind::Reshape) {
        readsInside = inside.count(index(op.inputs.front())) > 0;
      } else if (op.kind() == OpKind::Elementwise && std::get<ElementwiseAttrs>(op.attrs).fn != ElementwiseOp::Select &&
                 g_.tensor(op.outputs.front()).dtype == DType::F32) {
        for (TensorId t : op.inputs) {
          if (inside.count(index(t))) {
            readsInside = true;
          } else if (auto b = sideBroadcast(t, op.id, sub)) {
            if (std::find(body.sideBroadcasts.begin(), body.sideBroadcasts.end(), *b) == body.sideBroadcasts.end())
              body.sideBroadcasts.push_back(*b);
          } else {
            ok = false;
          }
        }
      } else {
        ok = false;
      }
      if (!ok || !readsInside) continue;
      inside.insert(index(op.outputs.front()));
      out.push_back(std::move(body));
    }
    return out;
  }

  // The first k candidates as an epilogue, if r has no reader outside it and exactly one of its
  // tensors is read outside (or is a graph output), not produced by a reshape.
  std::optional<LibraryEpilogue> accept(const Op& lib, TensorId raw, const std::vector<Body>& candidates, size_t k) const {
    std::set<int32_t> members;
    for (size_t i = 0; i < k; ++i) {
      members.insert(index(candidates[i].op));
      for (OpId b : candidates[i].sideBroadcasts) members.insert(index(b));
    }
    auto readOutside = [&](TensorId t) {
      if (graphOutputs_.count(index(t))) return true;
      for (OpId c : consumers_[index(t)])
        if (!members.count(index(c))) return true;
      return false;
    };
    if (readOutside(raw)) return std::nullopt;
    std::optional<TensorId> exit;
    for (size_t i = 0; i < k; ++i) {
      TensorId t = g_.op(candidates[i].op).outputs.front();
      if (!readOutside(t)) continue;
      if (exit || g_.op(candidates[i].op).kind() == OpKind::Reshape) return std::nullopt;
      exit = t;
    }
    if (!exit) return std::nullopt;
    LibraryEpilogue e;
    e.library = lib.id;
    e.rawOutput = raw;
    e.output = *exit;
    e.rawBytes = tensorBytes(g_.tensor(raw));
    std::set<int32_t> side;
    for (int32_t id : members) {
      e.ops.push_back(OpId{id});
      const Op& op = g_.op(OpId{id});
      if (op.kind() != OpKind::Broadcast) continue;
      TensorId src = op.inputs.front();
      if (std::find(lib.inputs.begin(), lib.inputs.end(), src) == lib.inputs.end()) side.insert(index(src));
    }
    for (int32_t t : side) {
      e.sideInputs.push_back(TensorId{t});
      e.sideBytes += tensorBytes(g_.tensor(TensorId{t}));
    }
    return e;
  }

  const Graph& g_;
  const std::vector<int>& regionOf_;
  std::vector<std::optional<OpId>> producers_;
  std::vector<std::vector<OpId>> consumers_;
  std::set<int32_t> graphOutputs_;
};

int findRoot(std::vector<int>& parent, int x) {
  while (parent[x] != x) x = parent[x] = parent[parent[x]];
  return x;
}

// What is left of each subgraph, split into connected parts (a subgraph joined only through its
// epilogue ops falls apart), numbered by first op as preprocess numbers them.
void repartition(const Graph& g, PreprocessResult& pre, const std::vector<int>& oldSubgraphOf) {
  std::vector<int> parent(g.ops.size());
  std::iota(parent.begin(), parent.end(), 0);
  auto producers = g.producers();
  for (const Op& op : g.ops) {
    if (pre.subgraphOf[index(op.id)] < 0) continue;
    for (TensorId t : op.inputs) {
      auto p = producers[index(t)];
      if (p && pre.subgraphOf[index(*p)] >= 0 && oldSubgraphOf[index(*p)] == oldSubgraphOf[index(op.id)])
        parent[findRoot(parent, index(*p))] = findRoot(parent, index(op.id));
    }
  }
  pre.subgraphs.clear();
  std::vector<int> rootToSubgraph(g.ops.size(), -1);
  for (const Op& op : g.ops) {
    if (pre.subgraphOf[index(op.id)] < 0) continue;
    int root = findRoot(parent, index(op.id));
    if (rootToSubgraph[root] < 0) {
      rootToSubgraph[root] = static_cast<int>(pre.subgraphs.size());
      pre.subgraphs.emplace_back();
    }
    pre.subgraphOf[index(op.id)] = rootToSubgraph[root];
    pre.subgraphs[rootToSubgraph[root]].ops.push_back(op.id);
  }
  for (size_t i = 0; i < pre.subgraphs.size(); ++i) fillSubgraphBoundary(g, pre.subgraphs[i], pre.subgraphOf, static_cast<int>(i));
}

int64_t sumSubgraphBytes(const PreprocessResult& pre) {
  int64_t sum = 0;
  for (const Subgraph& s : pre.subgraphs) sum += s.minBytes;
  return sum;
}

}  // namespace

Expected<LibraryBoundaries> foldLibraryEpilogues(const Graph& g, const PreprocessResult& pre) {
  if (pre.subgraphOf.size() != g.ops.size())
    return makeError("preprocessing result has " + std::to_string(pre.subgraphOf.size()) + " ops, graph '" + g.name + "' has " +
                     std::to_string(g.ops.size()) + ": not the same graph");
  for (const LibraryDecision& d : pre.library)
    if (index(d.op) < 0 || index(d.op) >= static_cast<int32_t>(g.ops.size()) || !isLibraryKind(g.op(d.op).kind()))
      return makeError("preprocessing result names op " + std::to_string(index(d.op)) + " as a library call; graph '" + g.name +
                       "' disagrees");
  LibraryBoundaries out;
  out.pre = pre;
  out.subgraphBytesBefore = sumSubgraphBytes(pre);
  EpilogueFinder finder(g, pre.subgraphOf);
  for (const LibraryDecision& d : pre.library) {
    if (!d.libraryCall()) continue;
    out.libraryBytesBefore += d.minBytes;
    out.libraryBytesAfter += d.minBytes;
    auto e = finder.find(d.op);
    if (!e) continue;
    for (OpId id : e->ops) out.pre.subgraphOf[index(id)] = -1;
    out.libraryBytesAfter += e->sideBytes - e->rawBytes + tensorBytes(g.tensor(e->output));
    out.epilogues.push_back(std::move(*e));
  }
  if (!out.epilogues.empty()) repartition(g, out.pre, pre.subgraphOf);
  out.subgraphBytesAfter = sumSubgraphBytes(out.pre);
  return out;
}

std::optional<LibraryEpilogue> findLibraryEpilogue(const Graph& g, OpId lib, const std::vector<int>& regionOf) {
  if (regionOf.size() != g.ops.size() || index(lib) < 0 || index(lib) >= static_cast<int32_t>(g.ops.size())) return std::nullopt;
  return EpilogueFinder(g, regionOf).find(lib);
}

namespace {

std::string opList(const Graph& g, const std::vector<OpId>& ops) {
  std::string s;
  for (OpId id : ops) {
    const Op& op = g.op(id);
    std::string what = op.kind() == OpKind::Elementwise ? std::string(elementwiseName(std::get<ElementwiseAttrs>(op.attrs).fn))
                                                        : std::string(opKindName(op.kind()));
    s += (s.empty() ? "" : ", ") + what + " '" + op.name + "'";
  }
  return s;
}

}  // namespace

std::string printLibraryEpilogues(const Graph& g, const LibraryBoundaries& b) {
  std::ostringstream os;
  os << "library epilogues: " << b.epilogues.size() << " calls\n";
  for (const LibraryEpilogue& e : b.epilogues) {
    const Op& lib = g.op(e.library);
    os << "  " << opKindName(lib.kind()) << " '" << lib.name << "' + " << e.ops.size() << (e.ops.size() == 1 ? " op: " : " ops: ")
       << opList(g, e.ops) << "\n";
    os << "    writes " << g.tensor(e.output).name << " instead of " << g.tensor(e.rawOutput).name << " (" << e.rawBytes << " B)";
    if (!e.sideInputs.empty()) {
      os << "; also reads";
      for (TensorId t : e.sideInputs) os << " " << g.tensor(t).name;
      os << " (" << e.sideBytes << " B)";
    }
    os << "\n";
  }
  os << "minimal DRAM bytes: subgraphs " << b.subgraphBytesBefore << " -> " << b.subgraphBytesAfter << ", library calls "
     << b.libraryBytesBefore << " -> " << b.libraryBytesAfter << "\n";
  return os.str();
}

std::string libraryEpiloguesToJson(const Graph& g, const LibraryBoundaries& b) {
  nlohmann::json calls = nlohmann::json::array();
  for (const LibraryEpilogue& e : b.epilogues) {
    nlohmann::json ops = nlohmann::json::array(), side = nlohmann::json::array();
    for (OpId id : e.ops) ops.push_back(g.op(id).name);
    for (TensorId t : e.sideInputs) side.push_back(g.tensor(t).name);
    calls.push_back({{"library", g.op(e.library).name}, {"ops", ops}, {"raw_output", g.tensor(e.rawOutput).name},
                     {"output", g.tensor(e.output).name}, {"side_inputs", side}, {"raw_bytes", e.rawBytes}, {"side_bytes", e.sideBytes}});
  }
  nlohmann::json j{{"calls", calls},
                   {"subgraphs", b.pre.subgraphs.size()},
                   {"subgraph_min_bytes_before", b.subgraphBytesBefore},
                   {"subgraph_min_bytes_after", b.subgraphBytesAfter},
                   {"library_min_bytes_before", b.libraryBytesBefore},
                   {"library_min_bytes_after", b.libraryBytesAfter}};
  return j.dump();
}

}  // namespace gir::compute
