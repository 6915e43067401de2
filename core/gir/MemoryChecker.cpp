// Happens-before over the dataflow graph: an access of unit v in node R is ordered after an access of
// unit w in node W when W precedes R and, for w != v, a sync whose scope covers both units lies on a
// path W -> sync -> R. Elements remember their last writer and the readers since.
#include "core/gir/MemoryChecker.h"

#include <algorithm>
#include <sstream>
#include <unordered_map>

#include "core/gir/Liveness.h"
#include "core/gir/Printer.h"

namespace gir {

std::string_view findingKindName(FindingKind k) {
  switch (k) {
    case FindingKind::Race: return "race";
    case FindingKind::WriteWriteConflict: return "write-write conflict";
    case FindingKind::UninitializedRead: return "uninitialized read";
    case FindingKind::ScopeViolation: return "scope violation";
    case FindingKind::CapacityOverflow: return "capacity overflow";
  }
  return "?";
}

std::string MemoryCheckReport::str() const {
  std::ostringstream os;
  for (const auto& f : findings) os << findingKindName(f.kind) << ": " << f.message << "\n";
  if (total > findings.size()) os << "(" << (total - findings.size()) << " more findings not shown)\n";
  return os.str();
}

std::string MemoryCheckReport::summary() const {
  if (clean() || findings.empty()) return clean() ? "" : std::to_string(total) + " finding(s)";
  const MemoryFinding& f = findings.front();
  std::string out = std::string(findingKindName(f.kind)) + ": " + f.message;
  if (total > 1) out += " (and " + std::to_string(total - 1) + " more finding(s))";
  return out;
}

namespace {

// 8 bytes: the checker keeps one per element of every buffer (units fit 31 bits).
struct Access {
  int32_t unit = -1;
  uint32_t node = UINT32_MAX;
};

// Most elements are read by one unit between writes: that reader lives inline, and only further
// distinct readers (broadcast reads) go to a list in the checker's pool (`more` indexes it, 0: none).
// 20 bytes an element: a vector inline (40 bytes) made the state's allocation, first touch and
// release a large part of checking a plan with a KV cache.
struct ElementState {
  Access lastWrite;
  Access firstRead;
  uint32_t more = 0;
};

bool sameAccess(const Access& a, const Access& b) { return a.unit == b.unit && a.node == b.node; }

// The lists of further readers, recycled once their element is written again.
class ReadLists {
 public:
  ReadLists() : lists_(1) {}
  void add(ElementState& st, const Access& a) {
    if (st.firstRead.unit < 0) {
      st.firstRead = a;
      return;
    }
    const Access& last = st.more ? lists_[st.more].back() : st.firstRead;
    if (sameAccess(last, a)) return;
    if (!st.more) {
      if (free_.empty()) {
        st.more = static_cast<uint32_t>(lists_.size());
        lists_.emplace_back();
      } else {
        st.more = free_.back();
        free_.pop_back();
      }
    }
    lists_[st.more].push_back(a);
  }
  template <typename F>
  void forEach(const ElementState& st, F&& f) const {
    if (st.firstRead.unit < 0) return;
    f(st.firstRead);
    if (st.more)
      for (const Access& r : lists_[st.more]) f(r);
  }
  void clear(ElementState& st) {
    st.firstRead = Access{};
    if (!st.more) return;
    lists_[st.more].clear();
    free_.push_back(st.more);
    st.more = 0;
  }

 private:
  std::vector<std::vector<Access>> lists_;  // [0] unused: `more` == 0 means no list
  std::vector<uint32_t> free_;
};

class MemoryModelChecker : public AccessObserver {
 public:
  explicit MemoryModelChecker(const Graph& g) : g_(g) {
    computeAncestors();
    state_.resize(g.buffers().size());
    owner_.resize(g.buffers().size());
    scope_.assign(g.buffers().size(), Scope::Device);
    for (uint32_t b = 0; b < g.buffers().size(); ++b) {
      if (g.buffers()[b].erased) continue;
      state_[b].resize(static_cast<size_t>(g.buffers()[b].numel()));
      const LevelDecl* l = g.levelOf(BufferId(b));
      scope_[b] = l ? l->scope : Scope::Device;
      if (l && l->scope != Scope::Device) owner_[b].assign(static_cast<size_t>(g.buffers()[b].numel()), Access{});
    }
  }

