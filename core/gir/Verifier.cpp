// The verifier: header, levels, buffers, slices in bounds (decided symbolically), per-kind node rules,
// the scope rule for syncs, single-writer-per-unit slices, defined reads, and acyclicity.
#include "core/gir/Verifier.h"

#include <algorithm>
#include <set>

#include "core/CheckedMath.h"
#include "core/gir/Printer.h"
#include "core/gir/SymbolicBounds.h"

namespace gir {

std::pair<int64_t, int64_t> sliceExtent(const MemorySlice& s, int64_t u) {
  int64_t base = s.offset.eval(u), lo = 0, hi = 0;
  for (size_t d = 0; d < s.shape.size(); ++d) {
    int64_t span = (s.shape[d] - 1) * s.strides[d];
    (span < 0 ? lo : hi) += span;
  }
  return {base + lo, base + hi};
}

namespace {

class GraphVerifier {
 public:
  explicit GraphVerifier(const Graph& g) : g_(g) {}

  Status run() {
    if (auto st = header(); !st) return st;
    if (auto st = buffers(); !st) return st;
    if (auto st = slices(); !st) return st;
    for (uint32_t i = 0; i < g_.nodes().size(); ++i) {
      if (g_.nodes()[i].erased) continue;
      if (auto st = node(NodeId(i)); !st) return st;
    }
    if (auto st = dataflow(); !st) return st;
    if (!topologicalOrder(g_)) return makeError("the graph has a cycle: some node depends on its own output");
    return success();
  }

 private:
  Diagnostic nodeError(NodeId id, const std::string& msg) {
    return makeError(msg, SourceLocation{"", 0, 0, "node #" + std::to_string(id.value) + " '" + describeNode(g_, id) + "'"});
  }
  static std::string sname(SliceId s) { return "%s" + std::to_string(s.value); }

  Status header() {
    if (g_.units < 1) return makeError("units must be at least 1");
    if (g_.units > kMaxUnits)
      return makeError("units=" + std::to_string(g_.units) + " is over the limit of " + std::to_string(kMaxUnits) + " units (kMaxUnits, a GPU grid's blocks)");
    if (g_.unitsPerBlock < 1) return makeError("block (units per block) must be at least 1");
    if (g_.levels.empty()) return makeError("no memory levels are declared");
    return success();
  }

  Status buffers() {
    std::set<std::string> names;
    for (const auto& b : g_.buffers()) {
      if (b.erased) continue;
      std::string where = "buffer '%" + b.name + "'";
      if (!names.insert(b.name).second) return makeError(where + ": duplicate name");
      const LevelDecl* l = g_.level(b.level);
      if (!l) return makeError(where + ": unknown level '" + b.level + "'");
      if (b.shape.empty()) return makeError(where + ": a buffer needs at least one dimension");
      for (auto d : b.shape)
        if (d <= 0) return makeError(where + ": dimension " + std::to_string(d) + " is not positive");
      if (auto n = checkedProduct(b.shape); !n || *n > kMaxBufferElements) {
        std::string dims;
        for (auto d : b.shape) dims += (dims.empty() ? "" : " x ") + std::to_string(d);
        return makeError(where + ": " + dims + " elements is over the limit of " + std::to_string(kMaxBufferElements) +
                         " elements per buffer (kMaxBufferElements)");
      }
      if (b.role != BufferRole::Temp && l->scope != Scope::Device)
        return makeError(where + ": graph inputs and outputs must live at a device-scope level, not '" + b.level + "'");
    }
    return success();
  }

  Status slices() {
    for (uint32_t i = 0; i < g_.slices().size(); ++i) {
      const auto& s = g_.slices()[i];
      if (s.erased) continue;
      std::string where = "slice " + sname(SliceId(i));
      if (s.buffer.value >= g_.buffers().size() || g_.buffer(s.buffer).erased) return makeError(where + ": undefined buffer");
      if (s.shape.size() != s.strides.size())
        return makeError(where + ": shape has " + std::to_string(s.shape.size()) + " dims but strides has " + std::to_string(s.strides.size()));
      if (s.shape.empty()) return makeError(where + ": a slice needs at least one dimension");
      for (auto d : s.shape)
        if (d <= 0) return makeError(where + ": dimension " + std::to_string(d) + " is not positive");
    }
    return success();
  }

