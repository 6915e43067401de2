// Liveness of virtual flags on the structured program and merging until N fit (paper figure 14).
#include <algorithm>
#include <functional>
#include <map>
#include <optional>
#include <tuple>

#include "codegen/ascend/sync/SyncAlloc.h"

namespace gir::ascend {

namespace {

int pairOf(const VirtualFlag& f) { return static_cast<int>(f.src) * kNumPipes + static_cast<int>(f.dst); }

// The flags live at a point, per pipe pair in the order they were set: setting, waiting and counting
// cost a logarithm, not a scan of everything live (a fused transformer block has thousands live).
class LiveFlags {
 public:
  explicit LiveFlags(const SyncPlan& plan) : plan_(&plan), seq_(plan.flags.size(), -1) {}
  bool set(int vid) {
    if (seq_[vid] >= 0) return false;
    seq_[vid] = next_++;
    byPair_[pairOf(plan_->flags[vid])].emplace(seq_[vid], vid);
    return true;
  }
  void wait(int vid) {
    if (seq_[vid] < 0) return;
    byPair_[pairOf(plan_->flags[vid])].erase(seq_[vid]);
    seq_[vid] = -1;
  }
  // The live flags of vid's pipe pair, oldest first.
  std::vector<int> samePair(int vid) const {
    std::vector<int> out;
    auto it = byPair_.find(pairOf(plan_->flags[vid]));
    if (it != byPair_.end())
      for (const auto& [seq, v] : it->second) out.push_back(v);
    return out;
  }
  int countSamePair(int vid) const {
    auto it = byPair_.find(pairOf(plan_->flags[vid]));
    return it == byPair_.end() ? 0 : static_cast<int>(it->second.size());
  }

 private:
  const SyncPlan* plan_;
  std::vector<long> seq_;  // per vid; -1 when not live
  long next_ = 0;
  std::map<int, std::map<long, int>> byPair_;
};

// Called at each set that makes a flag live; returning false stops the walk there.
using OnSet = std::function<bool(int vid, const LiveFlags& live)>;

// Every (block, slot) of the program numbered once, so a walk buckets the syncs by a vector index.
class SlotTable {
 public:
  explicit SlotTable(const ProgramIndex& ix) : base_(2 * static_cast<size_t>(ix.size()) + 2, -1) { add(ix, BlockRef{}); }
  int of(BlockRef b, int slot) const { return base_[key(b)] + slot; }
  int size() const { return size_; }

 private:
  static size_t key(BlockRef b) { return 2 * static_cast<size_t>(b.owner + 1) + static_cast<size_t>(b.branch); }
  void add(const ProgramIndex& ix, BlockRef ref) {
    const auto& b = ix.block(ref);
    base_[key(ref)] = size_;
    size_ += static_cast<int>(b.size()) + 1;
    for (const Stmt& st : b) {
      if (st.kind == StmtKind::Loop || st.kind == StmtKind::If) add(ix, BlockRef{st.uid, 0});
      if (st.kind == StmtKind::If) add(ix, BlockRef{st.uid, 1});
    }
  }
  std::vector<int> base_;
  int size_ = 0;
};

class LiveWalker {
 public:
  // Syncs are bucketed by slot in one pass and each bucket is sorted when the walk reaches it, so a
  // walk that stops early pays for the prefix it walked (mergeUntilFits walks once per group).
  LiveWalker(const ProgramIndex& ix, const SlotTable& slots, const SyncPlan& plan, OnSet cb)
      : ix_(ix), slots_(slots), plan_(plan), cb_(std::move(cb)), at_(static_cast<size_t>(slots.size())) {
    for (const auto& s : plan.syncs)
      if (s.vid >= 0) at_[static_cast<size_t>(slots.of(s.at.block, s.at.slot))].push_back(&s);
  }
  // Walks the whole program; false when the callback stopped it.
  bool walk() {
    LiveFlags live(plan_);
    return walk(BlockRef{}, live);
  }

