// The symbolic memory-model checker (docs/gir.md, "Symbolic checks"). An access instance is a point
// [p, u, e]: the node at topological position p, run by unit u, touches element e. The interpreter
// runs position by position and, within one, unit by unit (reads before the write), so (p, u) in
// lexicographic order is execution order. Per buffer, isl computes for each read its last earlier
// write (lexmax), for each write the previous write (lexmax), for each read the next write at or
// after it (lexmin): exactly the pairs the element-level checker compares. Pairs not ordered by
// happens-before are findings; a sample point of each is the witness.
#include "core/gir/SymbolicCheck.h"

#include <algorithm>
#include <cstdlib>
#include <numeric>
#include <optional>
#include <set>
#include <tuple>

#include <isl/map.h>

#include "core/gir/Interpreter.h"
#include "core/gir/IslAccess.h"
#include "core/gir/Printer.h"
#include "core/gir/Verifier.h"

namespace gir {

namespace {

struct SymAccess {
  int pos = 0;  // topological position of the node
  SliceId slice;
  bool write = false;
  size_t set = 0;  // its { [p, u, e] } in SymbolicChecker::sets_, parsed on first use
};

// Which way the second access of a pair lies in time from the first.
enum class Time { Before, AtOrAfter };

// Every access of a buffer is c + a*u, and each unit's elements lie in [a*u + lo, a*u + hi] with
// hi - lo < |a|: each element has one unit, and every unit's accesses are its window's, shifted.
struct UnitWindows {
  int64_t stride = 0, lo = 0, hi = 0;
  std::set<int64_t> runStarts;  // the first units of the runs that run the same accesses: domain boundaries
  int64_t accesses = 0;
};

// A buffer with unit windows is checked by listing them (checkWindows) when its runs of units times
// its window and accesses stay under this many steps.
constexpr int64_t kListingSteps = int64_t{1} << 26;

// A witness [p, u, e] -> [q, v]: the access at (p, u) and the other at (q, v), both on element e.
struct Witness {
  int p = 0, q = 0;
  int64_t u = 0, e = 0, v = 0;
};

class SymbolicChecker {
 public:
  SymbolicChecker(const Graph& g, isl::ctx ctx, std::vector<NodeId> order) : g_(g), ctx_(ctx), order_(std::move(order)) {
    computeAncestors();
    collectAccesses();
    for (size_t x = 0; x < order_.size(); ++x) {
      const Node& n = g_.node(order_[x]);
      UnitDomain d = g_.domainOf(n);
      if (n.isSync() && n.syncScope() == Scope::Device && d.begin <= 0 && d.end >= g_.units) fullSyncs_.push_back(static_cast<int>(x));
    }
    before_ = isl::map(ctx_, "{ [p, u, e] -> [q, v, f] : f = e and (q < p or (q = p and v < u)) }");
    atOrAfter_ = isl::map(ctx_, "{ [p, u, e] -> [q, v, f] : f = e and (q > p or (q = p and v >= u)) }");
  }

  // `at` names what isl was deciding when it threw (its budget ran out there). Each buffer, and the
  // capacities, is one question with its own budget of operations (docs/gir.md, "Symbolic checks"):
  // with one budget for the whole graph, a model's subgraph of 50 buffers ran out on questions that
  // each took a few milliseconds, and its plan went unchecked for races.
  MemoryCheckReport run(std::string& at) {
    for (uint32_t b = 0; b < g_.buffers().size(); ++b) {
      if (g_.buffers()[b].erased) continue;
      at = "buffer '%" + g_.buffers()[b].name + "'";
      isl_ctx_reset_operations(ctx_.get());
      checkBuffer(BufferId(b));
    }
    at = "the capacities";
    isl_ctx_reset_operations(ctx_.get());
    checkCapacity();
    return std::move(report_);
  }

 private:
  void computeAncestors() {
    size_t n = g_.nodes().size();
    posOf_.assign(n, -1);
    for (size_t i = 0; i < order_.size(); ++i) posOf_[order_[i].value] = static_cast<int>(i);
    anc_.assign(order_.size(), std::vector<char>(order_.size(), 0));
    auto succ = successors(g_, computeUseDef(g_));
    for (size_t i = 0; i < order_.size(); ++i)
      for (NodeId s : succ[order_[i].value]) {
        auto& a = anc_[posOf_[s.value]];
        for (size_t w = 0; w < order_.size(); ++w) a[w] |= anc_[i][w];
        a[i] = 1;
      }
  }

  bool precedes(int a, int b) const { return anc_[b][a] != 0; }

