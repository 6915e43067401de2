// Stages 6-7 of the sync insertion (docs/ascend.md, "The insertion"): merge virtual flags until at most N are live
// at every point of every pipe pair, then give each a physical ID by greedy colouring, checking that
// every wait of the previous user of an ID happens before the next set (else a reverse set/wait pair).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "codegen/ascend/asck/AsckTrace.h"
#include "codegen/ascend/sync/SyncDeps.h"
#include "codegen/ascend/sync/SyncPlan.h"

namespace gir::ascend {

// Merges (cross-iteration flags of one loop first, then forward flags whose combined set still comes
// before the combined wait); when no pair can merge, the flag is replaced by pipe_barrier ALL at its waits.
std::vector<std::string> mergeUntilFits(const ProgramIndex& ix, const std::vector<Dep>& deps, SyncPlan& plan, int n);

// One decision of the exact search (FlagOptimal.h) about a flag: keep it, merge it into an earlier kept
// flag of its pipe pair (the merge rule's placement), or replace it by pipe_barrier ALL at its waits.
struct GroupDecision {
  int vid = 0;
  int into = -1;
  bool barrier = false;
};

// Applies the decisions in order; false when a merge cannot be placed (then the plan is half edited).
bool applyGroupDecisions(const ProgramIndex& ix, const std::vector<Dep>& deps, SyncPlan& plan,
                         const std::vector<GroupDecision>& decisions, std::vector<std::string>& log);

// Highest number of flags of one pipe pair live at one point.
int maxLive(const ProgramIndex& ix, const SyncPlan& plan);

struct Assignment {
  std::vector<int> color;                    // per vid; -1 for dead flags
  std::vector<std::pair<int, int>> unordered;  // (wait pid, next set pid) sharing an ID without happens-before
  std::vector<std::string> log;
};

// How IDs are chosen (docs/ascend.md, "The portfolio" and "The exact search").
struct IdPolicy {
  // When no ID keeps every wait before the next set: the ID with the fewest unordered pairs (a free one
  // costs only the flag's own), else the first.
  bool fewestReversePairs = true;
  // A pipe pair with at most n flags gives each its own ID (sharing only adds orderings).
  bool distinctWhenFits = false;
};

// The plan with each flag's physical ID from the assignment, as a program.
Program materializePhysical(const ProgramIndex& ix, SyncPlan plan, const Assignment& a);

// paths: branch decisions of the representative runs the happens-before check looks at.
Assignment assignPhysical(const ProgramIndex& ix, SyncPlan& plan, int n, const std::vector<std::vector<char>>& paths,
                          const IdPolicy& policy = {});

// All whole-run paths when there are at most `limit`, else all-then, all-else and `samples` seeded random ones.
std::vector<std::vector<char>> representativePaths(const Program& p, int64_t limit, int samples);

struct AllocCounts {
  int merges = 0, reversePairs = 0, rounds = 0;
};

// The runs the assignment decides on (every path up to 16, else 10) and those it must then hold on
// (every path up to 256, else 66): they depend only on the program's ifs, so a caller judging many
// plans of one program computes them once.
struct AssignRuns {
  std::vector<std::vector<char>> decide, judged;
};
AssignRuns assignRuns(const Program& normalized);

// Stages merge and physical: mergeUntilFits, assignPhysical, then reverse pairs until every judged run
// orders each wait before the next set of its ID. afterFirstMerge renders the merge dump.
Assignment allocateIds(const ProgramIndex& ix, const std::vector<Dep>& deps, SyncPlan& plan, int flags,
                       const IdPolicy& policy, const AssignRuns& runs, AllocCounts& counts,
                       std::vector<std::string>& mergeLog, std::vector<std::string>& physLog,
                       const std::function<void()>& afterFirstMerge);

// The happen-before check again on the physical program over a larger set of runs (the oracle's
// judgement of robustness for flags): unordered (wait pid, next set pid) pairs. interferes: two flags
// sharing an ID are live at once on some run (the colouring must be redone on these runs).
std::vector<std::pair<int, int>> verifyPhysical(const ProgramIndex& ix, const SyncPlan& plan, const Assignment& a,
                                               const std::vector<std::vector<char>>& paths, bool& interferes);

// For each unordered (wait, set): set_flag back right after the wait and wait_flag right before the set
// (with preheader/exit when the set comes first in a loop); pipe_barrier ALL when that is impossible.
std::vector<std::string> insertReversePairs(const ProgramIndex& ix, SyncPlan& plan,
                                            const std::vector<std::pair<int, int>>& unordered, bool barriersOnly);

// True when the plan's program drains on every given run (no wait left without its set).
bool runsComplete(const ProgramIndex& ix, const SyncPlan& plan, const std::vector<std::vector<char>>& paths);

// A replayable branch chooser over recorded decisions (then after they run out).
struct ReplayChoice {
  const std::vector<char>* decisions = nullptr;
  size_t pos = 0;
  bool operator()() { return decisions && pos < decisions->size() ? (*decisions)[pos++] != 0 : true; }
};

}  // namespace gir::ascend
