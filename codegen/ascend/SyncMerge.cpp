// Liveness of virtual flags on the structured program and merging until N fit (paper figure 14).
#include <algorithm>
#include <functional>
#include <map>
#include <tuple>
#include <optional>

#include "codegen/ascend/SyncAlloc.h"

namespace gir::ascend {

namespace {

using OnSet = std::function<void(int vid, const std::vector<int>& live)>;

class LiveWalker {
 public:
  // The syncs are bucketed by (block, slot) once, so a walk costs the program plus the syncs, not
  // their product (a fused transformer block's 976-line program took minutes per allocation).
  LiveWalker(const ProgramIndex& ix, const SyncPlan& plan, OnSet cb) : ix_(ix), cb_(std::move(cb)) {
    for (const auto& s : plan.syncs)
      if (s.vid >= 0) at_[{s.at.block.owner, s.at.block.branch, s.at.slot}].push_back(&s);
  }
  std::vector<int> walk(BlockRef ref, std::vector<int> live);

 private:
  const ProgramIndex& ix_;
  OnSet cb_;
  std::map<std::tuple<int, int, int>, std::vector<const PlacedSync*>> at_;
};

std::vector<int> LiveWalker::walk(BlockRef ref, std::vector<int> live) {
  const auto& b = ix_.block(ref);
  for (size_t k = 0; k <= b.size(); ++k) {
    auto bucket = at_.find({ref.owner, ref.branch, static_cast<int>(k)});
    std::vector<const PlacedSync*> here;
    if (bucket != at_.end()) here = bucket->second;
    std::sort(here.begin(), here.end(), [](auto* a, auto* c) {
      return a->at.order != c->at.order ? a->at.order < c->at.order : a->pid < c->pid;
    });
    for (const PlacedSync* s : here) {
      auto it = std::find(live.begin(), live.end(), s->vid);
      if (s->op.kind == SyncKind::Wait) {
        if (it != live.end()) live.erase(it);
      } else if (it == live.end()) {
        live.push_back(s->vid);
        cb_(s->vid, live);
      }
    }
    if (k == b.size()) break;
    const Stmt& st = b[k];
    if (st.kind == StmtKind::Loop) live = walk(BlockRef{st.uid, 0}, live);
    if (st.kind == StmtKind::If) {
      walk(BlockRef{st.uid, 1}, live);
      live = walk(BlockRef{st.uid, 0}, live);
    }
  }
  return live;
}

std::vector<int> samePair(const SyncPlan& plan, int vid, const std::vector<int>& live) {
  std::vector<int> out;
  const VirtualFlag& f = plan.flags[vid];
  for (int v : live)
    if (plan.flags[v].src == f.src && plan.flags[v].dst == f.dst) out.push_back(v);
  return out;
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

bool tryMerge(const ProgramIndex& ix, const std::vector<Dep>& deps, SyncPlan& plan, int a, int b, bool crossPass,
              std::vector<std::string>& log) {
  VirtualFlag& fa = plan.flags[a];
  VirtualFlag& fb = plan.flags[b];
  if (fa.kind == VKind::Reverse || fb.kind == VKind::Reverse) return false;
  if (crossPass != isCross(fa.kind) || crossPass != isCross(fb.kind)) return false;
  if (crossPass && fa.loop != fb.loop) return false;
  std::vector<int> ids = fa.deps;
  ids.insert(ids.end(), fb.deps.begin(), fb.deps.end());
  auto g = placeGroup(ix, deps, ids, crossPass);
  if (!g) return false;
  plan.removeFlag(b);
  plan.syncs.erase(std::remove_if(plan.syncs.begin(), plan.syncs.end(), [&](const PlacedSync& s) { return s.vid == a; }),
                   plan.syncs.end());
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

void demote(SyncPlan& plan, int vid, std::vector<std::string>& log) {
  std::vector<Point> waits;
  for (const auto& s : plan.syncs)
    if (s.vid == vid && s.op.kind == SyncKind::Wait) waits.push_back(s.at);
  plan.removeFlag(vid);
  for (const auto& w : waits) plan.addBarrierAll(w);
  log.push_back("flag " + std::to_string(vid) + " cannot merge with a live flag: replaced by pipe_barrier ALL at its waits");
}

}  // namespace

int maxLive(const ProgramIndex& ix, const SyncPlan& plan) {
  int best = 0;
  LiveWalker w(ix, plan, [&](int vid, const std::vector<int>& live) {
    best = std::max(best, static_cast<int>(samePair(plan, vid, live).size()));
  });
  w.walk(BlockRef{}, {});
  return best;
}

std::vector<std::string> mergeUntilFits(const ProgramIndex& ix, const std::vector<Dep>& deps, SyncPlan& plan, int n) {
  std::vector<std::string> log;
  for (int guard = 0; guard < 100000; ++guard) {
    std::vector<int> over;
    LiveWalker w(ix, plan, [&](int vid, const std::vector<int>& live) {
      auto same = samePair(plan, vid, live);
      if (over.empty() && static_cast<int>(same.size()) > n) over = same;
    });
    w.walk(BlockRef{}, {});
    if (over.empty()) break;
    bool done = false;
    for (int pass = 0; pass < 2 && !done; ++pass)
      for (size_t i = 0; i < over.size() && !done; ++i)
        for (size_t j = i + 1; j < over.size() && !done; ++j)
          done = tryMerge(ix, deps, plan, std::min(over[i], over[j]), std::max(over[i], over[j]), pass == 0, log);
    if (!done) demote(plan, over.back(), log);
  }
  return log;
}

}  // namespace gir::ascend