  void collectAccesses() {
    reads_.resize(g_.buffers().size());
    writes_.resize(g_.buffers().size());
    for (size_t p = 0; p < order_.size(); ++p) {
      const Node& n = g_.node(order_[p]);
      if (n.isSync()) continue;  // a sync touches no memory
      for (SliceId s : n.inputs) reads_[g_.slice(s).buffer.value].push_back(parsed({static_cast<int>(p), s, false}));
      for (SliceId s : n.outputs) writes_[g_.slice(s).buffer.value].push_back(parsed({static_cast<int>(p), s, true}));
    }
  }

  SymAccess parsed(SymAccess a) {
    a.set = setTexts_.size();
    setTexts_.push_back("{ [p, u, e] : " + touches(a, "p", "u", "e") + " }");
    return a;
  }

  // The access's set, parsed when first asked for: isl simplifies as it parses, so parsing every
  // access of a large graph up front could spend the operation budget of the first question.
  const isl::set& setAt(size_t i) const {
    if (sets_.size() < setTexts_.size()) sets_.resize(setTexts_.size());
    if (!sets_[i]) sets_[i] = isl::set(ctx_, setTexts_[i]);
    return *sets_[i];
  }

  isl::set setOf(const std::vector<SymAccess>& as) const {
    isl::set out(ctx_, "{ [p, u, e] : false }");
    for (const SymAccess& a : as) out = out.unite(setAt(a.set));
    return out;
  }

  // { [p,u,e] -> [q,v] : an access of `as` at (p,u) and one of `bs` at (q,v) touch e }, restricted by
  // `join` ({ [p,u,e] -> [q,v,f] : f = e and ... }).
  isl::map joined(const isl::set& as, const isl::set& bs, const isl::map& join) const {
    isl::map both = isl::manage(isl_map_from_domain_and_range(as.copy(), bs.copy())).intersect(join);
    return isl::manage(isl_map_project_out(both.release(), isl_dim_out, 2, 1));
  }

  std::string touches(const SymAccess& a, const std::string& p, const std::string& u, const std::string& e) const {
    const MemorySlice& s = g_.slice(a.slice);
    return "(" + p + " = " + std::to_string(a.pos) + " and " + islTouches(s, g_.domainOf(g_.node(order_[a.pos])), u, e) + ")";
  }

  // { [p,u,e] -> [q,v] : access a at (p,u) and b at (q,v) touch e, and (q,v) lies `t` from (p,u) }.
  // Each access's position is a constant of its set, so only the accesses whose positions can meet
  // `t` take part: isl would find the others' pairs empty, but only after projecting out the element
  // of a join whose offsets carry u/k and u%k terms, which could spend its whole budget (a read
  // after a layout change, all of whose writes lie before it, in EfficientNet-B0's squeeze-excite).
  isl::map pairs(const std::vector<SymAccess>& as, const std::vector<SymAccess>& bs, Time t) const {
    auto [aLo, aHi] = positionRange(as);
    auto [bLo, bHi] = positionRange(bs);
    std::vector<SymAccess> a, b;
    for (const SymAccess& x : as)
      if (t == Time::Before ? x.pos >= bLo : x.pos <= bHi) a.push_back(x);
    for (const SymAccess& x : bs)
      if (t == Time::Before ? x.pos <= aHi : x.pos >= aLo) b.push_back(x);
    if (a.empty() || b.empty()) return isl::map(ctx_, "{ [p, u, e] -> [q, v] : false }");
    return joined(setOf(a), setOf(b), t == Time::Before ? before_ : atOrAfter_);
  }

  static std::pair<int, int> positionRange(const std::vector<SymAccess>& as) {
    int lo = INT32_MAX, hi = INT32_MIN;
    for (const SymAccess& a : as) {
      lo = std::min(lo, a.pos);
      hi = std::max(hi, a.pos);
    }
    return {lo, hi};
  }

  // Happens-before between units fu (node at position f) and su (node at position s), as text.
  std::string orderedText(int f, int s, const std::string& fu, const std::string& su) const {
    if (f == s || !precedes(f, s)) return "false";
    std::string out = fu + " = " + su;
    for (int x = f + 1; x < s; ++x) {
      const Node& n = g_.node(order_[x]);
      if (!n.isSync() || !precedes(f, x) || !precedes(x, s)) continue;
      UnitDomain d = g_.domainOf(n);
      std::string in = std::to_string(d.begin) + " <= " + fu + " < " + std::to_string(d.end) + " and " + std::to_string(d.begin) +
                       " <= " + su + " < " + std::to_string(d.end);
      out += " or (" + in + scopeText(n.syncScope(), fu, su) + ")";
    }
    return out;
  }

