// UB reuse for the GIR -> .asck lowering (FromGir.h, poolByLifetime): per-unit buffers and staging tiles whose
// lifetimes in one unit's iteration do not overlap share one .asck buffer. Phases run one after the other,
// so members of different phases always can: this is how a plan whose kernels each fit UB fits as a whole
// (gpt2's attention kernel, efficientnet's depthwise and projection kernels).
#include "codegen/ascend/lower/FromGir.h"

#include <algorithm>

namespace gir::ascend {

namespace {

constexpr int64_t kElemBytes = 4;

struct Lifetime {
  int member = 0;
  size_t first = 0, last = 0;  // positions in plan.order, inclusive
  int64_t elems = 0;           // one slot's footprint
  bool dma = false;            // MTE2 writes it or MTE3 reads it: a second slot lets that overlap V
};

struct Pool {
  std::vector<int> members;
  size_t freeAfter = 0;  // the last position any member is live at
  int64_t elems = 0;     // the largest member
  bool dma = false;      // some member is a DMA's end
};

bool inGm(const Graph& g, const Layout& lay, SliceId s) {
  return lay.buffers[lay.ofGir.at(g.slice(s).buffer.value)].decl.mem == Mem::GM;
}

std::vector<Lifetime> lifetimes(const Graph& g, const UnitPlan& plan, const Layout& lay) {
  std::vector<size_t> pos(g.nodes().size(), 0);
  for (size_t i = 0; i < plan.order.size(); ++i) pos[plan.order[i].value] = i;
  std::vector<Lifetime> out;
  for (size_t m = 0; m < lay.buffers.size(); ++m) {
    const BufferLayout& bl = lay.buffers[m];
    int64_t elems = bl.decl.bytes / kElemBytes / bl.slots;
    if (bl.kind == LayoutKind::Staging) {
      out.push_back({static_cast<int>(m), pos[bl.node.value], pos[bl.node.value], elems, true});
      continue;
    }
    if (bl.kind != LayoutKind::PrivateUb) continue;
    Lifetime life{static_cast<int>(m), plan.order.size(), 0, elems, false};
    for (NodeId id : plan.order) {
      const Node& n = g.node(id);
      for (const auto* list : {&n.inputs, &n.outputs})
        for (SliceId s : *list)
          if (g.slice(s).buffer == bl.gir) life.first = std::min(life.first, pos[id.value]), life.last = std::max(life.last, pos[id.value]);
      // A move between this buffer and GM is an MTE2 load into it or an MTE3 store from it.
      if (n.isMove() && (g.slice(n.outputs[0]).buffer == bl.gir || g.slice(n.inputs[0]).buffer == bl.gir))
        life.dma = life.dma || inGm(g, lay, n.inputs[0]) || inGm(g, lay, n.outputs[0]);
    }
    if (life.first <= life.last) out.push_back(life);
  }
  return out;
}

}  // namespace

void poolByLifetime(const Graph& g, const UnitPlan& plan, Layout& lay, int64_t ubCapacityBytes) {
  std::vector<Lifetime> lives = lifetimes(g, plan, lay);
  // Linear scan by start; a member joins a free pool at least as large, the one freed longest ago (its last
  // reads have most likely finished, so the reuse stalls least: on gpt2 this simulates 445k cycles where the
  // best-fitting pool gave 547k), else the largest free pool, which grows; or it opens a new pool.
  std::sort(lives.begin(), lives.end(), [](const Lifetime& a, const Lifetime& b) {
    return a.first != b.first ? a.first < b.first : a.elems > b.elems;
  });
  // With two slots in play, DMA ends and V-only members pool apart, so that the slots can go to the pools
  // whose DMA they overlap; with one slot everywhere, any two members may share (the most reuse).
  bool separate = false;
  for (const Lifetime& life : lives) separate = separate || lay.buffers[life.member].slots > 1;
  std::vector<Pool> pools;
  for (const Lifetime& life : lives) {
    int best = -1;
    for (size_t p = 0; p < pools.size(); ++p) {
      if (pools[p].freeAfter >= life.first || (separate && pools[p].dma != life.dma)) continue;
      if (best < 0) { best = static_cast<int>(p); continue; }
      const Pool& b = pools[best];
      bool fitsP = pools[p].elems >= life.elems, fitsB = b.elems >= life.elems;
      if (fitsP != fitsB ? fitsP : fitsP ? pools[p].freeAfter < b.freeAfter : pools[p].elems > b.elems) best = static_cast<int>(p);
    }
    if (best < 0) best = static_cast<int>(pools.size()), pools.emplace_back();
    Pool& pool = pools[best];
    pool.members.push_back(life.member);
    pool.freeAfter = life.last;
    pool.elems = std::max(pool.elems, life.elems);
    pool.dma = pool.dma || life.dma;
  }

  // The .asck buffers again: unpooled members keep their own, each pool gets one; ubBytes follows.
  std::vector<Buffer> decls;
  lay.ubBytes = 0;
  std::vector<bool> pooled(lay.buffers.size(), false);
  for (const auto& pool : pools)
    for (int m : pool.members) pooled[m] = true;
  for (size_t m = 0; m < lay.buffers.size(); ++m) {
    if (pooled[m]) continue;
    lay.buffers[m].asck = static_cast<int>(decls.size());
    decls.push_back(lay.buffers[m].decl);
  }
  // Two slots for a pool when a member had them, as long as UB holds it. Over budget, pools that only V
  // touches give up their second slot first: V runs in order on its own queue, so a second slot there
  // overlaps nothing. Then the pools that DMA touches, largest first (each saves the most).
  std::vector<int64_t> slots(pools.size(), 1);
  int64_t total = 0;
  for (const auto& d : decls)
    if (d.mem == Mem::UB) total += d.bytes;
  for (size_t p = 0; p < pools.size(); ++p) {
    for (int m : pools[p].members) slots[p] = std::max(slots[p], lay.buffers[m].slots);
    total += pools[p].elems * slots[p] * kElemBytes;
  }
  std::vector<size_t> bySize(pools.size());
  for (size_t p = 0; p < pools.size(); ++p) bySize[p] = p;
  std::stable_sort(bySize.begin(), bySize.end(), [&](size_t a, size_t b) {
    return pools[a].dma != pools[b].dma ? !pools[a].dma : pools[a].elems > pools[b].elems;
  });
  for (size_t p : bySize) {
    if (total <= ubCapacityBytes) break;
    if (slots[p] > 1) total -= pools[p].elems * (slots[p] - 1) * kElemBytes, slots[p] = 1;
  }
  lay.doubleBuffered = false;
  for (size_t p = 0; p < pools.size(); ++p) {
    Buffer d;
    d.name = "ub_pool" + std::to_string(p);
    d.mem = Mem::UB;
    d.bytes = pools[p].elems * slots[p] * kElemBytes;
    d.tile = slots[p] > 1 ? pools[p].elems * kElemBytes : 0;
    for (int m : pools[p].members) {
      BufferLayout& bl = lay.buffers[m];
      bl.asck = static_cast<int>(decls.size());
      bl.slots = slots[p];
      bl.tileElems = slots[p] > 1 ? pools[p].elems : 0;
    }
    decls.push_back(d);
  }
  for (const auto& bl : lay.buffers) lay.doubleBuffered = lay.doubleBuffered || bl.slots > 1;
  for (const auto& d : decls)
    if (d.mem == Mem::UB) lay.ubBytes += d.bytes;
  lay.decls = std::move(decls);
  lay.pooled = true;
}

}  // namespace gir::ascend
