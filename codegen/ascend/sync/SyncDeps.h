// Stage 1 of the sync insertion (docs/ascend.md, "The insertion", Dependencies): which pairs of static instructions on different
// pipes conflict (RAW/WAR/WAW), in the same iteration or across iterations of their common loops.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "codegen/ascend/sync/SyncPlan.h"

namespace gir::ascend {

enum class DepShape {
  Forward,      // src before dst in the text: one set after src, one wait before dst
  Cross,        // dst before src in a common loop: only later iterations depend
  Unreachable,  // src and dst in different branches of one if inside a loop
};
const char* depShapeName(DepShape s);

struct Dep {
  int src = -1, dst = -1;  // instruction uids
  Pipe srcPipe = Pipe::S, dstPipe = Pipe::S;
  std::string kind;  // RAW, WAR or WAW (the first found)
  DepShape shape = DepShape::Forward;
  bool sameIteration = false;  // conflicts within one iteration of the common loops
  bool carried = false;        // conflicts from an earlier iteration
  int64_t minDistance = 0;     // carried: fewest iterations (of the flattened common loops) between them
};

std::vector<Dep> analyzeDeps(const ProgramIndex& ix);
std::string dumpDeps(const ProgramIndex& ix, const std::vector<Dep>& deps);

// Where two statements part: the first level (index into their paths) at which they differ, and
// whether they sit in different branches of one if there.
struct Divergence {
  size_t level = 0;
  bool exclusive = false;
  bool firstBefore = false;  // a's statement comes before b's in their common block
};
Divergence diverge(const ProgramIndex& ix, int a, int b);

}  // namespace gir::ascend