  std::string scopeText(Scope scope, const std::string& a, const std::string& b) const {
    std::string k = std::to_string(g_.unitsPerBlock);
    switch (scope) {
      case Scope::Device: return "";
      case Scope::Block: return " and floor(" + a + "/" + k + ") = floor(" + b + "/" + k + ")";
      case Scope::Unit: case Scope::Lane: return " and " + a + " = " + b;
    }
    return "";
  }

  static std::set<int> positions(const std::vector<SymAccess>& as) {
    std::set<int> out;
    for (const SymAccess& a : as) out.insert(a.pos);
    return out;
  }

  static Witness witnessOf(const isl::map& m) {
    isl::point pt = m.wrap().sample_point();
    return Witness{static_cast<int>(islCoordinate(pt, 0)), static_cast<int>(islCoordinate(pt, 3)), islCoordinate(pt, 1),
                   islCoordinate(pt, 2), islCoordinate(pt, 4)};
  }

  // Splits `rel` by node pair; the part not ordered (domain access after range access when
  // `rangeFirst`, else the other way) is a finding. The same unit of the same node is exempt. When
  // each element has one unit (perUnit_), a pair is ordered exactly when its nodes are.
  template <typename Report>
  void unordered(const isl::map& rel, const std::vector<SymAccess>& as, const std::vector<SymAccess>& bs, bool rangeFirst, Report&& report) {
    if (rel.is_empty()) return;
    for (int p : positions(as))
      for (int q : positions(bs)) {
        isl::map piece = isl::manage(isl_map_fix_si(isl_map_fix_si(rel.copy(), isl_dim_in, 0, p), isl_dim_out, 0, q));
        if (piece.is_empty()) continue;
        if (perUnit_ && (p == q || (rangeFirst ? precedes(q, p) : precedes(p, q)))) continue;  // same unit, ordered nodes
        std::string exempt = rangeFirst ? orderedText(q, p, "v", "u") : orderedText(p, q, "u", "v");
        if (p == q) exempt += " or v = u";
        isl::map bad = exempt == "false" ? piece : piece.subtract(isl::map(ctx_, "{ [p, u, e] -> [q, v] : " + exempt + " }"));
        if (!bad.is_empty()) report(witnessOf(bad));
      }
  }

  std::string who(int pos, int64_t unit) const {
    NodeId n = order_[pos];
    return "unit " + std::to_string(unit) + " (block " + std::to_string(g_.blockOf(unit)) + ") in node #" + std::to_string(n.value) +
           " '" + describeNode(g_, n) + "'";
  }
  std::string where(const Buffer& b, int64_t e) const { return "buffer '%" + b.name + "' (" + b.level + ") element " + std::to_string(e); }

  void add(FindingKind k, const Buffer& b, int64_t e, int firstPos, int64_t firstUnit, int secondPos, int64_t secondUnit, std::string msg) {
    ++report_.total;
    size_t sameKind = std::count_if(report_.findings.begin(), report_.findings.end(), [&](const MemoryFinding& f) { return f.kind == k; });
    if (sameKind >= 5) return;
    report_.findings.push_back(MemoryFinding{k, b.name, e, firstUnit, secondUnit, order_[firstPos], order_[secondPos], std::move(msg)});
  }

  void checkBuffer(BufferId id) {
    const Buffer& b = g_.buffer(id);
    const auto& rs = reads_[id.value];
    const auto& ws = writes_[id.value];
    auto windows = unitWindows(touching(id));
    perUnit_ = windows.has_value();
    if (listable(windows)) {
      checkWindows(b, *windows, rs, ws);
      return;
    }
    if (!rs.empty() && !ws.empty() && writesSyncedBeforeReads(rs, ws)) return checkSeparated(id, b, rs, ws);
    isl::map earlier = pairs(rs, ws, Time::Before);  // each read to the writes of its element before it
    if (!ws.empty()) checkOrdering(b, rs, ws, earlier);
    if (b.role != BufferRole::Input) {
      std::vector<SymAccess> unsure = readsNotSurelyWritten(b, rs, ws);
      if (!unsure.empty()) checkInitialized(b, unsure, unsure.size() == rs.size() ? earlier.domain() : pairs(unsure, ws, Time::Before).domain());
    }
    checkScope(id);
  }

