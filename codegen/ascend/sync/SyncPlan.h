// The sync insertion's working representation (docs/ascend.md, "The insertion"): the normalized input stays
// immutable and every inserted set/wait/barrier is a PlacedSync at a program point (block, slot, order).
// Stages edit the list of PlacedSyncs; materialize() produces the program text they stand for.
#pragma once

#include <string>
#include <vector>

#include "codegen/ascend/asck/AsckProgram.h"

namespace gir::ascend {

// A block: the root (owner -1), a loop body or then-block (branch 0), an else-block (branch 1).
struct BlockRef {
  int owner = -1;
  int branch = 0;
  bool operator==(const BlockRef& o) const { return owner == o.owner && branch == o.branch; }
  bool operator!=(const BlockRef& o) const { return !(*this == o); }
};

// Slot k of a block is the gap before its k-th statement (k == size: the end). Inside one slot,
// ops run by increasing order: sets after the previous instruction (10) before waits for the next (20).
struct Point {
  BlockRef block;
  int slot = 0;
  double order = 0;
};

struct StmtInfo {
  const Stmt* stmt = nullptr;
  BlockRef block;
  int index = 0;
  std::vector<int> path;  // uids of the enclosing statements, outermost first, ending with this one
};

// Lookup tables over the normalized input.
class ProgramIndex {
 public:
  explicit ProgramIndex(const Program& normalized);
  const Program& program() const { return prog_; }
  const StmtInfo& info(int uid) const { return infos_[uid]; }
  const std::vector<Stmt>& block(const BlockRef& b) const;
  int size() const { return static_cast<int>(infos_.size()); }
  std::vector<int> instrUids() const;
  // Comparable position of a point: per enclosing block, (block, 2*index+1) for statements and
  // 2*slot + order/1000 for the point itself.
  std::vector<std::pair<BlockRef, double>> location(const Point& p) const;

 private:
  void add(const std::vector<Stmt>& b, BlockRef ref, std::vector<int>& path);
  const Program& prog_;
  std::vector<StmtInfo> infos_;
};

// x runs before y on every path through their common block (same iteration context).
bool dominates(const ProgramIndex& ix, const Point& x, const Point& y);
// x runs after y on every path.
bool postDominates(const ProgramIndex& ix, const Point& x, const Point& y);
bool samePoint(const Point& x, const Point& y);

struct PlacedSync {
  int pid = 0;
  Point at;
  SyncOp op;  // op.id is the virtual (or, after assignment, physical) ID
  int vid = -1;  // -1 for barriers
  int afterPid = -1;  // >= 0: sits right after that sync of the same slot, whatever the orders
};

enum class VKind { Forward, Cross, Unreachable, Reverse };
const char* vkindName(VKind k);

struct VirtualFlag {
  int vid = 0;
  Pipe src = Pipe::S, dst = Pipe::S;
  VKind kind = VKind::Forward;
  std::vector<int> deps;  // indices into the dependency list
  int loop = -1;          // cross: uid of the loop whose preheader/exit hold the extra set/wait
  bool alive = true;
  bool merged = false;
};

struct SyncPlan {
  std::vector<PlacedSync> syncs;
  std::vector<VirtualFlag> flags;
  int nextPid = 0;

  void add(const Point& at, SyncKind kind, const VirtualFlag& f);
  void addBarrierAll(const Point& at, int afterPid = -1);
  void removeFlag(int vid);
  // Erases the syncs of every flag marked dead (one pass, for stages that kill many flags).
  void dropSyncsOfDeadFlags();
  int newFlag(Pipe src, Pipe dst, VKind kind);
};

// The program with every placed sync inserted; syncs carry their pid in Stmt::tag.
Program materialize(const ProgramIndex& ix, const SyncPlan& plan);
// Walk order of every placed sync (index = pid; -1 for removed ones).
std::vector<int> walkRanks(const ProgramIndex& ix, const SyncPlan& plan);

}  // namespace gir::ascend
