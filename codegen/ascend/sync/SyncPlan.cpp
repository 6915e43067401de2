// Program points, dominance on the structured program, and materialization of a sync plan.
#include "codegen/ascend/sync/SyncPlan.h"

#include <algorithm>
#include <map>

namespace gir::ascend {

const char* vkindName(VKind k) {
  switch (k) {
    case VKind::Forward: return "forward";
    case VKind::Cross: return "cross-iteration";
    case VKind::Unreachable: return "mutually-unreachable";
    case VKind::Reverse: return "reverse";
  }
  return "?";
}

ProgramIndex::ProgramIndex(const Program& normalized) : prog_(normalized) {
  std::vector<int> path;
  add(prog_.body, BlockRef{}, path);
}

void ProgramIndex::add(const std::vector<Stmt>& b, BlockRef ref, std::vector<int>& path) {
  for (size_t i = 0; i < b.size(); ++i) {
    const Stmt& s = b[i];
    if (static_cast<int>(infos_.size()) <= s.uid) infos_.resize(s.uid + 1);
    path.push_back(s.uid);
    infos_[s.uid] = StmtInfo{&s, ref, static_cast<int>(i), path};
    add(s.body, BlockRef{s.uid, 0}, path);
    add(s.elseBody, BlockRef{s.uid, 1}, path);
    path.pop_back();
  }
}

const std::vector<Stmt>& ProgramIndex::block(const BlockRef& b) const {
  if (b.owner < 0) return prog_.body;
  const Stmt& s = *infos_[b.owner].stmt;
  return b.branch == 0 ? s.body : s.elseBody;
}

std::vector<int> ProgramIndex::instrUids() const {
  std::vector<int> out;
  for (const auto& i : infos_)
    if (i.stmt && i.stmt->kind == StmtKind::Instr) out.push_back(i.stmt->uid);
  return out;
}

std::vector<std::pair<BlockRef, double>> ProgramIndex::location(const Point& p) const {
  std::vector<std::pair<BlockRef, double>> out;
  if (p.block.owner >= 0)
    for (int u : infos_[p.block.owner].path) out.push_back({infos_[u].block, 2.0 * infos_[u].index + 1});
  out.push_back({p.block, 2.0 * p.slot + p.order / 1000.0});
  return out;
}

// Compares x against y at x's level when x's block encloses y's; 0 when it does not.
static int compareEnclosing(const ProgramIndex& ix, const Point& x, const Point& y) {
  auto lx = ix.location(x), ly = ix.location(y);
  if (lx.size() > ly.size()) return 0;
  size_t last = lx.size() - 1;
  for (size_t i = 0; i < lx.size(); ++i) {
    if (lx[i].first != ly[i].first) return 0;
    if (i < last && lx[i].second != ly[i].second) return 0;
  }
  if (lx[last].second < ly[last].second) return -1;
  if (lx[last].second > ly[last].second) return 1;
  return 0;
}

bool dominates(const ProgramIndex& ix, const Point& x, const Point& y) { return compareEnclosing(ix, x, y) < 0; }
bool postDominates(const ProgramIndex& ix, const Point& x, const Point& y) { return compareEnclosing(ix, x, y) > 0; }
bool samePoint(const Point& x, const Point& y) {
  return x.block == y.block && x.slot == y.slot && x.order == y.order;
}

void SyncPlan::add(const Point& at, SyncKind kind, const VirtualFlag& f) {
  PlacedSync p;
  p.pid = nextPid++;
  p.at = at;
  p.op.kind = kind;
  p.op.src = f.src;
  p.op.dst = f.dst;
  p.op.id = f.vid;
  p.vid = f.vid;
  syncs.push_back(p);
}

void SyncPlan::addBarrierAll(const Point& at, int afterPid) {
  PlacedSync p;
  p.afterPid = afterPid;
  p.pid = nextPid++;
  p.at = at;
  p.op.kind = SyncKind::Barrier;
  p.op.all = true;
  syncs.push_back(p);
}

void SyncPlan::removeFlag(int vid) {
  syncs.erase(std::remove_if(syncs.begin(), syncs.end(), [&](const PlacedSync& s) { return s.vid == vid; }),
              syncs.end());
  flags[vid].alive = false;
}

void SyncPlan::dropSyncsOfDeadFlags() {
  syncs.erase(std::remove_if(syncs.begin(), syncs.end(), [&](const PlacedSync& s) { return s.vid >= 0 && !flags[s.vid].alive; }),
              syncs.end());
}

int SyncPlan::newFlag(Pipe src, Pipe dst, VKind kind) {
  VirtualFlag f;
  f.vid = static_cast<int>(flags.size());
  f.src = src;
  f.dst = dst;
  f.kind = kind;
  flags.push_back(f);
  return f.vid;
}

namespace {

using SlotMap = std::map<std::pair<int, int>, std::vector<std::vector<const PlacedSync*>>>;

// Moves every sync with an anchor to just after that anchor (orders can tie across stages).
void pinAfterAnchors(std::vector<const PlacedSync*>& v) {
  std::vector<const PlacedSync*> pinned, rest;
  for (auto* s : v) (s->afterPid >= 0 ? pinned : rest).push_back(s);
  for (auto* s : pinned) {
    auto it = std::find_if(rest.begin(), rest.end(), [&](const PlacedSync* r) { return r->pid == s->afterPid; });
    rest.insert(it == rest.end() ? rest.end() : it + 1, s);
  }
  v = rest;
}

SlotMap slotMap(const ProgramIndex& ix, const SyncPlan& plan) {
  SlotMap m;
  for (const auto& s : plan.syncs) {
    auto& slots = m[{s.at.block.owner, s.at.block.branch}];
    if (slots.empty()) slots.resize(ix.block(s.at.block).size() + 1);
    slots[s.at.slot].push_back(&s);
  }
  for (auto& [k, slots] : m)
    for (auto& v : slots) {
      std::stable_sort(v.begin(), v.end(), [](const PlacedSync* a, const PlacedSync* b) {
        return a->at.order != b->at.order ? a->at.order < b->at.order : a->pid < b->pid;
      });
      pinAfterAnchors(v);
    }
  return m;
}

std::vector<Stmt> build(const std::vector<Stmt>& src, BlockRef ref, const SlotMap& m) {
  std::vector<Stmt> out;
  auto it = m.find({ref.owner, ref.branch});
  for (size_t k = 0; k <= src.size(); ++k) {
    if (it != m.end())
      for (const PlacedSync* p : it->second[k]) {
        Stmt s;
        s.kind = StmtKind::Sync;
        s.sync = p->op;
        s.tag = p->pid;
        out.push_back(s);
      }
    if (k == src.size()) break;
    Stmt s = src[k];
    s.body = build(src[k].body, BlockRef{src[k].uid, 0}, m);
    s.elseBody = build(src[k].elseBody, BlockRef{src[k].uid, 1}, m);
    out.push_back(std::move(s));
  }
  return out;
}

void rankBlock(const std::vector<Stmt>& b, std::vector<int>& ranks, int& next) {
  for (const auto& s : b) {
    if (s.kind == StmtKind::Sync && s.tag >= 0) ranks[s.tag] = next++;
    rankBlock(s.body, ranks, next);
    rankBlock(s.elseBody, ranks, next);
  }
}

}  // namespace

Program materialize(const ProgramIndex& ix, const SyncPlan& plan) {
  SlotMap m = slotMap(ix, plan);
  Program out;
  out.name = ix.program().name;
  out.target = ix.program().target;
  out.file = ix.program().file;
  out.buffers = ix.program().buffers;
  out.body = build(ix.program().body, BlockRef{}, m);
  return out;
}

std::vector<int> walkRanks(const ProgramIndex& ix, const SyncPlan& plan) {
  Program p = materialize(ix, plan);
  std::vector<int> ranks(plan.nextPid, -1);
  int next = 0;
  rankBlock(p.body, ranks, next);
  return ranks;
}

}  // namespace gir::ascend
