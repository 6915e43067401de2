// Normalization, virtual insertion, figure-13 removal and the parity fix on the structured program.
#include "codegen/ascend/sync/SyncStages.h"

#include <algorithm>
#include <map>

namespace gir::ascend {

static void addElses(std::vector<Stmt>& b) {
  for (auto& s : b) {
    if (s.kind == StmtKind::If) s.hasElse = true;
    addElses(s.body);
    addElses(s.elseBody);
  }
}

Program normalizeCfg(const Program& input) {
  Program p = input;
  addElses(p.body);
  numberStmts(p);
  return p;
}

namespace {

bool isLoop(const ProgramIndex& ix, int uid) { return ix.info(uid).stmt->kind == StmtKind::Loop; }

// A statement a sync is hoisted out of: a loop, and with liftIfs an if as well.
bool liftsOut(const ProgramIndex& ix, int uid, bool liftIfs) {
  StmtKind k = ix.info(uid).stmt->kind;
  return k == StmtKind::Loop || (liftIfs && k == StmtKind::If);
}

// After uid, hoisted out of the outermost lifted statement among path levels [from, end).
Point afterLifted(const ProgramIndex& ix, int uid, size_t from, bool liftIfs) {
  const auto& path = ix.info(uid).path;
  for (size_t j = from; j + 1 < path.size(); ++j)
    if (liftsOut(ix, path[j], liftIfs)) return Point{ix.info(path[j]).block, ix.info(path[j]).index + 1, 10};
  return Point{ix.info(uid).block, ix.info(uid).index + 1, 10};
}

Point beforeLifted(const ProgramIndex& ix, int uid, size_t from, bool liftIfs) {
  const auto& path = ix.info(uid).path;
  for (size_t j = from; j + 1 < path.size(); ++j)
    if (liftsOut(ix, path[j], liftIfs)) return Point{ix.info(path[j]).block, ix.info(path[j]).index, 20};
  return Point{ix.info(uid).block, ix.info(uid).index, 20};
}

// True when uid sits inside an if that is itself inside a loop (its executions skip iterations).
bool branchInsideLoop(const ProgramIndex& ix, int uid) {
  const auto& path = ix.info(uid).path;
  bool inLoop = false;
  for (size_t j = 0; j + 1 < path.size(); ++j) {
    if (inLoop && ix.info(path[j]).stmt->kind == StmtKind::If) return true;
    inLoop = inLoop || isLoop(ix, path[j]);
  }
  return false;
}

// The outermost loop enclosing path level `level` of uid; -1 when none.
int outerLoop(const ProgramIndex& ix, int uid, size_t level) {
  const auto& path = ix.info(uid).path;
  for (size_t j = 0; j < level && j < path.size(); ++j)
    if (isLoop(ix, path[j])) return path[j];
  return -1;
}

}  // namespace

void insertVirtual(const ProgramIndex& ix, const std::vector<Dep>& deps, SyncPlan& plan, bool liftIfs) {
  for (size_t k = 0; k < deps.size(); ++k) {
    const Dep& d = deps[k];
    Divergence dv = diverge(ix, d.src, d.dst);
    VKind kind = d.shape == DepShape::Forward ? VKind::Forward
                 : d.shape == DepShape::Cross ? VKind::Cross
                                              : VKind::Unreachable;
    int vid = plan.newFlag(d.srcPipe, d.dstPipe, kind);
    VirtualFlag& f = plan.flags[vid];
    f.deps.push_back(static_cast<int>(k));
    // Mutually unreachable ends share their if: nothing below the divergence is lifted for them.
    bool lift = liftIfs && kind != VKind::Unreachable;
    Point s = afterLifted(ix, d.src, dv.level, lift);
    Point w = beforeLifted(ix, d.dst, dv.level, lift);
    // Only iterations two or more apart conflict (ping-pong by modulo indices): the wait may come right
    // after dst, consuming the previous iteration's set, so dst runs one iteration ahead of src.
    // Unsound under an if inside the loop: the next execution of dst is then not the next iteration's
    // (masked_grid_2d: a relu at j=1 and the load at j=3 into the same tile are consecutive executions).
    if (kind == VKind::Cross && d.minDistance >= 2 && !branchInsideLoop(ix, d.src) && !branchInsideLoop(ix, d.dst)) {
      w = afterLifted(ix, d.dst, dv.level, lift);
      w.order = 20;
    }
    plan.add(s, SyncKind::Set, f);
    plan.add(w, SyncKind::Wait, f);
    if (kind == VKind::Forward) continue;
    f.loop = outerLoop(ix, d.src, dv.level);
    if (f.loop < 0) continue;
    const StmtInfo& L = ix.info(f.loop);
    plan.add(Point{L.block, L.index, 10}, SyncKind::Set, f);
    plan.add(Point{L.block, L.index + 1, 20}, SyncKind::Wait, f);
    if (kind != VKind::Unreachable) continue;
    plan.add(Point{s.block, s.slot, 9}, SyncKind::Wait, f);
    plan.add(Point{w.block, w.slot, 21}, SyncKind::Set, f);
  }
}

// Each flag's set and wait when it has exactly one of each (placed once: removing a flag changes no
// other flag's points), so the redundancy test below costs a lookup, not a scan of every sync.
// A cross-iteration flag's own set and wait are its first two ops (insertVirtual adds them first); its
// preheader set and exit wait are kept apart, they are the same for every cross flag of one loop.
struct SinglePoints {
  std::vector<int> sets, waits;
  std::vector<Point> set, wait;
  explicit SinglePoints(const SyncPlan& plan) : sets(plan.flags.size()), waits(plan.flags.size()), set(plan.flags.size()), wait(plan.flags.size()) {
    for (const auto& s : plan.syncs) {
      if (s.vid < 0 || static_cast<size_t>(s.vid) >= plan.flags.size()) continue;
      bool isSet = s.op.kind == SyncKind::Set;
      if (++(isSet ? sets : waits)[s.vid] == 1) (isSet ? set : wait)[s.vid] = s.at;
    }
  }
  // Forward: one set, one wait. Cross: its own pair plus the loop's preheader set and exit wait.
  bool coverCross = true;
  bool coverable(const VirtualFlag& f) const {
    if (f.kind == VKind::Forward) return sets[f.vid] == 1 && waits[f.vid] == 1;
    return coverCross && f.kind == VKind::Cross && f.loop >= 0 && sets[f.vid] == 2 && waits[f.vid] == 2;
  }
  // A cross flag pairs its set of iteration k with its wait of iteration k+1, so it covers another only
  // when both pair the same way: the same loop, own set and own wait in the same blocks as the other's.
  bool sameShape(const VirtualFlag& a, const VirtualFlag& b) const {
    if (a.kind != b.kind) return false;
    if (a.kind == VKind::Forward) return true;
    return a.loop == b.loop && set[a.vid].block == set[b.vid].block && wait[a.vid].block == wait[b.vid].block;
  }
};

std::vector<std::string> removeRedundant(const ProgramIndex& ix, SyncPlan& plan, bool coverCross) {
  std::vector<std::string> log;
  SinglePoints pts(plan);
  pts.coverCross = coverCross;
  // Flags by pipe pair, in flag order: only flags of one pair can cover each other.
  std::map<std::pair<Pipe, Pipe>, std::vector<int>> byPair;
  for (const auto& f : plan.flags)
    if (f.kind == VKind::Forward || f.kind == VKind::Cross) byPair[{f.src, f.dst}].push_back(f.vid);
  for (auto& b : plan.flags) {
    if (!b.alive || !pts.coverable(b)) continue;
    const Point &sb = pts.set[b.vid], &wb = pts.wait[b.vid];
    for (int av : byPair[{b.src, b.dst}]) {
      const auto& a = plan.flags[av];
      if (a.vid == b.vid || !a.alive || !pts.coverable(a) || !pts.sameShape(a, b)) continue;
      const Point &sa = pts.set[a.vid], &wa = pts.wait[a.vid];
      bool sameS = samePoint(sa, sb), sameW = samePoint(wa, wb);
      if (sameS && sameW && a.vid > b.vid) continue;  // identical: keep the first
      if (!(sameS || postDominates(ix, sa, sb)) || !(sameW || dominates(ix, wa, wb))) continue;
      const char* why = sameS ? "case a: same set, its wait dominates" : sameW ? "case b: same wait, its set post-dominates"
                                                                               : "case c: set post-dominates and wait dominates";
      log.push_back("flag " + std::to_string(b.vid) + " removed: covered by flag " + std::to_string(a.vid) + " (" + why + ")");
      b.alive = false;  // its syncs go in one pass below: erasing them per flag cost the whole list each time
      break;
    }
  }
  plan.dropSyncsOfDeadFlags();
  return log;
}

namespace {

// One flag's parity walk over the points of its own ops (given, so a walk costs the program and this
// flag's ops, not every sync of the plan at every slot).
class ParityFixer {
 public:
  ParityFixer(const ProgramIndex& ix, SyncPlan& plan, int vid, std::vector<Point> mine)
      : ix_(ix), plan_(plan), vid_(vid), mine_(std::move(mine)) {}
  int walk(BlockRef ref, int state, std::vector<std::string>& log);

