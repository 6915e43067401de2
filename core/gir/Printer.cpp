// Printing GIR text. Parsing it back gives the same graph (tests/core/RoundTripTest.cpp).
#include "core/gir/Printer.h"
#include "core/gir/OpSpelling.h"

#include <charconv>
#include <sstream>

namespace gir {

std::string formatNumber(double v) {
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof buf, v);
  std::string s(buf, res.ptr);
  if (s.find_first_of(".eEn") == std::string::npos) s += ".0";  // keep immediates visibly real
  return s;
}

namespace {

std::string ints(const std::vector<int64_t>& v) {
  std::string out = "[";
  for (size_t i = 0; i < v.size(); ++i) out += (i ? "," : "") + std::to_string(v[i]);
  return out + "]";
}

std::string ints(const std::vector<int>& v) {
  return ints(std::vector<int64_t>(v.begin(), v.end()));
}

std::string sliceName(SliceId s) { return "%s" + std::to_string(s.value); }

std::string sliceList(const std::vector<SliceId>& v) {
  std::string out;
  for (size_t i = 0; i < v.size(); ++i) out += (i ? ", " : "") + sliceName(v[i]);
  return out;
}

// Slice `i` of a node's list, or "%<none>": the verifier describes malformed nodes with this printer
// (a move with no input; a fuzzed JSON file found the out-of-range read), so it must not index past.
std::string sliceAt(const std::vector<SliceId>& v, size_t i) { return i < v.size() ? sliceName(v[i]) : "%<none>"; }

struct NodeTextVisitor {
  const Node& n;
  std::string operator()(const MovePayload&) const { return opSpelling(n) + " " + sliceAt(n.inputs, 0) + " -> " + sliceAt(n.outputs, 0); }
  std::string operator()(const ElementwisePayload& p) const {
    std::string out = opSpelling(n) + " ";
    for (size_t i = 0; i < p.operands.size(); ++i) {
      const auto& o = p.operands[i];
      out += (i ? ", " : "") + (o.isImmediate() ? formatNumber(o.value) : sliceAt(n.inputs, static_cast<size_t>(o.input)));
    }
    return out + " -> " + sliceAt(n.outputs, 0);
  }
  std::string operator()(const ReducePayload& p) const {
    return opSpelling(n) + " axes" + ints(p.axes) + " " + sliceAt(n.inputs, 0) + " -> " + sliceAt(n.outputs, 0);
  }
  std::string operator()(const BroadcastPayload& p) const {
    return opSpelling(n) + " axes" + ints(p.axes) + " " + sliceAt(n.inputs, 0) + " -> " + sliceAt(n.outputs, 0);
  }
  std::string operator()(const SyncPayload& p) const {
    return opSpelling(n) + " " + std::string(scopeName(p.scope)) + " (" + sliceList(n.inputs) + ") -> (" + sliceList(n.outputs) + ")";
  }
};

std::string nodeText(const Node& n) {
  std::string out = std::visit(NodeTextVisitor{n}, n.payload);
  if (n.domain) out += " domain[" + std::to_string(n.domain->begin) + "," + std::to_string(n.domain->end) + ")";
  return out;
}

void printHeader(std::ostringstream& os, const Graph& g) {
  os << "gir @" << g.name;
  if (!g.target.empty()) os << " target=" << g.target;
  os << " units=" << g.units << " block=" << g.unitsPerBlock << "\n";
  for (const auto& l : g.levels) {
    os << "level " << l.name << " " << scopeName(l.scope);
    if (l.capacityBytes > 0) os << " capacity=" << l.capacityBytes;
    os << "\n";
  }
}

void printBody(std::ostringstream& os, const Graph& g) {
  for (const auto& b : g.buffers()) {
    if (b.erased) continue;
    os << "%" << b.name << " = buffer " << b.level << " f32" << ints(b.shape);
    if (b.role != BufferRole::Temp) os << " " << roleName(b.role);
    os << "\n";
  }
  for (uint32_t i = 0; i < g.slices().size(); ++i) {
    const auto& s = g.slices()[i];
    if (s.erased) continue;
    os << sliceName(SliceId(i)) << " = slice %" << g.buffer(s.buffer).name << " offset(" << s.offset.str()
       << ") shape" << ints(s.shape) << " strides" << ints(s.strides) << "\n";
  }
  for (const auto& n : g.nodes())
    if (!n.erased) os << nodeText(n) << "\n";
}

}  // namespace

std::string printGraph(const Graph& g) {
  std::ostringstream os;
  printHeader(os, g);
  if (topologicalOrder(g)) printBody(os, g.compacted());
  else printBody(os, g);  // a cyclic graph still prints (in id order) so the user can see the cycle
  return os.str();
}

std::string describeNode(const Graph& g, NodeId id) { return nodeText(g.node(id)); }

}  // namespace gir
