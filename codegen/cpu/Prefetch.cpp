// Software prefetch of a later block's device reads (Prefetch.h).
#include "codegen/cpu/Prefetch.h"

#include <algorithm>
#include <set>
#include <tuple>

namespace gir::codegen::cpu {

namespace {

// A buffer this small stays in the caches from one unit to the next (a convolution's weights).
constexpr int64_t kCachedBufferBytes = 64 * 1024;

// Elements from a slice's first element to its last; nullopt for a negative stride.
std::optional<int64_t> spanOf(const MemorySlice& s) {
  int64_t span = 1;
  for (size_t d = 0; d < s.shape.size(); ++d) {
    if (s.strides[d] < 0) return std::nullopt;
    span += (s.shape[d] - 1) * s.strides[d];
  }
  return span;
}

}  // namespace

std::vector<PrefetchRead> prefetchedReads(const EmitContext& c, const KernelSchedule& k) {
  std::vector<PrefetchRead> out;
  std::set<std::tuple<uint32_t, int64_t, int64_t>> seen;  // a slice under a domain, once
  int64_t unitBytes = 0;
  for (const Stage& st : k.stages)
    for (NodeId id : st.nodes) {
      const Node& n = c.g.node(id);
      if (n.isSync()) continue;
      for (SliceId sl : n.inputs) {
        const MemorySlice& s = c.g.slice(sl);
        const BufferPlan& p = c.schedule.buffers[s.buffer.value];
        UnitDomain d = c.g.domainOf(n);
        if (!p.deviceLevel || p.placement != Placement::Global || !seen.insert({sl.value, d.begin, d.end}).second) continue;
        unitBytes += s.numel() * 4;
        auto span = spanOf(s);
        // A read that stays put, or of a buffer that stays cached (weights), needs no prefetch.
        if (s.offset.terms().empty() || c.g.buffer(s.buffer).numel() * 4 <= kCachedBufferBytes) continue;
        if (!span || *span > 2 * s.numel()) continue;
        bool whole = d.begin <= 0 && d.end >= c.g.units;
        out.push_back({sl, whole ? std::nullopt : std::optional(d), *span});
      }
    }
  if (unitBytes >= kPrefetchUnitBytes) out.clear();
  return out;
}

void emitPrefetch(CodeWriter& w, const EmitContext& c, const BlockOrder& order, const std::vector<PrefetchRead>& reads) {
  if (reads.empty()) return;
  const Schedule& s = c.schedule;
  std::string ahead = std::to_string(kPrefetchVisitsAhead);
  std::string visits = std::to_string(order.indexOrder() ? order.count : s.blocks);
  std::string visit = !order.indexOrder() ? "visit" : order.first == 0 ? "blk" : "blk - " + std::to_string(order.first);
  w.line("// prefetch the device reads of the block " + ahead + " visits on: a unit's few short reads give the hardware");
  w.line("// prefetcher too little to run ahead of (docs/cpu.md, \"Prefetch\")");
  w.open("if (" + visit + " + " + ahead + " < " + visits + ")");
  std::string block = order.indexOrder() ? "blk + " + ahead : visitedBlockExpr(order, "(" + visit + " + " + ahead + ")");
  std::string first = "(" + block + ") * " + std::to_string(s.unitsPerBlock);
  w.open("for (int64_t u = " + first + ", u1 = std::min<int64_t>(u + " + std::to_string(s.unitsPerBlock) + ", " + std::to_string(s.units) +
         "); u < u1; ++u)");
  for (const PrefetchRead& r : reads) {
    const MemorySlice& sl = c.g.slice(r.slice);
    std::string call = "girPrefetch(" + c.names[sl.buffer.value] + " + (" + affineExpr(sl.offset) + "), " + std::to_string(r.span) + ");";
    if (r.domain) call = "if (u >= " + std::to_string(r.domain->begin) + " && u < " + std::to_string(r.domain->end) + ") " + call;
    w.line(call);
  }
  w.close();
  w.close();
}

}  // namespace gir::codegen::cpu