  // A buffer whose units own disjoint windows (unitWindows), decided by listing: the units between
  // two consecutive domain boundaries of its accesses run the same accesses on their own window,
  // shifted by a per unit, so the first unit of each such run stands for all of it, and within one
  // unit the nodes' order is the dataflow order (same-unit pairs are ordered when their nodes are).
  // The findings are the element-level checker's: a read against its element's last write before it
  // and the first write at or after it, a write against the one before; an uninitialized read. The
  // cost is the runs times the window, whatever the unit count: isl's lexmax over a 5x5 convolution's
  // padded window (25 reads, 11 writes, stride-2 taps) spent its whole budget (EfficientNet-B0).
  // Returns how many of the buffer's elements the writes touch.
  int64_t checkWindows(const Buffer& b, const UnitWindows& w, const std::vector<SymAccess>& rs, const std::vector<SymAccess>& ws) {
    std::vector<SymAccess> all = rs;
    all.insert(all.end(), ws.begin(), ws.end());
    std::stable_sort(all.begin(), all.end(), [](const SymAccess& x, const SymAccess& y) { return x.pos != y.pos ? x.pos < y.pos : !x.write && y.write; });
    const std::set<int64_t>& starts = w.runStarts;
    std::set<std::tuple<int, int, int>> reported;  // (kind, first position, second position)
    auto once = [&](FindingKind k, int first, int second) { return reported.insert({static_cast<int>(k), first, second}).second; };
    size_t size = static_cast<size_t>(w.hi - w.lo + 1);
    std::vector<int> lastWrite(size);             // per window element: the last write's position, or -1
    std::vector<std::vector<int>> pending(size);  // per window element: the reads since the last write
    std::vector<int64_t> elems;
    int64_t written = 0;
    for (auto it = starts.begin(); it != starts.end(); ++it) {
      int64_t u = *it;
      if (u < 0 || u >= g_.units) continue;
      int64_t runEnd = std::next(it) == starts.end() ? g_.units : std::min(*std::next(it), g_.units);
      std::fill(lastWrite.begin(), lastWrite.end(), -1);
      for (auto& p : pending) p.clear();
      int64_t base = w.stride * u + w.lo;
      for (const SymAccess& a : all) {
        if (!g_.domainOf(g_.node(order_[a.pos])).contains(u)) continue;
        sliceElements(g_.slice(a.slice), u, elems);
        for (int64_t e : elems) {
          size_t l = static_cast<size_t>(e - base);
          int q = lastWrite[l];
          if (!a.write) {
            if (q < 0 && b.role != BufferRole::Input && once(FindingKind::UninitializedRead, a.pos, a.pos))
              add(FindingKind::UninitializedRead, b, e, a.pos, u, a.pos, u, where(b, e) + " is read by " + who(a.pos, u) + " but no unit wrote it before");
            if (q >= 0 && q != a.pos && !precedes(q, a.pos) && once(FindingKind::Race, q, a.pos))
              add(FindingKind::Race, b, e, q, u, a.pos, u,
                  where(b, e) + " is written by " + who(q, u) + " and read by " + who(a.pos, u) + " with no sync covering both units between them");
            pending[l].push_back(a.pos);
            continue;
          }
          if (q >= 0 && q != a.pos && !precedes(q, a.pos) && once(FindingKind::WriteWriteConflict, q, a.pos))
            add(FindingKind::WriteWriteConflict, b, e, q, u, a.pos, u,
                where(b, e) + " is written by " + who(q, u) + " and again by " + who(a.pos, u) + " in one epoch (no sync covering both)");
          for (int r : pending[l])
            if (r != a.pos && !precedes(r, a.pos) && once(FindingKind::Race, a.pos, r))
              add(FindingKind::Race, b, e, r, u, a.pos, u,
                  where(b, e) + " is read by " + who(r, u) + " and overwritten by " + who(a.pos, u) + " with no sync covering both units between them");
          pending[l].clear();
          lastWrite[l] = a.pos;
        }
      }
      written += (runEnd - u) * std::count_if(lastWrite.begin(), lastWrite.end(), [](int q) { return q >= 0; });
    }
    return written;
  }

  // Windows that checkWindows lists within kListingSteps.
  static bool listable(const std::optional<UnitWindows>& w) {
    if (!w) return false;
    int64_t runs = static_cast<int64_t>(w->runStarts.size());
    return w->hi - w->lo < kListingSteps && runs * (w->hi - w->lo + 1 + w->accesses) < kListingSteps;
  }

  // Units of the access write pairwise disjoint elements: then each element has one writing unit,
  // and the lexmax / lexmin below have nothing to choose between. Seen on the offset alone where it
  // is c + a*u (|a| beyond the extent of one unit's box); with u/k or u%k terms isl decides whether
  // the access is injective in u (a layout change's writes: 50176*u - 401296*(u/8) in
  // EfficientNet-B0, where the lexmax spent isl's whole budget).
  bool unitDisjoint(const SymAccess& a) const {
    const MemorySlice& s = g_.slice(a.slice);
    const auto& terms = s.offset.terms();
    UnitDomain d = g_.domainOf(g_.node(order_[a.pos]));
    if (d.end - d.begin == 1) return true;
    if (terms.empty()) return false;  // every unit touches the same elements
    if (terms.size() == 1 && terms[0].kind == UnitTermKind::Identity) {
      auto [lo, hi] = sliceExtent(s, 0);
      return std::abs(terms[0].coeff) > hi - lo;
    }
    return isl::map(ctx_, "{ [u] -> [e] : " + islTouches(s, d, "u", "e") + " }").is_injective();
  }