  // Per element in order: its scope, then its ordering. What is the same for every element of the
  // access (the buffer's arrays, its scope, this unit's instance) is looked up once.
  void access(NodeId node, int64_t unit, BufferId buffer, const std::vector<int64_t>& elems, bool isWrite) override {
    const Buffer& b = g_.buffer(buffer);
    Access me{static_cast<int32_t>(unit), node.value};
    ElementState* states = state_[buffer.value].data();
    Access* owners = owner_[buffer.value].empty() ? nullptr : owner_[buffer.value].data();
    Scope scope = scope_[buffer.value];
    int64_t mine = instanceOf(scope, unit);
    for (int64_t e : elems) {
      if (owners) checkScope(b, scope, e, me, mine, owners[e]);
      if (isWrite) write(b, e, states[e], me);
      else read(b, e, states[e], me);
    }
  }

  MemoryCheckReport finish() {
    checkCapacity();
    return std::move(report_);
  }

 private:
  void computeAncestors() {
    size_t n = g_.nodes().size();
    words_ = (n + 63) / 64;
    anc_.assign(n, std::vector<uint64_t>(words_, 0));
    auto succ = successors(g_, computeUseDef(g_));
    auto order = topologicalOrder(g_);
    if (!order) return;
    for (NodeId id : *order)
      for (NodeId s : succ[id.value]) {
        auto& a = anc_[s.value];
        for (size_t w = 0; w < words_; ++w) a[w] |= anc_[id.value][w];
        a[id.value / 64] |= uint64_t(1) << (id.value % 64);
      }
    for (uint32_t i = 0; i < n; ++i)
      if (!g_.nodes()[i].erased && g_.nodes()[i].isSync()) syncs_.push_back(i);
  }

  bool precedes(uint32_t a, uint32_t b) const { return (anc_[b][a / 64] >> (a % 64)) & 1; }

  // Syncs on some path first -> sync -> second (cached per node pair).
  const std::vector<uint32_t>& syncsBetween(uint32_t first, uint32_t second) {
    uint64_t key = (uint64_t(first) << 32) | second;
    auto it = between_.find(key);
    if (it != between_.end()) return it->second;
    std::vector<uint32_t> out;
    for (uint32_t s : syncs_)
      if (precedes(first, s) && precedes(s, second)) out.push_back(s);
    return between_.emplace(key, std::move(out)).first->second;
  }

  bool syncCovers(uint32_t s, int64_t a, int64_t b) const {
    const Node& n = g_.nodes()[s];
    UnitDomain d = g_.domainOf(n);
    if (!d.contains(a) || !d.contains(b)) return false;
    switch (n.syncScope()) {
      case Scope::Device: return true;
      case Scope::Block: return g_.blockOf(a) == g_.blockOf(b);
      case Scope::Unit: case Scope::Lane: return a == b;
    }
    return false;
  }

  // Is access `second` guaranteed to happen after access `first`? The elements of one access were
  // mostly last touched by one earlier access, so the last answer is kept (a slice of a 56x56 plane
  // asks the same question thousands of times).
  bool ordered(const Access& first, const Access& second) {
    if (sameAccess(first, lastQuery_.first) && sameAccess(second, lastQuery_.second)) return lastAnswer_;
    lastQuery_ = {first, second};
    return lastAnswer_ = orderedUncached(first, second);
  }
  bool orderedUncached(const Access& first, const Access& second) {
    if (first.node == second.node) return false;  // one node's units run concurrently
    if (!precedes(first.node, second.node)) return false;
    if (first.unit == second.unit) return true;
    for (uint32_t s : syncsBetween(first.node, second.node))
      if (syncCovers(s, first.unit, second.unit)) return true;
    return false;
  }

