// Printers of a preprocessing result: the text summary (golden files, `gir import`), JSON and DOT.
#include <cstdio>
#include <map>
#include <sstream>

#include <nlohmann/json.hpp>

#include "core/compute/Preprocess.h"

namespace gir::compute {

static std::string fixed2(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.2f", v);
  return buf;
}

// "concat 1, reshape 2" in OpKind order.
static std::string kindCounts(const Graph& g, const std::vector<OpId>& ops) {
  std::map<OpKind, int> counts;
  for (OpId id : ops) ++counts[g.op(id).kind()];
  std::string s;
  for (const auto& [kind, n] : counts) s += (s.empty() ? "" : ", ") + std::string(opKindName(kind)) + " " + std::to_string(n);
  return s;
}

static std::vector<OpId> allOps(const Graph& g) {
  std::vector<OpId> ids;
  for (const Op& op : g.ops) ids.push_back(op.id);
  return ids;
}

static std::string tensorList(const Graph& g, const std::vector<TensorId>& ts) {
  std::string s;
  for (TensorId t : ts)
    s += (s.empty() ? "" : ", ") + g.tensor(t).name + std::string(g.tensor(t).isConstant() ? " (const)" : "") + " " +
         std::string(dtypeName(g.tensor(t).dtype)) + dimsToString(g.tensor(t).dims);
  return s;
}

std::string printPreprocessSummary(const Graph& g, const PreprocessResult& r) {
  std::ostringstream os;
  os << "graph '" << g.name << "' on " << r.target << " (ridge point " << fixed2(r.ridgeFlopsPerByte) << " FLOP/byte)\n";
  os << "ops: " << g.ops.size() << " (" << kindCounts(g, allOps(g)) << ")\n";
  os << "library calls: " << r.library.size() << "\n";
  for (const LibraryDecision& d : r.library) {
    const Op& op = g.op(d.op);
    os << "  " << opKindName(op.kind()) << " '" << op.name << "' (" << op.source << "): " << d.flops << " FLOPs, "
       << d.minBytes << " bytes, intensity " << fixed2(d.intensity) << " -> "
       << d.verdict() << "\n";
  }
  os << "memory-bound subgraphs: " << r.subgraphs.size() << "\n";
  for (size_t i = 0; i < r.subgraphs.size(); ++i) {
    const Subgraph& s = r.subgraphs[i];
    os << "  subgraph " << i << ": " << s.ops.size() << " ops (" << kindCounts(g, s.ops) << "), minimal DRAM bytes "
       << s.minBytes << "\n";
    os << "    reads:  " << tensorList(g, s.inputs) << "\n";
    os << "    writes: " << tensorList(g, s.outputs) << "\n";
  }
  return os.str();
}

std::string preprocessToJson(const Graph& g, const PreprocessResult& r) {
  using nlohmann::json;
  json root;
  root["graph"] = g.name;
  root["target"] = r.target;
  root["ridge_flops_per_byte"] = r.ridgeFlopsPerByte;
  json ops = json::array();
  for (const Op& op : g.ops) {
    json inputs = json::array(), outputs = json::array();
    for (TensorId t : op.inputs) inputs.push_back(g.tensor(t).name);
    for (TensorId t : op.outputs) outputs.push_back(g.tensor(t).name);
    ops.push_back({{"name", op.name}, {"kind", std::string(opKindName(op.kind()))}, {"source", op.source}, {"inputs", inputs},
                   {"outputs", outputs}, {"subgraph", r.subgraphOf[index(op.id)]}, {"text", describeOp(g, op)}});
  }
  root["ops"] = ops;
  json lib = json::array();
  for (const LibraryDecision& d : r.library)
    lib.push_back({{"op", g.op(d.op).name}, {"flops", d.flops}, {"min_bytes", d.minBytes}, {"intensity", d.intensity},
                   {"decision", d.computeBound ? "compute-bound" : "memory-bound"}, {"library_call", d.libraryCall()}});
  root["library_calls"] = lib;
  json subs = json::array();
  for (const Subgraph& s : r.subgraphs) {
    json names = json::array(), ins = json::array(), outs = json::array();
    for (OpId id : s.ops) names.push_back(g.op(id).name);
    for (TensorId t : s.inputs) ins.push_back(g.tensor(t).name);
    for (TensorId t : s.outputs) outs.push_back(g.tensor(t).name);
    subs.push_back({{"ops", names}, {"inputs", ins}, {"outputs", outs}, {"min_bytes", s.minBytes}});
  }
  root["subgraphs"] = subs;
  return root.dump(2) + "\n";
}

static std::string dotQuote(const std::string& s) {
  std::string out = "\"";
  for (char c : s) out += (c == '"' || c == '\\') ? std::string("\\") + c : std::string(1, c);
  return out + "\"";
}

// Ops are nodes (library calls as boxes), tensors are edges; each subgraph is a cluster.
std::string preprocessToDot(const Graph& g, const PreprocessResult& r) {
  std::ostringstream os;
  os << "digraph " << dotQuote(g.name.empty() ? "graph" : g.name) << " {\n  rankdir=TB;\n  node [fontsize=10];\n";
  auto nodeId = [](OpId id) { return "op" + std::to_string(index(id)); };
  auto label = [&](const Op& op) { return dotQuote(std::string(opKindName(op.kind())) + "\\n" + op.name); };
  for (size_t i = 0; i < r.subgraphs.size(); ++i) {
    os << "  subgraph cluster_" << i << " {\n    label=" << dotQuote("subgraph " + std::to_string(i) + ": " +
                                                               std::to_string(r.subgraphs[i].minBytes) + " B") << ";\n";
    for (OpId id : r.subgraphs[i].ops) os << "    " << nodeId(id) << " [label=" << label(g.op(id)) << ", shape=ellipse];\n";
    os << "  }\n";
  }
  for (const Op& op : g.ops)
    if (r.subgraphOf[index(op.id)] < 0) os << "  " << nodeId(op.id) << " [label=" << label(op) << ", shape=box, style=bold];\n";
  auto producers = g.producers();
  for (const Op& op : g.ops)
    for (TensorId t : op.inputs)
      if (auto p = producers[index(t)]) os << "  " << nodeId(*p) << " -> " << nodeId(op.id) << ";\n";
  os << "}\n";
  return os.str();
}

}  // namespace gir::compute