  void checkOrdering(const Buffer& b, const std::vector<SymAccess>& rs, const std::vector<SymAccess>& ws, const isl::map& earlier) {
    bool oneWriter = ws.size() == 1 && unitDisjoint(ws[0]);
    unordered(oneWriter ? earlier : earlier.lexmax(), rs, ws, true, [&](const Witness& w) {
      add(FindingKind::Race, b, w.e, w.q, w.v, w.p, w.u,
          where(b, w.e) + " is written by " + who(w.q, w.v) + " and read by " + who(w.p, w.u) + " with no sync covering both units between them");
    });
    if (!oneWriter) checkWriteConflicts(b, ws);
    isl::map later = pairs(rs, ws, Time::AtOrAfter);
    unordered(oneWriter ? later : later.lexmin(), rs, ws, false, [&](const Witness& w) {
      add(FindingKind::Race, b, w.e, w.p, w.u, w.q, w.v,
          where(b, w.e) + " is read by " + who(w.p, w.u) + " and overwritten by " + who(w.q, w.v) + " with no sync covering both units between them");
    });
  }

  void checkWriteConflicts(const Buffer& b, const std::vector<SymAccess>& ws) {
    unordered(pairs(ws, ws, Time::Before).lexmax(), ws, ws, true, [&](const Witness& w) {
      add(FindingKind::WriteWriteConflict, b, w.e, w.q, w.v, w.p, w.u,
          where(b, w.e) + " is written by " + who(w.q, w.v) + " and again by " + who(w.p, w.u) + " in one epoch (no sync covering both)");
    });
  }

  // Every write of the buffer comes before every read, with a device sync over every unit between
  // each write and each read in the dataflow (a producer kernel and its consumers through DRAM).
  bool writesSyncedBeforeReads(const std::vector<SymAccess>& rs, const std::vector<SymAccess>& ws) const {
    for (const SymAccess& w : ws)
      for (const SymAccess& r : rs) {
        if (w.pos >= r.pos) return false;
        bool synced = std::any_of(fullSyncs_.begin(), fullSyncs_.end(), [&](int x) { return precedes(w.pos, x) && precedes(x, r.pos); });
        if (!synced) return false;
      }
    return true;
  }

  // Then every read-write pair is ordered whatever units run them, and no write follows a read: left
  // to decide are the writes among themselves and whether each read finds its element written. With
  // unit windows for the writes both are decided by listing them (checkWindows, which counts what
  // they write); otherwise isl decides them as in checkBuffer. A KV cache's 96 per-head copies and the
  // transposed read of the next kernel spent isl's budget in the general join (GPT-2 decode, batch 8).
  void checkSeparated(BufferId id, const Buffer& b, const std::vector<SymAccess>& rs, const std::vector<SymAccess>& ws) {
    auto windows = unitWindows(ws);
    perUnit_ = windows.has_value();
    bool covered = false;
    if (listable(windows)) covered = checkWindows(b, *windows, {}, ws) == b.numel();
    else if (!(ws.size() == 1 && unitDisjoint(ws[0]))) checkWriteConflicts(b, ws);
    if (b.role != BufferRole::Input && !covered) {
      std::vector<SymAccess> unsure = readsNotSurelyWritten(b, rs, ws);
      if (!unsure.empty()) checkInitialized(b, unsure, pairs(unsure, ws, Time::Before).domain());
    }
    checkScope(id);
  }

  // A unit's box touches each of its elements once: along the dims sorted by stride, each stride
  // steps over the whole extent of the dims before it.
  static bool boxDistinct(const MemorySlice& s) {
    std::vector<std::pair<int64_t, int64_t>> dims;  // (stride, extent) of the dims that vary
    for (size_t d = 0; d < s.shape.size(); ++d)
      if (s.shape[d] > 1) dims.push_back({s.strides[d], s.shape[d]});
    std::sort(dims.begin(), dims.end());
    int64_t span = 1;  // elements the dims so far cover, from the first
    for (auto [stride, extent] : dims) {
      if (stride < span) return false;
      span = stride * (extent - 1) + span;
    }
    return true;
  }

