// The exact search for small kernels (docs/ascend.md, "The exact search"): branch and bound over
// which of the dependency flags merge and which become pipe_barrier ALL, on both virtual placements,
// with distinct IDs wherever a pipe pair's flags fit, completed by the insertion's reverse-pair rule
// and judged by simulation. It proves the best makespan over that space, so `gir ascend-sync
// --optimal` can say how far the heuristic is from it.
#pragma once

#include <cstdint>
#include <string>

#include "codegen/ascend/asck/AsckProgram.h"
#include "codegen/ascend/asck/AsckTarget.h"
#include "core/Expected.h"

namespace gir::ascend {

struct OptimalOptions {
  int flags = 4;                 // physical IDs per pipe pair
  const Target* target = nullptr;  // latencies; null: Target{}
  int maxFlags = 16;             // dependency flags after redundant removal, per virtual placement
  int64_t maxLeaves = 20000;     // complete candidates judged before the proof is given up
  int sampledPaths = 256;        // random paths (besides all-then, all-else) when there are over 4096
  bool useBound = true;          // false: judge every candidate (tests check the bound prunes no optimum)
};

struct OptimalResult {
  bool proved = false;       // every candidate of the space was judged or bounded away
  std::string reason;        // why not, when not
  double cycles = 0;         // the best candidate's mean nominal makespan over the search's paths
  double barrierAll = 0;     // barrier-all on the same paths (a candidate too)
  double ideal = 0;          // every conflict kept at zero cost: no placement beats it
  int64_t paths = 0;         // the search's paths: all when at most 4096, else sampledPaths + 2
  Program output;            // the best candidate (passes the normative oracle)
  std::string best;          // its decisions in words
  int64_t leaves = 0, bounded = 0, infeasible = 0;
  int flagsSearched = 0;     // most dependency flags of one virtual placement
  bool sharedIds = false;    // some judged candidate shared IDs (greedy rule, not searched): no proof
  double millis = 0;
};

Expected<OptimalResult> searchOptimal(const Program& input, const OptimalOptions& opt);

// Mean nominal makespan of a program over the search's paths for `input` (to compare any output,
// such as the heuristic's, with the optimum on the same runs).
double searchPathsMakespan(const Program& input, const Program& output, const Target& target, int sampledPaths = 256);

// The heuristic's output against the exact optimum with the target's IDs and with the other count
// (4 <-> 8), all on the search's paths: is a gap the heuristic's, or forced by the IDs?
struct GapReport {
  double heuristic = 0;
  int ids = 4, otherIds = 8;
  OptimalResult optimum, otherOptimum;
  double gap() const { return optimum.cycles > 0 ? heuristic / optimum.cycles - 1.0 : 0.0; }
};

Expected<GapReport> measureGap(const Program& input, const Program& heuristicOutput, const Target& target,
                               const OptimalOptions& limits = {});

// A few lines for `gir ascend-sync --optimal` and the app's Ascend tab.
std::string gapText(const GapReport& g);

}  // namespace gir::ascend