 private:
  int opsIn(BlockRef ref) const;
  int opsAt(BlockRef ref, int slot) const {
    int n = 0;
    for (const Point& p : mine_) n += p.block == ref && p.slot == slot;
    return n;
  }
  const ProgramIndex& ix_;
  SyncPlan& plan_;
  int vid_;
  std::vector<Point> mine_;
};

// Number of this flag's ops placed anywhere inside the block (nested blocks included).
int ParityFixer::opsIn(BlockRef ref) const {
  int n = 0;
  for (const Point& at : mine_) {
    auto loc = ix_.location(at);
    auto inner = ix_.location(Point{ref, 0, 0});
    if (loc.size() < inner.size()) continue;
    bool inside = true;
    for (size_t i = 0; i < inner.size() && inside; ++i)
      inside = loc[i].first == inner[i].first && (i + 1 == inner.size() || loc[i].second == inner[i].second);
    n += inside;
  }
  return n;
}

int ParityFixer::walk(BlockRef ref, int state, std::vector<std::string>& log) {
  const auto& b = ix_.block(ref);
  for (size_t k = 0; k <= b.size(); ++k) {
    if (opsAt(ref, static_cast<int>(k)) % 2) state ^= 1;
    if (k == b.size()) break;
    const Stmt& st = b[k];
    if (st.kind == StmtKind::Loop) {
      walk(BlockRef{st.uid, 0}, state, log);
    } else if (st.kind == StmtKind::If) {
      BlockRef t{st.uid, 0}, e{st.uid, 1};
      int ts = walk(t, state, log), es = walk(e, state, log);
      if (ts != es) {
        bool fixElse = opsIn(t) >= opsIn(e);
        BlockRef fix = fixElse ? e : t;
        int target = fixElse ? ts : es;
        const VirtualFlag& f = plan_.flags[vid_];
        int end = static_cast<int>(ix_.block(fix).size());
        plan_.add(Point{fix, end, target ? 10.0 : 20.0}, target ? SyncKind::Set : SyncKind::Wait, f);
        mine_.push_back(Point{fix, end, target ? 10.0 : 20.0});
        log.push_back("flag " + std::to_string(vid_) + ": " + (target ? "set" : "wait") + " added at the end of the " +
                      (fixElse ? "else" : "then") + " branch of 'if " + st.var + "' (line " + std::to_string(st.line) + ")");
        ts = target;
      }
      state = ts;
    }
  }
  return state;
}

}  // namespace

std::vector<std::string> fixParity(const ProgramIndex& ix, SyncPlan& plan) {
  std::vector<std::string> log;
  std::vector<std::vector<Point>> points(plan.flags.size());
  for (const auto& s : plan.syncs)
    if (s.vid >= 0 && static_cast<size_t>(s.vid) < points.size()) points[s.vid].push_back(s.at);
  for (size_t v = 0; v < plan.flags.size(); ++v)
    if (plan.flags[v].alive) ParityFixer(ix, plan, static_cast<int>(v), std::move(points[v])).walk(BlockRef{}, 0, log);
  return log;
}

}  // namespace gir::ascend