  // The write touches every element of the buffer: its units' elements are disjoint, a unit's box
  // touches distinct elements, and units times box elements is the buffer's size (the verifier has
  // kept every access in bounds).
  bool coversBuffer(const Buffer& b, const SymAccess& w) const {
    const MemorySlice& s = g_.slice(w.slice);
    UnitDomain d = g_.domainOf(g_.node(order_[w.pos]));
    return (d.end - d.begin) * s.numel() == b.numel() && boxDistinct(s) && unitDisjoint(w);
  }

  // The reads that no write covering the whole buffer precedes (by position, so for every unit):
  // only those can read an element nothing wrote before. Deciding it for the others would take the
  // domain of the read-write join, which with u/k and u%k offsets on both sides could spend isl's
  // whole budget (a read after a layout change, in EfficientNet-B0's squeeze-excite).
  std::vector<SymAccess> readsNotSurelyWritten(const Buffer& b, const std::vector<SymAccess>& rs, const std::vector<SymAccess>& ws) const {
    int firstCover = INT32_MAX;
    for (const SymAccess& w : ws)
      if (w.pos < firstCover && coversBuffer(b, w)) firstCover = w.pos;
    std::vector<SymAccess> out;
    for (const SymAccess& r : rs)
      if (r.pos <= firstCover) out.push_back(r);
    return out;
  }

  // Reads with no write of the element earlier in execution order.
  void checkInitialized(const Buffer& b, const std::vector<SymAccess>& rs, const isl::set& written) {
    isl::set bad = setOf(rs).subtract(written);
    for (const SymAccess& r : rs) {
      if (bad.is_empty()) return;
      isl::set mine = bad.intersect(isl::set(ctx_, "{ [p, u, e] : p = " + std::to_string(r.pos) + " }"));
      if (mine.is_empty()) continue;
      bad = bad.subtract(mine);
      isl::point pt = mine.sample_point();
      int64_t u = islCoordinate(pt, 1), e = islCoordinate(pt, 2);
      add(FindingKind::UninitializedRead, b, e, r.pos, u, r.pos, u, where(b, e) + " is read by " + who(r.pos, u) + " but no unit wrote it before");
    }
  }

  // --- scope and capacity (unit- and block-shared levels) ---

  Scope scopeOf(BufferId id) const {
    const LevelDecl* l = g_.levelOf(id);
    return l ? l->scope : Scope::Device;
  }
  std::string instanceText(Scope scope, const std::string& u) const {
    return scope == Scope::Block ? "floor(" + u + "/" + std::to_string(g_.unitsPerBlock) + ")" : u;
  }
  int64_t instanceOf(Scope scope, int64_t u) const { return scope == Scope::Block ? g_.blockOf(u) : u; }

  std::vector<SymAccess> touching(BufferId id) const {
    std::vector<SymAccess> all = reads_[id.value];
    all.insert(all.end(), writes_[id.value].begin(), writes_[id.value].end());
    return all;
  }

  // { [e] -> [p, u] : some access of the buffer at (p, u) touches e }.
  isl::map touchedBy(const std::vector<SymAccess>& all) const {
    isl_map* m = isl_map_from_range(setOf(all).release());
    return isl::manage(isl_map_move_dims(m, isl_dim_in, 0, isl_dim_out, 2, 1));
  }

  // Seen on the offsets alone: every access is c + a*u with one coefficient a, and all their boxes
  // fit in one window of |a| elements, so the units' windows, and the elements they touch, are
  // disjoint. An access run by one unit u0 only is c + a*u there whatever its offset's form, with
  // c = offset(u0) - a*u0 (a KV cache's new row, written at a constant offset by the unit that owns
  // its window). Returns a and the window (none when that is not seen).
  std::optional<UnitWindows> unitWindows(const std::vector<SymAccess>& all) const {
    int64_t coeff = 0, lo = INT64_MAX, hi = INT64_MIN;
    for (const SymAccess& a : all) {
      const auto& terms = g_.slice(a.slice).offset.terms();
      if (terms.size() == 1 && terms[0].kind == UnitTermKind::Identity) coeff = terms[0].coeff;
    }
    if (coeff == 0) return std::nullopt;
    for (const SymAccess& a : all) {
      const MemorySlice& s = g_.slice(a.slice);
      const auto& terms = s.offset.terms();
      UnitDomain d = g_.domainOf(g_.node(order_[a.pos]));
      bool strided = terms.size() == 1 && terms[0].kind == UnitTermKind::Identity && terms[0].coeff == coeff;
      if (!strided && d.end - d.begin != 1) return std::nullopt;
      int64_t u = strided ? 0 : d.begin;
      auto [first, last] = sliceExtent(s, u);
      lo = std::min(lo, first - coeff * u);
      hi = std::max(hi, last - coeff * u);
    }
    if (hi - lo >= std::abs(coeff)) return std::nullopt;
    UnitWindows w{coeff, lo, hi, {}, static_cast<int64_t>(all.size())};
    for (const SymAccess& a : all) {
      UnitDomain d = g_.domainOf(g_.node(order_[a.pos]));
      w.runStarts.insert({d.begin, d.end});
    }
    return w;
  }