 private:
  bool walk(BlockRef ref, LiveFlags& live);
  bool visit(BlockRef ref, int slot, LiveFlags& live);
  const ProgramIndex& ix_;
  const SlotTable& slots_;
  const SyncPlan& plan_;
  OnSet cb_;
  std::vector<std::vector<const PlacedSync*>> at_;
};

bool LiveWalker::visit(BlockRef ref, int slot, LiveFlags& live) {
  auto& here = at_[static_cast<size_t>(slots_.of(ref, slot))];
  // Buckets fill in plan order, which is pid order: a stable sort by order alone gives (order, pid).
  std::stable_sort(here.begin(), here.end(), [](auto* a, auto* c) { return a->at.order < c->at.order; });
  for (const PlacedSync* s : here) {
    if (s->op.kind == SyncKind::Wait) live.wait(s->vid);
    else if (live.set(s->vid) && !cb_(s->vid, live)) return false;
  }
  return true;
}

bool LiveWalker::walk(BlockRef ref, LiveFlags& live) {
  const auto& b = ix_.block(ref);
  for (size_t k = 0; k <= b.size(); ++k) {
    if (!visit(ref, static_cast<int>(k), live)) return false;
    if (k == b.size()) break;
    const Stmt& st = b[k];
    if (st.kind == StmtKind::Loop && !walk(BlockRef{st.uid, 0}, live)) return false;
    if (st.kind == StmtKind::If) {
      LiveFlags other = live;
      if (!walk(BlockRef{st.uid, 1}, other) || !walk(BlockRef{st.uid, 0}, live)) return false;
    }
  }
  return true;
}

struct GroupPlace {
  Point set, wait;
  int loop = -1;
};

// Lifted placement for a group of dependencies in their deepest common block.
std::optional<GroupPlace> placeGroup(const ProgramIndex& ix, const std::vector<Dep>& deps, const std::vector<int>& ids,
                                     bool cross) {
  std::vector<const std::vector<int>*> paths;
  for (int k : ids) {
    paths.push_back(&ix.info(deps[k].src).path);
    paths.push_back(&ix.info(deps[k].dst).path);
  }
  size_t m = 0;
  auto same = [&](size_t lvl) {
    for (auto* p : paths)
      if (p->size() <= lvl + 1 || (*p)[lvl] != (*paths[0])[lvl]) return false;
    return true;
  };
  while (same(m)) ++m;
  BlockRef blk = ix.info((*paths[0])[m]).block;
  for (auto* p : paths)
    if (ix.info((*p)[m]).block != blk) return std::nullopt;
  int sSlot = 0, wSlot = 1 << 30;
  for (int k : ids) {
    sSlot = std::max(sSlot, ix.info(ix.info(deps[k].src).path[m]).index + 1);
    wSlot = std::min(wSlot, ix.info(ix.info(deps[k].dst).path[m]).index);
  }
  GroupPlace g{Point{blk, sSlot, 10}, Point{blk, wSlot, 20}, -1};
  if (!cross) {
    if (sSlot > wSlot) return std::nullopt;
    return g;
  }
  // A dependency carried by a loop inside the common block needs its sync inside that loop.
  for (int k : ids)
    if (diverge(ix, deps[k].src, deps[k].dst).level != m) return std::nullopt;
  for (size_t j = 0; j < m; ++j)
    if (ix.info((*paths[0])[j]).stmt->kind == StmtKind::Loop) { g.loop = (*paths[0])[j]; break; }
  if (g.loop < 0 || wSlot >= sSlot) return std::nullopt;
  return g;
}

bool isCross(VKind k) { return k == VKind::Cross || k == VKind::Unreachable; }

// The merges and demotions of one over-full group, applied to plan.syncs in one pass at the end
// (erasing per merge cost the whole sync list each time).
struct Edits {
  explicit Edits(const SyncPlan& plan) : freshFrom(plan.flags.size(), 0) {}
  std::vector<int> freshFrom;  // per vid: its syncs with a lower pid were replaced by a merge
  void apply(SyncPlan& plan) const {
    plan.syncs.erase(std::remove_if(plan.syncs.begin(), plan.syncs.end(),
                                    [&](const PlacedSync& s) { return s.vid >= 0 && s.pid < freshFrom[s.vid]; }),
                     plan.syncs.end());
    plan.dropSyncsOfDeadFlags();
  }
};

bool tryMerge(const ProgramIndex& ix, const std::vector<Dep>& deps, SyncPlan& plan, int a, int b, bool crossPass,
              Edits& edits, std::vector<std::string>& log) {
  VirtualFlag& fa = plan.flags[a];
  VirtualFlag& fb = plan.flags[b];
  if (fa.kind == VKind::Reverse || fb.kind == VKind::Reverse) return false;
  if (crossPass != isCross(fa.kind) || crossPass != isCross(fb.kind)) return false;
  if (crossPass && fa.loop != fb.loop) return false;
  std::vector<int> ids = fa.deps;
  ids.insert(ids.end(), fb.deps.begin(), fb.deps.end());
  auto g = placeGroup(ix, deps, ids, crossPass);
  if (!g) return false;
  fb.alive = false;
  edits.freshFrom[a] = plan.nextPid;
  fa.deps = ids;
  fa.merged = true;
  if (crossPass) fa.kind = VKind::Cross;
  plan.add(g->set, SyncKind::Set, fa);
  plan.add(g->wait, SyncKind::Wait, fa);
  if (crossPass) {
    const StmtInfo& L = ix.info(g->loop);
    plan.add(Point{L.block, L.index, 10}, SyncKind::Set, fa);
    plan.add(Point{L.block, L.index + 1, 20}, SyncKind::Wait, fa);
  }
  log.push_back("flag " + std::to_string(b) + " merged into flag " + std::to_string(a) + " (" +
                (crossPass ? "cross-iteration" : "forward") + ", " + std::to_string(ids.size()) + " dependencies)");
  return true;
}

void demote(SyncPlan& plan, int vid, const Edits& edits, std::vector<std::string>& log) {
  std::vector<Point> waits;
  for (const auto& s : plan.syncs)
    if (s.vid == vid && s.pid >= edits.freshFrom[vid] && s.op.kind == SyncKind::Wait) waits.push_back(s.at);
  plan.flags[vid].alive = false;
  for (const auto& w : waits) plan.addBarrierAll(w);
  log.push_back("flag " + std::to_string(vid) + " cannot merge with a live flag: replaced by pipe_barrier ALL at its waits");
}

// Merges flags of a group live together at one point until n are left there, demoting a flag to
// pipe_barrier ALL when no pair merges. Merging never makes a flag live earlier or later than before
// (the combined set is after both sets, the combined wait before both waits), so points before this
// one stay within n and the next walk goes on to the next over-full point: one walk per group, not
// one per merge. A merged flag stays in the group even where its new set moved past the point, so a
// group can merge once more than the point needed.
void shrinkGroup(const ProgramIndex& ix, const std::vector<Dep>& deps, SyncPlan& plan, std::vector<int> group, int n,
                 std::vector<std::string>& log) {
  Edits edits(plan);
  while (static_cast<int>(group.size()) > n) {
    std::optional<size_t> gone;
    for (int pass = 0; pass < 2 && !gone; ++pass)
      for (size_t i = 0; i < group.size() && !gone; ++i)
        for (size_t j = i + 1; j < group.size() && !gone; ++j) {
          int a = std::min(group[i], group[j]), b = std::max(group[i], group[j]);
          if (tryMerge(ix, deps, plan, a, b, pass == 0, edits, log)) gone = group[i] == b ? i : j;
        }
    if (!gone) {
      demote(plan, group.back(), edits, log);
      gone = group.size() - 1;
    }
    group.erase(group.begin() + static_cast<long>(*gone));
  }
  edits.apply(plan);
}

}  // namespace

bool applyGroupDecisions(const ProgramIndex& ix, const std::vector<Dep>& deps, SyncPlan& plan,
                         const std::vector<GroupDecision>& decisions, std::vector<std::string>& log) {
  Edits edits(plan);
  for (const GroupDecision& d : decisions) {
    if (d.barrier) {
      demote(plan, d.vid, edits, log);
    } else if (d.into >= 0) {
      if (!plan.flags[d.into].alive || !tryMerge(ix, deps, plan, d.into, d.vid, isCross(plan.flags[d.into].kind), edits, log))
        return false;
    }
  }
  edits.apply(plan);
  return true;
}

int maxLive(const ProgramIndex& ix, const SyncPlan& plan) {
  int best = 0;
  SlotTable slots(ix);
  LiveWalker(ix, slots, plan, [&](int vid, const LiveFlags& live) {
    best = std::max(best, live.countSamePair(vid));
    return true;
  }).walk();
  return best;
}

std::vector<std::string> mergeUntilFits(const ProgramIndex& ix, const std::vector<Dep>& deps, SyncPlan& plan, int n) {
  std::vector<std::string> log;
  SlotTable slots(ix);
  for (int guard = 0; guard < 100000; ++guard) {
    std::vector<int> over;
    LiveWalker(ix, slots, plan, [&](int vid, const LiveFlags& live) {
      if (live.countSamePair(vid) <= n) return true;
      over = live.samePair(vid);
      return false;
    }).walk();
    if (over.empty()) break;
    shrinkGroup(ix, deps, plan, std::move(over), n, log);
  }
  return log;
}

}  // namespace gir::ascend
