// Normalization, virtual insertion, figure-13 removal and the parity fix on the structured program.
#include "codegen/ascend/SyncStages.h"

#include <algorithm>

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

// After uid, hoisted out of the outermost loop among path levels [from, end).
Point afterLifted(const ProgramIndex& ix, int uid, size_t from) {
  const auto& path = ix.info(uid).path;
  for (size_t j = from; j + 1 < path.size(); ++j)
    if (isLoop(ix, path[j])) return Point{ix.info(path[j]).block, ix.info(path[j]).index + 1, 10};
  return Point{ix.info(uid).block, ix.info(uid).index + 1, 10};
}

Point beforeLifted(const ProgramIndex& ix, int uid, size_t from) {
  const auto& path = ix.info(uid).path;
  for (size_t j = from; j + 1 < path.size(); ++j)
    if (isLoop(ix, path[j])) return Point{ix.info(path[j]).block, ix.info(path[j]).index, 20};
  return Point{ix.info(uid).block, ix.info(uid).index, 20};
}

// The outermost loop enclosing path level `level` of uid; -1 when none.
int outerLoop(const ProgramIndex& ix, int uid, size_t level) {
  const auto& path = ix.info(uid).path;
  for (size_t j = 0; j < level && j < path.size(); ++j)
    if (isLoop(ix, path[j])) return path[j];
  return -1;
}

}  // namespace

void insertVirtual(const ProgramIndex& ix, const std::vector<Dep>& deps, SyncPlan& plan) {
  for (size_t k = 0; k < deps.size(); ++k) {
    const Dep& d = deps[k];
    Divergence dv = diverge(ix, d.src, d.dst);
    VKind kind = d.shape == DepShape::Forward ? VKind::Forward
                 : d.shape == DepShape::Cross ? VKind::Cross
                                              : VKind::Unreachable;
    int vid = plan.newFlag(d.srcPipe, d.dstPipe, kind);
    VirtualFlag& f = plan.flags[vid];
    f.deps.push_back(static_cast<int>(k));
    Point s = afterLifted(ix, d.src, dv.level);
    Point w = beforeLifted(ix, d.dst, dv.level);
    // Only iterations two or more apart conflict (ping-pong by modulo indices): the wait may come right
    // after dst, consuming the previous iteration's set, so dst runs one iteration ahead of src.
    if (kind == VKind::Cross && d.minDistance >= 2) {
      w = afterLifted(ix, d.dst, dv.level);
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

static bool findPoint(const SyncPlan& plan, int vid, SyncKind kind, Point& out) {
  int n = 0;
  for (const auto& s : plan.syncs)
    if (s.vid == vid && s.op.kind == kind) { out = s.at; ++n; }
  return n == 1;
}

std::vector<std::string> removeRedundant(const ProgramIndex& ix, SyncPlan& plan) {
  std::vector<std::string> log;
  for (auto& b : plan.flags) {
    if (!b.alive || b.kind != VKind::Forward) continue;
    Point sb, wb;
    if (!findPoint(plan, b.vid, SyncKind::Set, sb) || !findPoint(plan, b.vid, SyncKind::Wait, wb)) continue;
    for (const auto& a : plan.flags) {
      if (a.vid == b.vid || !a.alive || a.kind != VKind::Forward || a.src != b.src || a.dst != b.dst) continue;
      Point sa, wa;
      if (!findPoint(plan, a.vid, SyncKind::Set, sa) || !findPoint(plan, a.vid, SyncKind::Wait, wa)) continue;
      bool sameS = samePoint(sa, sb), sameW = samePoint(wa, wb);
      if (sameS && sameW && a.vid > b.vid) continue;  // identical: keep the first
      if (!(sameS || postDominates(ix, sa, sb)) || !(sameW || dominates(ix, wa, wb))) continue;
      const char* why = sameS ? "case a: same set, its wait dominates" : sameW ? "case b: same wait, its set post-dominates"
                                                                               : "case c: set post-dominates and wait dominates";
      log.push_back("flag " + std::to_string(b.vid) + " removed: covered by flag " + std::to_string(a.vid) + " (" + why + ")");
      plan.removeFlag(b.vid);
      break;
    }
  }
  return log;
}

namespace {

class ParityFixer {
 public:
  ParityFixer(const ProgramIndex& ix, SyncPlan& plan, int vid) : ix_(ix), plan_(plan), vid_(vid) {}
  int walk(BlockRef ref, int state, std::vector<std::string>& log);

 private:
  int opsIn(BlockRef ref) const;
  const ProgramIndex& ix_;
  SyncPlan& plan_;
  int vid_;
};

// Number of this flag's ops placed anywhere inside the block (nested blocks included).
int ParityFixer::opsIn(BlockRef ref) const {
  int n = 0;
  for (const auto& s : plan_.syncs) {
    if (s.vid != vid_) continue;
    auto loc = ix_.location(s.at);
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
    for (const auto& s : plan_.syncs)
      if (s.vid == vid_ && s.at.block == ref && s.at.slot == static_cast<int>(k)) state ^= 1;
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
  for (size_t v = 0; v < plan.flags.size(); ++v)
    if (plan.flags[v].alive) ParityFixer(ix, plan, static_cast<int>(v)).walk(BlockRef{}, 0, log);
  return log;
}

}  // namespace gir::ascend
