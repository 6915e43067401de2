// Conflicting pairs of a trace (docs/ascend.md, "Dependencies"): for each dynamic instruction b and each other pipe p,
// the latest earlier instruction of p that touches an overlapping region with at least one write.
// Queue order makes that one stand for every earlier conflicting instruction of p.
#pragma once

#include <functional>

#include "codegen/ascend/asck/AsckTrace.h"

namespace gir::ascend {

// onConflict(a, b): a is the latest conflicting op of pipe(a) before b. Return false to stop.
// onInstr(b): called after b's conflicts were reported. Returns false if stopped early.
bool forEachConflict(const Trace& t, const std::function<bool(int a, int b)>& onConflict,
                     const std::function<void(int b)>& onInstr = {});

// "RAW", "WAR" or "WAW" for a (earlier) and b, and the region they share ("xin[1]").
std::string conflictKind(const Trace& t, int a, int b);

}  // namespace gir::ascend
