// Comparing the symbolic memory-model checker with the element-level one (docs/gir.md, "Symbolic
// checks"): the kinds each reports, and whether a symbolic witness is a real conflict.
#pragma once

#include <set>
#include <string>

#include "core/gir/Graph.h"
#include "core/gir/MemoryChecker.h"

namespace gir::test {

std::set<FindingKind> findingKinds(const MemoryCheckReport& r);
std::string kindList(const std::set<FindingKind>& kinds);  // "race, scope violation" for messages

// Empty when `f` is a real conflict per the slices: both units run their nodes and touch the element
// (a write where the kind needs one; different scope instances for a scope violation); else why not.
std::string witnessProblem(const Graph& g, const MemoryFinding& f);

// The verifier's old unit-by-unit bounds scan (the reference for the symbolic one): the message for the
// first (node, slice, unit) out of bounds, or empty.
std::string perUnitBoundsError(const Graph& g);

}  // namespace gir::test