  std::string who(const Access& a) const {
    return "unit " + std::to_string(a.unit) + " (block " + std::to_string(g_.blockOf(a.unit)) + ") in node #" +
           std::to_string(a.node) + " '" + describeNode(g_, NodeId(a.node)) + "'";
  }

  void add(FindingKind k, const Buffer& b, int64_t e, const Access& first, const Access& second, std::string msg) {
    ++report_.total;
    size_t sameKind = std::count_if(report_.findings.begin(), report_.findings.end(), [&](const MemoryFinding& f) { return f.kind == k; });
    if (sameKind >= 5) return;
    report_.findings.push_back(MemoryFinding{k, b.name, e, first.unit, second.unit, NodeId(first.node), NodeId(second.node), std::move(msg)});
  }

  std::string where(const Buffer& b, int64_t e) const { return "buffer '%" + b.name + "' (" + b.level + ") element " + std::to_string(e); }

  void read(const Buffer& b, int64_t e, ElementState& st, const Access& me) {
    if (st.lastWrite.unit < 0) {
      if (b.role != BufferRole::Input)
        add(FindingKind::UninitializedRead, b, e, me, me, where(b, e) + " is read by " + who(me) + " but no unit wrote it before");
    } else if (st.lastWrite.unit == me.unit && st.lastWrite.node == me.node) {
      // a node never reads its own output (verifier); nothing to order
    } else if (!ordered(st.lastWrite, me)) {
      add(FindingKind::Race, b, e, st.lastWrite, me,
          where(b, e) + " is written by " + who(st.lastWrite) + " and read by " + who(me) + " with no sync covering both units between them");
    }
    reads_.add(st, me);
  }

  void write(const Buffer& b, int64_t e, ElementState& st, const Access& me) {
    if (st.lastWrite.unit >= 0 && !(st.lastWrite.unit == me.unit && st.lastWrite.node == me.node) && !ordered(st.lastWrite, me))
      add(FindingKind::WriteWriteConflict, b, e, st.lastWrite, me,
          where(b, e) + " is written by " + who(st.lastWrite) + " and again by " + who(me) + " in one epoch (no sync covering both)");
    reads_.forEach(st, [&](const Access& r) {
      if (r.unit == me.unit && r.node == me.node) return;
      if (!ordered(r, me))
        add(FindingKind::Race, b, e, r, me,
            where(b, e) + " is read by " + who(r) + " and overwritten by " + who(me) + " with no sync covering both units between them");
    });
    reads_.clear(st);
    st.lastWrite = me;
  }

  // `first`: the element's first access; `instance`: the instance of `me`'s unit at `scope`.
  void checkScope(const Buffer& b, Scope scope, int64_t e, const Access& me, int64_t instance, Access& first) {
    if (first.unit < 0) { first = me; return; }
    if (first.unit == me.unit) return;
    int64_t owner = instanceOf(scope, first.unit);
    if (owner == instance) return;
    std::string inst = std::string(scopeName(scope));
    add(FindingKind::ScopeViolation, b, e, first, me,
        where(b, e) + " belongs to " + inst + " " + std::to_string(owner) + " (first touched by " + who(first) + ") but is touched by " +
            who(me) + ", which runs in " + inst + " " + std::to_string(instance) + "; level '" + b.level + "' is shared only within one " + inst);
  }

  int64_t instanceOf(Scope scope, int64_t unit) const { return scope == Scope::Block ? g_.blockOf(unit) : unit; }