  // Decided on the affine offset over the whole domain (docs/gir.md, "Symbolic checks"): the
  // message names the first unit out of bounds, as a unit-by-unit scan would.
  Status inBounds(NodeId id, SliceId sid) {
    const MemorySlice& s = g_.slice(sid);
    const Buffer& b = g_.buffer(s.buffer);
    auto bad = firstOutOfBounds(s, g_.domainOf(g_.node(id)), b.numel());
    if (!bad) return nodeError(id, "slice " + sname(sid) + ": " + bad.error().message);
    if (!*bad) return success();
    const OutOfBounds& o = **bad;
    return nodeError(id, "slice " + sname(sid) + " falls outside buffer '%" + b.name + "' (" + std::to_string(b.numel()) +
                             " elements) for unit " + std::to_string(o.unit) + ": it touches [" + std::to_string(o.lo) + ", " +
                             std::to_string(o.hi) + "]");
  }

  Status node(NodeId id) {
    const Node& n = g_.node(id);
    for (auto s : n.inputs)
      if (s.value >= g_.slices().size() || g_.slice(s).erased) return nodeError(id, "reads an undefined slice");
    for (auto s : n.outputs)
      if (s.value >= g_.slices().size() || g_.slice(s).erased) return nodeError(id, "writes an undefined slice");
    if (n.domain) {
      if (n.domain->begin < 0 || n.domain->end > g_.units || n.domain->begin >= n.domain->end)
        return nodeError(id, "domain [" + std::to_string(n.domain->begin) + "," + std::to_string(n.domain->end) +
                                 ") is empty or outside units [0," + std::to_string(g_.units) + ")");
    }
    for (auto s : n.inputs)
      if (std::find(n.outputs.begin(), n.outputs.end(), s) != n.outputs.end())
        return nodeError(id, "reads and writes the same slice " + sname(s));
    Status st = kindRules(id, n);
    if (!st) return st;
    if (n.isSync()) return success();  // a sync touches no memory: its slices are checked where they are accessed
    for (auto s : n.inputs)
      if (auto b = inBounds(id, s); !b) return b;
    for (auto s : n.outputs)
      if (auto b = inBounds(id, s); !b) return b;
    return success();
  }

  Status expectArity(NodeId id, const Node& n, size_t ins, size_t outs) {
    if (n.inputs.size() != ins || n.outputs.size() != outs)
      return nodeError(id, "expects " + std::to_string(ins) + " input and " + std::to_string(outs) + " output slices, has " +
                               std::to_string(n.inputs.size()) + " and " + std::to_string(n.outputs.size()));
    return success();
  }

  static std::vector<int64_t> squeezed(const std::vector<int64_t>& shape) {
    std::vector<int64_t> out;
    for (auto d : shape)
      if (d != 1) out.push_back(d);
    return out;
  }

  Status kindRules(NodeId id, const Node& n) {
    switch (n.kind()) {
      case NodeKind::Move: return moveRules(id, n);
      case NodeKind::Elementwise: return elementwiseRules(id, n);
      case NodeKind::Reduce: return reduceRules(id, n);
      case NodeKind::Broadcast: return broadcastRules(id, n);
      case NodeKind::Sync: return syncRules(id, n);
    }
    GIR_UNREACHABLE("unknown node kind");
  }

  Status moveRules(NodeId id, const Node& n) {
    if (auto st = expectArity(id, n, 1, 1); !st) return st;
    int64_t a = g_.slice(n.inputs[0]).numel(), b = g_.slice(n.outputs[0]).numel();
    if (a != b) return nodeError(id, "moves " + std::to_string(a) + " elements into a slice of " + std::to_string(b));
    return success();
  }

  Status elementwiseRules(NodeId id, const Node& n) {
    const auto& p = std::get<ElementwisePayload>(n.payload);
    if (static_cast<int>(p.operands.size()) != elementwiseArity(p.op))
      return nodeError(id, std::string(elementwiseName(p.op)) + " takes " + std::to_string(elementwiseArity(p.op)) +
                               " operands, got " + std::to_string(p.operands.size()));
    if (n.outputs.size() != 1) return nodeError(id, "an elementwise node writes exactly one slice");
    std::vector<bool> used(n.inputs.size(), false);
    auto outShape = squeezed(g_.slice(n.outputs[0]).shape);
    for (const auto& o : p.operands) {
      if (o.isImmediate()) continue;
      if (o.input >= static_cast<int>(n.inputs.size())) return nodeError(id, "operand refers to a missing input");
      used[o.input] = true;
      if (squeezed(g_.slice(n.inputs[o.input]).shape) != outShape)
        return nodeError(id, "operand " + sname(n.inputs[o.input]) + " has a different shape from the output " + sname(n.outputs[0]));
    }
    if (std::find(used.begin(), used.end(), false) != used.end()) return nodeError(id, "an input slice is not used by any operand");
    return success();
  }

