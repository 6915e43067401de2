// Reference checks for the symbolic checker's witnesses and bounds, written unit by unit.
#include "tests/support/CheckerAgreement.h"

#include <algorithm>

#include "core/gir/Interpreter.h"
#include "core/gir/Verifier.h"

namespace gir::test {

std::set<FindingKind> findingKinds(const MemoryCheckReport& r) {
  std::set<FindingKind> out;
  for (const auto& f : r.findings) out.insert(f.kind);
  return out;
}

std::string kindList(const std::set<FindingKind>& kinds) {
  std::string out;
  for (FindingKind k : kinds) out += (out.empty() ? "" : ", ") + std::string(findingKindName(k));
  return out.empty() ? "clean" : out;
}

// Does unit u of node n touch element e of buffer `name` (through an input, an output, or either)?
static bool touches(const Graph& g, NodeId n, int64_t u, const std::string& name, int64_t e, bool reads, bool writes) {
  const Node& node = g.node(n);
  if (node.isSync() || !g.domainOf(node).contains(u)) return false;
  std::vector<int64_t> elems;
  auto check = [&](const std::vector<SliceId>& slices) {
    for (SliceId s : slices) {
      if (g.buffer(g.slice(s).buffer).name != name) continue;
      sliceElements(g.slice(s), u, elems);
      if (std::find(elems.begin(), elems.end(), e) != elems.end()) return true;
    }
    return false;
  };
  return (reads && check(node.inputs)) || (writes && check(node.outputs));
}

std::string witnessProblem(const Graph& g, const MemoryFinding& f) {
  if (f.kind == FindingKind::CapacityOverflow) return "";
  bool firstWrites = f.kind == FindingKind::WriteWriteConflict, secondWrites = f.kind == FindingKind::WriteWriteConflict;
  bool firstReads = f.kind != FindingKind::WriteWriteConflict, secondReads = firstReads;
  if (f.kind == FindingKind::Race || f.kind == FindingKind::ScopeViolation) firstWrites = secondWrites = true;
  if (!touches(g, f.firstNode, f.firstUnit, f.buffer, f.element, firstReads, firstWrites))
    return "unit " + std::to_string(f.firstUnit) + " of node #" + std::to_string(f.firstNode.value) + " does not touch the element";
  if (!touches(g, f.secondNode, f.secondUnit, f.buffer, f.element, secondReads, secondWrites))
    return "unit " + std::to_string(f.secondUnit) + " of node #" + std::to_string(f.secondNode.value) + " does not touch the element";
  if (f.kind == FindingKind::Race && !touches(g, f.firstNode, f.firstUnit, f.buffer, f.element, false, true) &&
      !touches(g, f.secondNode, f.secondUnit, f.buffer, f.element, false, true))
    return "neither side of the race writes the element";
  if (f.kind == FindingKind::ScopeViolation) {
    auto b = g.findBuffer(f.buffer);
    Scope s = b && g.levelOf(*b) ? g.levelOf(*b)->scope : Scope::Device;
    auto inst = [&](int64_t u) { return s == Scope::Block ? g.blockOf(u) : u; };
    if (inst(f.firstUnit) == inst(f.secondUnit)) return "both units run in the same scope instance";
  }
  return "";
}

std::string perUnitBoundsError(const Graph& g) {
  for (uint32_t i = 0; i < g.nodes().size(); ++i) {
    const Node& n = g.nodes()[i];
    if (n.erased || n.isSync()) continue;
    UnitDomain d = g.domainOf(n);
    for (const auto* list : {&n.inputs, &n.outputs})
      for (SliceId s : *list)
        for (int64_t u = d.begin; u < d.end; ++u) {
          auto [lo, hi] = sliceExtent(g.slice(s), u);
          const Buffer& b = g.buffer(g.slice(s).buffer);
          if (lo < 0 || hi >= b.numel())
            return "slice %s" + std::to_string(s.value) + " falls outside buffer '%" + b.name + "' (" + std::to_string(b.numel()) +
                   " elements) for unit " + std::to_string(u) + ": it touches [" + std::to_string(lo) + ", " + std::to_string(hi) + "]";
        }
  }
  return "";
}

}  // namespace gir::test
