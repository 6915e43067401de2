// Ops become nodes keyed "o<index>", subgraphs clusters; an edge per (producer, consumer) tensor.
#include "viz/ModelView.h"

#include <cstdio>

namespace gir::viz {

static std::string fixed2(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.2f", v);
  return buf;
}

// "name f32[2,3]": a tensor as the find box and the inspector show it.
static std::string tensorText(const compute::Tensor& t) {
  return t.name + " " + std::string(compute::dtypeName(t.dtype)) + compute::dimsToString(t.dims);
}

static std::string tensorsText(const compute::Graph& g, const std::vector<compute::TensorId>& ids) {
  std::string s;
  for (compute::TensorId t : ids) s += (s.empty() ? "" : ", ") + tensorText(g.tensor(t));
  return s;
}

VizGraph modelToViz(const compute::Graph& g, const compute::PreprocessResult& pre) {
  VizGraph out;
  for (size_t s = 0; s < pre.subgraphs.size(); ++s)
    out.clusters.push_back({"subgraph " + std::to_string(s) + " (" + std::to_string(pre.subgraphs[s].ops.size()) + " ops, " +
                                std::to_string(pre.subgraphs[s].minBytes) + " B minimal)",
                            true, false});
  std::vector<const compute::LibraryDecision*> decision(g.ops.size(), nullptr);
  for (const auto& d : pre.library) decision[compute::index(d.op)] = &d;
  for (const compute::Op& op : g.ops) {
    int i = compute::index(op.id);
    VizNode n;
    n.key = "o" + std::to_string(i);
    n.source = i;
    n.cluster = i < static_cast<int>(pre.subgraphOf.size()) ? pre.subgraphOf[i] : -1;
    n.kind = compute::isLibraryKind(op.kind()) ? ItemKind::LibraryOp : ItemKind::Op;
    n.label = std::string(compute::opKindName(op.kind())) + "\n" + op.source;  // each line elided to the node, not wrapped
    n.detail = op.name + ": " + std::string(compute::opKindName(op.kind())) + " from " + op.source + "; in: " + tensorsText(g, op.inputs) +
               "; out: " + tensorsText(g, op.outputs);
    n.highlighted = n.cluster >= 0;
    if (const auto* d = decision[i]) {
      std::string verdict = d->verdict();
      n.label += "\nI=" + fixed2(d->intensity) + " " + (d->libraryCall() ? "library" : "GIR");
      n.detail += ", " + std::to_string(d->flops) + " FLOPs, " + std::to_string(d->minBytes) + " bytes, intensity " +
                  fixed2(d->intensity) + " vs ridge " + fixed2(pre.ridgeFlopsPerByte) + " -> " + verdict;
    }
    out.nodes.push_back(std::move(n));
  }
  auto producers = g.producers();
  for (const compute::Op& op : g.ops) {
    for (compute::TensorId t : op.inputs) {
      auto p = producers[compute::index(t)];
      if (!p) continue;
      out.edges.push_back({compute::index(*p), compute::index(op.id), "dram", compute::tensorBytes(g.tensor(t))});
      out.levelBytes["dram"] += compute::tensorBytes(g.tensor(t));
    }
  }
  mergeParallelEdges(out);
  return out;
}

}  // namespace gir::viz
