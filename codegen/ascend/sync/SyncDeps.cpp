// Dependency analysis by enumerating each instruction's iteration space (trip counts are constants),
// grouped per buffer and tile, with iteration vectors truncated to the common loops.
#include "codegen/ascend/sync/SyncDeps.h"

#include <algorithm>
#include <map>
#include <sstream>
#include <unordered_map>

namespace gir::ascend {

const char* depShapeName(DepShape s) {
  switch (s) {
    case DepShape::Forward: return "forward";
    case DepShape::Cross: return "cross-iteration";
    case DepShape::Unreachable: return "mutually-unreachable";
  }
  return "?";
}

Divergence diverge(const ProgramIndex& ix, int a, int b) {
  const auto& pa = ix.info(a).path;
  const auto& pb = ix.info(b).path;
  Divergence d;
  while (d.level < pa.size() && d.level < pb.size() && pa[d.level] == pb[d.level]) ++d.level;
  const StmtInfo& x = ix.info(pa[d.level]);
  const StmtInfo& y = ix.info(pb[d.level]);
  d.exclusive = x.block != y.block;
  d.firstBefore = !d.exclusive && x.index < y.index;
  return d;
}

namespace {

struct Instance {
  int64_t prefix[8];  // iteration values per enclosing loop, outermost first
  int tile;
  bool write;
};

struct InstrAccesses {
  std::vector<int> loops;  // uids of enclosing loops
  std::map<int, std::vector<Instance>> perBuffer;
  std::map<int, bool> wholeRef;  // buffer -> some reference is to the whole buffer
};

InstrAccesses collect(const ProgramIndex& ix, int uid) {
  InstrAccesses out;
  for (int u : ix.info(uid).path)
    if (ix.info(u).stmt->kind == StmtKind::Loop) out.loops.push_back(u);
  const Instr& in = ix.info(uid).stmt->instr;
  std::vector<int64_t> iv(out.loops.size(), 0);
  std::map<std::string, int64_t> env;
  while (true) {
    for (size_t k = 0; k < out.loops.size(); ++k) env[ix.info(out.loops[k]).stmt->var] = iv[k];
    auto add = [&](const RegionRef& r, bool write) {
      Instance inst{};
      for (size_t k = 0; k < iv.size() && k < 8; ++k) inst.prefix[k] = iv[k];
      inst.tile = r.whole ? -1 : static_cast<int>(r.index.eval(env));
      inst.write = write;
      out.perBuffer[r.buffer].push_back(inst);
      if (r.whole) out.wholeRef[r.buffer] = true;
    };
    for (const auto& r : in.dsts) add(r, true);
    for (const auto& r : in.srcs) add(r, false);
    size_t k = iv.size();
    while (k > 0 && ++iv[k - 1] == ix.info(out.loops[k - 1]).stmt->trip) iv[--k] = 0;
    if (k == 0) break;
  }
  return out;
}

// Mixed-radix code of the first d iteration values: lexicographic order = numeric order.
int64_t prefixCode(const Instance& i, const std::vector<int64_t>& trips, size_t d) {
  int64_t c = 0;
  for (size_t k = 0; k < d; ++k) c = c * trips[k] + i.prefix[k];
  return c;
}

struct PairResult {
  bool same = false, carried = false;
  int64_t minDistance = 0;  // smallest iteration distance (over the common loops, flattened) of a carried conflict
  std::string kind;
};

// Largest code in the sorted list below `code`; -1 when none.
int64_t below(const std::vector<int64_t>& sorted, int64_t code) {
  auto it = std::lower_bound(sorted.begin(), sorted.end(), code);
  return it == sorted.begin() ? -1 : *(it - 1);
}

void conflictsOnBuffer(const std::vector<Instance>& A, const std::vector<Instance>& B, bool wildcard,
                       const std::vector<int64_t>& trips, size_t d, PairResult& r) {
  std::unordered_map<int64_t, int> sameMode;  // (prefix, tile) -> 1 read | 2 write
  std::unordered_map<int, std::vector<int64_t>> codesW, codesAny;
  for (const auto& a : A) {
    int tile = wildcard ? -1 : a.tile;
    int64_t pc = prefixCode(a, trips, d);
    sameMode[pc * 1000003 + tile] |= a.write ? 2 : 1;
    codesAny[tile].push_back(pc);
    if (a.write) codesW[tile].push_back(pc);
  }
  for (auto* m : {&codesW, &codesAny})
    for (auto& [t, v] : *m) std::sort(v.begin(), v.end());
  for (const auto& b : B) {
    int tile = wildcard ? -1 : b.tile;
    int64_t pc = prefixCode(b, trips, d);
    auto it = sameMode.find(pc * 1000003 + tile);
    if (it != sameMode.end() && (b.write || (it->second & 2)) && !r.same) {
      r.same = true;
      if (r.kind.empty()) r.kind = b.write ? ((it->second & 2) ? "WAW" : "WAR") : "RAW";
    }
    auto& m = b.write ? codesAny : codesW;
    auto jt = m.find(tile);
    if (d == 0 || jt == m.end()) continue;
    int64_t prev = below(jt->second, pc);
    if (prev < 0) continue;
    if (!r.carried || pc - prev < r.minDistance) r.minDistance = pc - prev;
    if (!r.carried && r.kind.empty()) r.kind = b.write ? (codesW.count(tile) ? "WAW" : "WAR") : "RAW";
    r.carried = true;
  }
}

PairResult conflicts(const ProgramIndex& ix, const InstrAccesses& a, const InstrAccesses& b) {
  PairResult r;
  size_t d = 0;
  while (d < a.loops.size() && d < b.loops.size() && a.loops[d] == b.loops[d]) ++d;
  std::vector<int64_t> trips;
  for (size_t k = 0; k < d; ++k) trips.push_back(ix.info(a.loops[k]).stmt->trip);
  for (const auto& [buf, insts] : a.perBuffer) {
    auto it = b.perBuffer.find(buf);
    if (it == b.perBuffer.end()) continue;
    bool wildcard = a.wholeRef.count(buf) || b.wholeRef.count(buf);
    conflictsOnBuffer(insts, it->second, wildcard, trips, d, r);
  }
  return r;
}

}  // namespace

std::vector<Dep> analyzeDeps(const ProgramIndex& ix) {
  std::vector<int> uids = ix.instrUids();
  std::vector<InstrAccesses> acc;
  for (int u : uids) acc.push_back(collect(ix, u));
  std::vector<Dep> deps;
  for (size_t i = 0; i < uids.size(); ++i)
    for (size_t j = 0; j < uids.size(); ++j) {
      const Instr& x = ix.info(uids[i]).stmt->instr;
      const Instr& y = ix.info(uids[j]).stmt->instr;
      if (i == j || x.pipe == y.pipe) continue;
      Divergence dv = diverge(ix, uids[i], uids[j]);
      PairResult r = conflicts(ix, acc[i], acc[j]);
      Dep dep{uids[i], uids[j], x.pipe, y.pipe, r.kind, DepShape::Forward, false, r.carried, r.minDistance};
      if (dv.firstBefore) {
        dep.sameIteration = r.same;
        if (!r.same && !r.carried) continue;
      } else {
        // src after dst (or in the other branch): only an earlier iteration of src can come first.
        if (!r.carried) continue;
        dep.shape = dv.exclusive ? DepShape::Unreachable : DepShape::Cross;
      }
      deps.push_back(dep);
    }
  return deps;
}

std::string dumpDeps(const ProgramIndex& ix, const std::vector<Dep>& deps) {
  std::ostringstream os;
  os << "# stage deps: " << deps.size() << " dependencies between different pipes\n";
  for (size_t k = 0; k < deps.size(); ++k) {
    const Dep& d = deps[k];
    os << "dep " << k << ": " << d.kind << " " << pipeName(d.srcPipe) << " -> " << pipeName(d.dstPipe) << " "
       << describeInstr(*ix.info(d.src).stmt) << " -> " << describeInstr(*ix.info(d.dst).stmt) << " "
       << depShapeName(d.shape) << (d.sameIteration ? " same-iteration" : "") << (d.carried ? " carried (distance " + std::to_string(d.minDistance) + ")" : "") << "\n";
  }
  return os.str();
}

}  // namespace gir::ascend