  // Per buffer, the most elements one instance touches, in bytes; then the peak of live bytes. The
  // instances are counted in an array indexed by instance (units fit 31 bits): a map keyed by
  // instance, looked up per element, was half of this checker's own time on a ViT-S block.
  void checkCapacity() {
    std::vector<int64_t> bytes(g_.buffers().size(), 0), perInstance;
    for (uint32_t b = 0; b < g_.buffers().size(); ++b) {
      if (owner_[b].empty()) continue;
      perInstance.assign(static_cast<size_t>(instanceOf(scope_[b], g_.units - 1) + 1), 0);
      for (const Access& a : owner_[b]) {
        if (a.unit < 0) continue;
        auto at = static_cast<size_t>(instanceOf(scope_[b], a.unit));
        if (at >= perInstance.size()) perInstance.resize(at + 1, 0);  // a unit outside the graph's (an unverified graph)
        bytes[b] = std::max(bytes[b], perInstance[at] += 4);
      }
    }
    for (MemoryFinding& f : capacityFindings(g_, bytes)) {
      Buffer pseudo{f.buffer, f.buffer, {1}, BufferRole::Temp, false};
      add(f.kind, pseudo, -1, Access{-1, f.firstNode.value}, Access{-1, f.secondNode.value}, std::move(f.message));
    }
  }

  const Graph& g_;
  size_t words_ = 0;
  std::vector<std::vector<uint64_t>> anc_;
  std::vector<uint32_t> syncs_;
  std::unordered_map<uint64_t, std::vector<uint32_t>> between_;
  std::pair<Access, Access> lastQuery_;
  bool lastAnswer_ = false;
  std::vector<std::vector<ElementState>> state_;
  ReadLists reads_;
  std::vector<std::vector<Access>> owner_;  // first access per element of unit/block-shared buffers
  std::vector<Scope> scope_;                // per buffer, its level's scope (looked up once, not per element)
  MemoryCheckReport report_;
};

}  // namespace

namespace {

// "elementwise writing '%ln_13_box'": buffer names carry the op that made them (the lowering names
// register buffers op_role), so this names the op whose step overflows.
std::string nodeSummary(const Graph& g, NodeId id) {
  const Node& n = g.node(id);
  std::string out(nodeKindName(n.kind()));
  for (size_t i = 0; i < n.outputs.size(); ++i) out += (i ? ", '%" : " writing '%") + g.buffer(g.slice(n.outputs[i]).buffer).name + "'";
  return out;
}

}  // namespace

std::vector<MemoryFinding> capacityFindings(const Graph& g, const std::vector<int64_t>& instanceBytes) {
  std::vector<MemoryFinding> out;
  auto order = topologicalOrder(g);
  if (!order) return out;
  auto intervals = bufferLiveIntervals(g, *order);
  for (const auto& l : g.levels) {
    if (l.scope == Scope::Device || l.capacityBytes <= 0) continue;
    LivePeak peak = peakLiveBytes(g, intervals, l.name, instanceBytes);
    if (peak.bytes <= l.capacityBytes) continue;
    std::string names;
    for (BufferId b : peak.live) names += (names.empty() ? "'%" : ", '%") + g.buffer(b).name + "'";
    NodeId at = (*order)[peak.position];
    out.push_back(MemoryFinding{FindingKind::CapacityOverflow, l.name, -1, -1, -1, at, at,
                                "level '" + l.name + "' needs " + std::to_string(peak.bytes) + " bytes per " + std::string(scopeName(l.scope)) +
                                    ", over its capacity of " + std::to_string(l.capacityBytes) + " bytes, at node #" +
                                    std::to_string(at.value) + " (" + nodeSummary(g, at) + "; live there: " + names + ")"});
  }
  return out;
}

MemoryModelOutput checkMemoryModelWithOutputs(const Graph& g, const TensorMap& inputs) {
  MemoryModelChecker checker(g);
  auto run = interpret(g, inputs, &checker);
  if (!run) return MemoryModelOutput{run.takeError(), {}};
  return MemoryModelOutput{checker.finish(), std::move(*run)};
}

Expected<MemoryCheckReport> checkMemoryModel(const Graph& g, const TensorMap& inputs) {
  return std::move(checkMemoryModelWithOutputs(g, inputs).report);
}

}  // namespace gir