  Status reduceRules(NodeId id, const Node& n) {
    if (auto st = expectArity(id, n, 1, 1); !st) return st;
    const auto& p = std::get<ReducePayload>(n.payload);
    const auto& in = g_.slice(n.inputs[0]).shape;
    std::set<int> seen;
    int64_t kept = 1;
    for (int a : p.axes) {
      if (a < 0 || a >= static_cast<int>(in.size())) return nodeError(id, "reduce axis " + std::to_string(a) + " is out of range for a rank-" + std::to_string(in.size()) + " slice");
      if (!seen.insert(a).second) return nodeError(id, "reduce axis " + std::to_string(a) + " is repeated");
    }
    if (p.axes.empty()) return nodeError(id, "a reduce needs at least one axis");
    for (int d = 0; d < static_cast<int>(in.size()); ++d)
      if (!seen.count(d)) kept *= in[d];
    int64_t out = g_.slice(n.outputs[0]).numel();
    if (out != kept) return nodeError(id, "the reduced shape has " + std::to_string(kept) + " elements but the output slice has " + std::to_string(out));
    return success();
  }

  Status broadcastRules(NodeId id, const Node& n) {
    if (auto st = expectArity(id, n, 1, 1); !st) return st;
    const auto& p = std::get<BroadcastPayload>(n.payload);
    const auto& out = g_.slice(n.outputs[0]).shape;
    std::set<int> seen;
    for (int a : p.axes) {
      if (a < 0 || a >= static_cast<int>(out.size())) return nodeError(id, "broadcast axis " + std::to_string(a) + " is out of range for a rank-" + std::to_string(out.size()) + " output");
      if (!seen.insert(a).second) return nodeError(id, "broadcast axis " + std::to_string(a) + " is repeated");
    }
    int64_t kept = 1;
    for (int d = 0; d < static_cast<int>(out.size()); ++d)
      if (!seen.count(d)) kept *= out[d];
    int64_t in = g_.slice(n.inputs[0]).numel();
    if (in != kept) return nodeError(id, "the input has " + std::to_string(in) + " elements but the non-broadcast output dims hold " + std::to_string(kept));
    return success();
  }

  Status syncRules(NodeId id, const Node& n) {
    Scope scope = n.syncScope();
    if (scope == Scope::Lane) return nodeError(id, "a lane-scope sync does nothing; lane scope is written as no sync at all");
    if (n.inputs.empty() || n.outputs.empty()) return nodeError(id, "a sync needs the slices written before it and the slices read after it");
    std::set<BufferId> before;
    for (auto s : n.inputs) before.insert(g_.slice(s).buffer);
    for (auto s : n.outputs)
      if (!before.count(g_.slice(s).buffer))
        return nodeError(id, "output slice " + sname(s) + " views buffer '%" + g_.buffer(g_.slice(s).buffer).name + "', which no input of the sync views");
    for (auto s : n.inputs) {
      const LevelDecl* l = g_.levelOf(g_.slice(s).buffer);
      if (l && !scopeCovers(l->scope, scope))
        return nodeError(id, "a " + std::string(scopeName(scope)) + "-scope exchange cannot go through level '" + l->name +
                                 "', which is private to one " + std::string(scopeName(l->scope)));
    }
    return success();
  }

  // Writers of a slice run on disjoint units; a read slice has a writer or views a graph input.
  Status dataflow() {
    auto ud = computeUseDef(g_);
    for (uint32_t s = 0; s < g_.slices().size(); ++s) {
      if (g_.slices()[s].erased) continue;
      const Buffer& b = g_.buffer(g_.slices()[s].buffer);
      const auto& w = ud.writers[s];
      if (b.role == BufferRole::Input) {
        for (NodeId n : w)
          if (!g_.node(n).isSync()) return nodeError(n, "writes into the graph input '%" + b.name + "'");
      }
      if (w.empty() && ud.memoryWriters[s].empty() && !ud.readers[s].empty() && b.role != BufferRole::Input)
        return nodeError(ud.readers[s][0], "reads slice " + sname(SliceId(s)) + " of '%" + b.name + "', but no node writes it and it is not a graph input");
      for (size_t i = 0; i < w.size(); ++i)
        for (size_t j = i + 1; j < w.size(); ++j) {
          UnitDomain a = g_.domainOf(g_.node(w[i])), c = g_.domainOf(g_.node(w[j]));
          if (a.begin < c.end && c.begin < a.end)
            return nodeError(w[j], "writes slice " + sname(SliceId(s)) + " for units that node #" + std::to_string(w[i].value) + " also writes it for");
        }
    }
    return success();
  }

  const Graph& g_;
};

}  // namespace

Status verifyGraph(const Graph& g) { return GraphVerifier(g).run(); }

}  // namespace gir
