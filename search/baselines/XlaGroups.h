// The fusion state of the xla-like planner: groups of node instances (HLO fusions), each storing
// its roots. A node may be cloned into several groups; exactly one group stores it as a root
// while some other group still reads it (the invariant finalizePlan checks).
#pragma once

#include <set>
#include <vector>

#include "search/baselines/PlanModel.h"
#include "search/baselines/XlaRules.h"

namespace gir::search {

struct XlaGroup {
  std::set<int> nodes;
  std::set<int> roots;
  bool alive = true;
};

class XlaGroups {
 public:
  explicit XlaGroups(const PlanProblem& p);

  const XlaGroup& group(int g) const { return groups_[g]; }
  int size() const { return static_cast<int>(groups_.size()); }
  bool alive(int g) const { return groups_[g].alive; }
  bool isFusion(int g) const { return groups_[g].nodes.size() > 1; }
  bool isLibrary(int g) const;
  bool hasUnnestedReduce(int g) const;
  // The latest root: a group's position in the topological order of groups.
  int key(int g) const { return *groups_[g].roots.rbegin(); }
  // Alive groups sorted by key, ascending (producers first).
  std::vector<int> aliveInOrder() const;

  // Groups reading a root of g, ascending by key.
  std::vector<int> users(int g) const;
  // Groups whose roots g reads, descending by key (latest operand first, as XLA's queue).
  std::vector<int> operands(int g) const;
  // Groups reading tensor t (a problem input or a node's output) from outside themselves.
  std::vector<int> readersOf(TensorId t) const;
  // g's roots are read by a group other than `except`, or are problem outputs.
  bool usedBesides(int g, int except) const;
  bool reaches(int from, int to) const;
  // Every group reachable from g (its users, their users, ...). No node-level shortcut is valid:
  // a path may enter a multi-output group at one root and leave it at another.
  std::set<int> downstream(int g) const;

  // Clones producer's nodes into consumer (instruction fusion, FusionMerger).
  void cloneInto(int producer, int consumer);
  // consumer absorbs `other` with its roots (multi-output fusion); `other` dies.
  void absorb(int consumer, int other);
  void erase(int g);

 private:
  const PlanProblem& p_;
  std::vector<XlaGroup> groups_;
  std::vector<std::set<int>> memberOf_;  // node -> alive groups holding an instance
  std::vector<int> rootOwner_;           // node -> alive group storing it, or -1
};

// The stages of the xla-like pipeline; each logs its decisions into plan and says if it changed
// anything. Stage A and B: XlaPlanner.cpp; stage C: XlaMultiOutput.cpp.
bool runInstructionFusion(const PlanProblem& p, XlaGroups& gs, const XlaOptions& o, bool mayDuplicate, Plan& plan);
bool runFusionMerger(const PlanProblem& p, XlaGroups& gs, const XlaOptions& o, Plan& plan);
void runMultiOutputFusion(const PlanProblem& p, XlaGroups& gs, const XlaOptions& o, Plan& plan);
void logDecision(Plan& plan, int producer, int consumer, std::string rule, bool accepted, std::string detail = "");

}  // namespace gir::search