  // An element touched by two instances; the witness names its first toucher, as the element-level
  // checker's owner, and an access from another instance.
  void checkScope(BufferId id) {
    Scope scope = scopeOf(id);
    if (scope == Scope::Device) return;
    auto all = touching(id);
    if (unitWindows(all)) return;
    std::string text = "{ [p, u, e] -> [q, v, f] : f = e and " + instanceText(scope, "u") + " != " + instanceText(scope, "v") + " }";
    isl::map differ(ctx_, text);
    if (joined(setOf(all), setOf(all), differ).is_empty()) return;  // every element is touched by one instance
    isl::map touched = touchedBy(all);
    for (size_t i = 0; i < all.size(); ++i)
      for (size_t j = i; j < all.size(); ++j) {
        isl::map m = joined(setAt(all[i].set), setAt(all[j].set), differ);
        if (m.is_empty()) continue;
        scopeViolated_.insert(id.value);
        reportScope(id, scope, touched, witnessOf(m).e);
      }
  }

  void reportScope(BufferId id, Scope scope, const isl::map& touched, int64_t e) {
    const Buffer& b = g_.buffer(id);
    isl::set at(ctx_, "{ [e] : e = " + std::to_string(e) + " }");
    isl::point first = touched.intersect_domain(at).lexmin().range().sample_point();
    int fp = static_cast<int>(islCoordinate(first, 0));
    int64_t fu = islCoordinate(first, 1), owner = instanceOf(scope, fu);
    isl::set other(ctx_, "{ [p, u] : " + instanceText(scope, "u") + " != " + std::to_string(owner) + " }");
    isl::point second = touched.intersect_domain(at).range().intersect(other).sample_point();
    int sp = static_cast<int>(islCoordinate(second, 0));
    int64_t su = islCoordinate(second, 1);
    std::string inst(scopeName(scope));
    add(FindingKind::ScopeViolation, b, e, fp, fu, sp, su,
        where(b, e) + " belongs to " + inst + " " + std::to_string(owner) + " (first touched by " + who(fp, fu) + ") but is touched by " +
            who(sp, su) + ", which runs in " + inst + " " + std::to_string(instanceOf(scope, su)) + "; level '" + b.level +
            "' is shared only within one " + inst);
  }

  void checkCapacity();
  std::vector<int64_t> representativeInstances(BufferId id, Scope scope) const;
  int64_t instanceElements(BufferId id, Scope scope, const isl::map& touched, int64_t instance) const;

