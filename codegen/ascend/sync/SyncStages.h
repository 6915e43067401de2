// Stages 2-5 of the sync insertion (docs/ascend.md, "The insertion"), each a free function on the plan:
// CFG normalization, virtual set/wait insertion, redundant removal (figure 13), the mod-2 parity fix.
#pragma once

#include <string>
#include <vector>

#include "codegen/ascend/sync/SyncDeps.h"
#include "codegen/ascend/sync/SyncPlan.h"

namespace gir::ascend {

// Every if gets an else (an empty one when it had none); uids are renumbered. In the structured
// form a loop's preheader is the slot before it and its single exit the slot after it.
Program normalizeCfg(const Program& input);

// One virtual flag per dependency with unlimited IDs: set after src and wait before dst, both hoisted
// out of the loops the other end is not in; cross-iteration flags get a set in the preheader and a
// wait in the exit of the outermost common loop; mutually unreachable pairs get wait-before-set and
// set-after-wait. With liftIfs a set or wait is also hoisted out of the ifs the other end is not in:
// the flags of a value written in both branches then coincide and figure 13 keeps one.
void insertVirtual(const ProgramIndex& ix, const std::vector<Dep>& deps, SyncPlan& plan, bool liftIfs = false);

// Figure 13: a forward flag B is redundant when another flag A of the same pipe pair has its set
// post-dominating B's set and its wait dominating B's wait (cases a and b are the equal-point ones).
// With coverCross, cross-iteration flags of one loop cover each other by the same test on their own
// set and wait (docs/ascend.md, "Why rings lost to barrier-all"). Returns one line per removed flag.
std::vector<std::string> removeRedundant(const ProgramIndex& ix, SyncPlan& plan, bool coverCross = true);

// At every if whose branches leave a flag in different states, the branch with fewer of its ops gets
// a set (target state 1) or a wait (target state 0) at its end. Returns one line per inserted op.
std::vector<std::string> fixParity(const ProgramIndex& ix, SyncPlan& plan);

}  // namespace gir::ascend