  const Graph& g_;
  isl::ctx ctx_;
  std::vector<NodeId> order_;
  std::vector<int> posOf_;
  std::vector<std::vector<char>> anc_;  // anc_[b][a]: position a precedes position b in the dataflow DAG
  std::vector<std::vector<SymAccess>> reads_, writes_;  // per buffer
  std::vector<std::string> setTexts_;                   // per access
  mutable std::vector<std::optional<isl::set>> sets_;   // parsed from setTexts_ on first use
  isl::map before_, atOrAfter_;                         // the joins of pairs() by Time
  std::vector<int> fullSyncs_;  // positions of the device syncs over every unit
  std::set<uint32_t> scopeViolated_;
  bool perUnit_ = false;  // the buffer being checked has one unit per element (unitWindows)
  MemoryCheckReport report_;
};

// Instances whose element counts are compared: all of them when there are at most 64; otherwise those
// of unit 0, the last unit and each domain boundary of a node touching the buffer, each followed by
// one period of the offsets' u/k and u%k terms (capped), where the per-instance pattern can change.
std::vector<int64_t> SymbolicChecker::representativeInstances(BufferId id, Scope scope) const {
  int64_t count = scope == Scope::Block ? (g_.units + g_.unitsPerBlock - 1) / g_.unitsPerBlock : g_.units;
  std::vector<int64_t> out;
  if (count <= 64) {
    for (int64_t i = 0; i < count; ++i) out.push_back(i);
    return out;
  }
  int64_t period = scope == Scope::Block ? g_.unitsPerBlock : 1;
  std::vector<int64_t> starts = {0, g_.units - 1};
  for (const SymAccess& a : touching(id)) {
    UnitDomain d = g_.domainOf(g_.node(order_[a.pos]));
    starts.insert(starts.end(), {d.begin, d.end - 1});
    for (const UnitTerm& t : g_.slice(a.slice).offset.terms()) period = std::min<int64_t>(std::lcm(period, t.divisor), 1 << 12);
  }
  std::set<int64_t> picked;
  for (int64_t s : starts)
    for (int64_t u = s; u < std::min(g_.units, s + period) && picked.size() < 256; ++u) picked.insert(instanceOf(scope, u));
  return {picked.begin(), picked.end()};
}

// Elements of the buffer that `instance` touches; where the buffer has a scope violation, only those
// it touches first (the element-level checker charges an element to its first toucher's instance).
// Without one they are listed from the instance's units' slices: an instance's footprint is what its
// level holds, so listing costs what the capacity allows, where isl's enumeration of the same points
// (islCount) spent the whole budget on ShuffleNetV2's and EfficientNet-B0's larger subgraphs.
int64_t SymbolicChecker::instanceElements(BufferId id, Scope scope, const isl::map& touched, int64_t instance) const {
  if (!scopeViolated_.count(id.value)) {
    int64_t first = scope == Scope::Block ? instance * g_.unitsPerBlock : instance;
    int64_t last = scope == Scope::Block ? std::min(first + g_.unitsPerBlock, g_.units) : first + 1;
    std::vector<int64_t> elems, one;
    for (const SymAccess& a : touching(id)) {
      UnitDomain d = g_.domainOf(g_.node(order_[a.pos]));
      for (int64_t u = std::max(first, d.begin); u < std::min(last, d.end); ++u) {
        sliceElements(g_.slice(a.slice), u, one);
        elems.insert(elems.end(), one.begin(), one.end());
      }
    }
    std::sort(elems.begin(), elems.end());
    return std::unique(elems.begin(), elems.end()) - elems.begin();
  }
  isl::set mine(ctx_, "{ [p, u] : " + instanceText(scope, "u") + " = " + std::to_string(instance) + " }");
  isl::set elems = touched.intersect_range(mine).domain();
  if (scopeViolated_.count(id.value)) elems = touched.intersect_domain(elems).lexmin().intersect_range(mine).domain();
  return islCount(elems);
}

// A bound first (every access's box, times the units of one instance): when even that fits, nothing is
// counted; otherwise the exact counts of the representative instances decide.
void SymbolicChecker::checkCapacity() {
  std::vector<int64_t> bytes(g_.buffers().size(), 0);
  for (uint32_t b = 0; b < g_.buffers().size(); ++b) {
    Scope scope = scopeOf(BufferId(b));
    int64_t perInstance = scope == Scope::Block ? g_.unitsPerBlock : 1;
    for (const SymAccess& a : touching(BufferId(b))) bytes[b] += 4 * perInstance * g_.slice(a.slice).numel();
    bytes[b] = std::min(bytes[b], 4 * g_.buffers()[b].numel());
  }
  if (capacityFindings(g_, bytes).empty()) return;
  for (uint32_t b = 0; b < g_.buffers().size(); ++b) {
    const LevelDecl* l = g_.levelOf(BufferId(b));
    if (g_.buffers()[b].erased || !l || l->scope == Scope::Device || l->capacityBytes <= 0) continue;
    // Only a buffer with a scope violation counts through isl (instanceElements).
    isl::map touched = scopeViolated_.count(b) ? touchedBy(touching(BufferId(b))) : isl::map(ctx_, "{ [e] -> [p, u] : false }");
    bytes[b] = 0;
    for (int64_t i : representativeInstances(BufferId(b), l->scope))
      bytes[b] = std::max(bytes[b], 4 * instanceElements(BufferId(b), l->scope, touched, i));
  }
  for (MemoryFinding& f : capacityFindings(g_, bytes)) {
    ++report_.total;
    report_.findings.push_back(std::move(f));
  }
}

}  // namespace

Expected<MemoryCheckReport> checkMemoryModelSymbolic(const Graph& g) {
  if (auto st = verifyGraph(g); !st) return st.takeError();
  auto order = topologicalOrder(g);
  if (!order) return makeError("the graph has a cycle");
  std::string at = "the happens-before relation";
  auto report = islGuarded<MemoryCheckReport>("symbolic memory check", [&](isl::ctx ctx) -> Expected<MemoryCheckReport> {
    SymbolicChecker checker(g, ctx, std::move(*order));
    return checker.run(at);
  });
  if (!report) return makeError(report.error().message + " (deciding " + at + ")");
  return report;
}

}  // namespace gir
