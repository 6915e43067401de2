// Stage 4 of the GIR -> .asck lowering (FromGir.h): the lowered program, run in program order on element
// provenance, must match the GIR interpreter read for read. The simulator judges only ordering, not data, so
// this is what ties the oracle's verdict to the GIR semantics: if every instruction's elements lie inside its
// region reference, every element conflict is a region conflict the inserted flags must order; if the
// in-order run reads what the interpreter reads, the timed run does too.
#include "codegen/ascend/lower/FromGir.h"

#include <memory>
#include <set>
#include <unordered_map>
#include <tuple>

#include "core/gir/Interpreter.h"
#include "codegen/ascend/asck/AsckPrinter.h"
#include "core/gir/Printer.h"

namespace gir::ascend {

namespace {

// Which write an element holds: the GIR buffer and element written, by which node and unit. 32-bit fields
// (buffers, elements and units are far below 2^31; lowerGirToAsck rejects larger ones).
struct Tag {
  int32_t buffer = -1;
  int32_t node = -1;  // kInput: the input's own data; -1 with buffer -1: never written
  int32_t unit = -1;
  int32_t element = -1;
  bool operator==(const Tag&) const = default;
};
constexpr int32_t kInput = -2;

uint64_t mix(uint64_t x) {  // splitmix64's finalizer
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ULL;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}
uint64_t tagHash(const Tag& t) {
  return mix((uint64_t(uint32_t(t.buffer)) << 32 | uint32_t(t.node)) ^ mix(uint64_t(uint32_t(t.unit)) << 32 | uint32_t(t.element)));
}
uint64_t unitKey(uint32_t node, int64_t unit) { return uint64_t(node) << 32 | uint64_t(uint32_t(unit)); }

std::string tagText(const Graph& g, const Tag& t) {
  if (t.buffer < 0) return "an element nothing wrote";
  std::string where = "%" + g.buffer(BufferId(static_cast<uint32_t>(t.buffer))).name + "[" + std::to_string(t.element) + "]";
  if (t.node == kInput) return where + " as given (input)";
  return where + " as written by n" + std::to_string(t.node) + " unit " + std::to_string(t.unit);
}

Tag writeTag(BufferId b, NodeId node, int64_t unit, int64_t e) {
  return {static_cast<int32_t>(b.value), static_cast<int32_t>(node.value), static_cast<int32_t>(unit), static_cast<int32_t>(e)};
}

// The interpreter's view. Digest mode (every check): per element the hash of the write it holds, per
// (node, unit) one order-sensitive digest per operand read, so memory stays near the interpreter's own.
// Exact mode (only to word a failure): the tags themselves, and the reads of one (node, unit).
class Provenance : public AccessObserver {
 public:
  Provenance(const Graph& g, bool exact, uint64_t focus = ~uint64_t(0)) : exact_(exact), focus_(focus) {
    (exact ? tags.resize(g.buffers().size()) : hashes.resize(g.buffers().size()));
    for (uint32_t b = 0; b < g.buffers().size(); ++b) {
      const gir::Buffer& buf = g.buffers()[b];
      if (buf.erased) continue;
      size_t n = static_cast<size_t>(buf.numel());
      exact ? tags[b].resize(n) : hashes[b].assign(n, tagHash(Tag{}));
      if (buf.role != BufferRole::Input) continue;
      for (size_t e = 0; e < n; ++e) {
        Tag t{static_cast<int32_t>(b), kInput, 0, static_cast<int32_t>(e)};
        exact ? void(tags[b][e] = t) : void(hashes[b][e] = tagHash(t));
      }
    }
  }
  void access(NodeId node, int64_t unit, BufferId b, const std::vector<int64_t>& elements, bool isWrite) override {
    if (isWrite) {
      for (int64_t e : elements) {
        Tag t = writeTag(b, node, unit, e);
        exact_ ? void(tags[b.value][e] = t) : void(hashes[b.value][e] = tagHash(t));
      }
      return;
    }
    uint64_t key = unitKey(node.value, unit);
    if (exact_) {
      if (key != focus_) return;
      focusReads.emplace_back();
      for (int64_t e : elements) focusReads.back().push_back(tags[b.value][e]);
      return;
    }
    uint64_t d = elements.size();
    for (int64_t e : elements) d = mix(d ^ hashes[b.value][e]);
    digests[key].push_back(d);
  }
  std::unordered_map<uint64_t, std::vector<uint64_t>> digests;  // per (node, unit): one per operand read
  std::vector<std::vector<uint64_t>> hashes;                      // digest mode
  std::vector<std::vector<Tag>> tags;                             // exact mode
  std::vector<std::vector<Tag>> focusReads;                       // exact mode: the focus's operands

 private:
  bool exact_;
  uint64_t focus_;
};

}  // namespace

struct LoweringReference::Impl {
  const Graph* graph = nullptr;
  TensorMap inputs;
  Provenance prov;
  Impl(const Graph& g) : graph(&g), inputs(randomInputs(g, 1)), prov(g, false) {}
};

Expected<LoweringReference> LoweringReference::of(const Graph& g) {
  for (const auto& b : g.buffers())
    if (!b.erased && b.numel() >= (int64_t(1) << 31))
      return makeError("buffer '%" + b.name + "' has 2^31 or more elements: too large to check");
  if (g.units >= (int64_t(1) << 31)) return makeError("the GIR graph has 2^31 or more units: too many to check");
  auto impl = std::make_shared<Impl>(g);
  auto run = interpret(g, impl->inputs, &impl->prov);
  if (!run) return run.takeError();
  LoweringReference ref;
  ref.impl_ = std::move(impl);
  return ref;
}

namespace {

class Replay {
 public:
  Replay(const Graph& g, const AsckLowering& low, const LoweringReference::Impl& ref) : g_(g), low_(low), ref_(ref) {
    mem_.resize(low.program.buffers.size());
    for (size_t b = 0; b < mem_.size(); ++b) mem_[b].resize(static_cast<size_t>(low.program.buffers[b].bytes / 4));
    for (const BufferLayout& bl : low.layout.buffers) {
      if (bl.kind != LayoutKind::Global || g.buffer(bl.gir).role != BufferRole::Input) continue;
      auto& m = mem_[bl.asck];
      for (size_t e = 0; e < m.size(); ++e) m[e] = {static_cast<int32_t>(bl.gir.value), kInput, 0, static_cast<int32_t>(e)};
    }
  }
  Status run();

 private:
  Status walk(const std::vector<Stmt>& block);
  Status exec(const Stmt& s);
  Expected<std::vector<int64_t>> physical(const Stmt& s, const RegionRef& r, SliceId slice, int64_t u);
  Diagnostic fail(const Stmt& s, int64_t u, const std::string& what) const;
  Diagnostic explainRead(const Stmt& s, int64_t u, size_t operand, const std::vector<std::vector<int64_t>>& src) const;
  void numberInstrs(const std::vector<Stmt>& block);

  const Graph& g_;
  const AsckLowering& low_;
  const LoweringReference::Impl& ref_;
  std::vector<std::vector<Tag>> mem_;
  std::map<std::string, int64_t> env_;
  std::map<int, size_t> ordinal_;  // statement uid -> instruction number (the origins' index)
  size_t current_ = 0;
  std::set<std::pair<uint32_t, int64_t>> ran_;
  std::vector<int64_t> elems_;
};

Diagnostic Replay::fail(const Stmt& s, int64_t u, const std::string& what) const {
  const InstrOrigin& o = low_.origins[current_];
  std::string name = s.instr.label.empty() ? std::string(pipeName(s.instr.pipe)) + " " + s.instr.op : s.instr.label;
  return makeError("lowered instruction '" + name + "' for unit " + std::to_string(u) + ": " + what,
                   SourceLocation{"", 0, 0, describeNode(g_, o.node)});
}

// A digest differs: run the interpreter again keeping this (node, unit)'s exact reads, to name the element.
Diagnostic Replay::explainRead(const Stmt& s, int64_t u, size_t k, const std::vector<std::vector<int64_t>>& src) const {
  const InstrOrigin& o = low_.origins[current_];
  Provenance exact(g_, true, unitKey(o.node.value, u));
  if (auto run = interpret(g_, ref_.inputs, &exact); !run) return run.takeError();
  const auto& m = mem_[s.instr.srcs[k].buffer];
  if (k < exact.focusReads.size() && exact.focusReads[k].size() == src[k].size())
    for (size_t i = 0; i < src[k].size(); ++i)
      if (!(m[src[k][i]] == exact.focusReads[k][i]))
        return fail(s, u, "input " + std::to_string(k) + " element " + std::to_string(i) + " reads " + tagText(g_, m[src[k][i]]) +
                              ", the interpreter reads " + tagText(g_, exact.focusReads[k][i]));
  return fail(s, u, "input " + std::to_string(k) + " reads " + std::to_string(src[k].size()) + " elements that differ from the interpreter's read");
}

// The elements a reference touches, in slice order, and the check that they lie inside the region.
Expected<std::vector<int64_t>> Replay::physical(const Stmt& s, const RegionRef& r, SliceId slice, int64_t u) {
  const Buffer& decl = low_.program.buffers[r.buffer];
  sliceElements(g_.slice(slice), u, elems_);
  const BufferLayout* held = &low_.layout.buffers[low_.layout.ofGir.at(g_.slice(slice).buffer.value)];
  if (held->asck != r.buffer) {  // else one of the node's staging tiles, or wrong
    held = nullptr;
    const InstrOrigin& o = low_.origins[current_];
    for (auto it = low_.layout.staging.lower_bound({o.node.value, -1}); it != low_.layout.staging.end() && it->first.first == o.node.value; ++it)
      if (low_.layout.buffers[it->second].asck == r.buffer) held = &low_.layout.buffers[it->second];
    if (!held) return fail(s, u, "slice %s" + std::to_string(slice.value) + " is not held by buffer " + decl.name);
  }
  const BufferLayout& bl = *held;
  int64_t t = r.whole ? 0 : r.index.eval(env_);
  std::vector<int64_t> p(elems_.size());
  for (size_t i = 0; i < elems_.size(); ++i) {
    switch (bl.kind) {
      case LayoutKind::Global:
      case LayoutKind::SharedUb: p[i] = elems_[i]; break;
      case LayoutKind::PrivateUb: p[i] = t * bl.tileElems + elems_[i] - bl.unitBase[u]; break;
      case LayoutKind::Staging: p[i] = t * bl.tileElems + static_cast<int64_t>(i); break;
    }
  }
  int64_t lo = r.whole ? 0 : t * decl.tile / 4, hi = r.whole ? decl.bytes / 4 : lo + decl.tile / 4;
  for (int64_t e : p)
    if (e < lo || e >= hi)
      return fail(s, u, "element " + std::to_string(e) + " of " + decl.name + " lies outside its reference " +
                            printRef(low_.program, r) + " = elements [" + std::to_string(lo) + "," + std::to_string(hi) + ")");
  return p;
}

Status Replay::exec(const Stmt& s) {
  current_ = ordinal_.at(s.uid);
  const InstrOrigin& o = low_.origins[current_];
  const UnitNest& nest = low_.plan.nests[o.nest];
  std::vector<int64_t> vars;
  for (const auto& l : nest.loops) vars.push_back(env_.at(l.var));
  int64_t u = nest.unitAt(vars);
  std::vector<std::vector<int64_t>> src, dst;
  for (size_t k = 0; k < s.instr.srcs.size(); ++k) {
    auto p = physical(s, s.instr.srcs[k], o.srcs[k], u);
    if (!p) return p.takeError();
    src.push_back(std::move(*p));
  }
  auto d = physical(s, s.instr.dsts[0], o.dsts[0], u);
  if (!d) return d.takeError();
  auto& out = mem_[s.instr.dsts[0].buffer];
  if (o.role != InstrRole::Main) {  // staging: a copy of provenance
    for (size_t i = 0; i < d->size(); ++i) out[(*d)[i]] = mem_[s.instr.srcs[0].buffer][src[0][i]];
    return success();
  }
  if (!ran_.insert({o.node.value, u}).second) return fail(s, u, "the node runs twice for this unit");
  auto it = ref_.prov.digests.find(unitKey(o.node.value, u));
  size_t reads = it == ref_.prov.digests.end() ? 0 : it->second.size();
  if (reads != src.size()) return fail(s, u, "reads " + std::to_string(src.size()) + " operands, the interpreter " + std::to_string(reads));
  for (size_t k = 0; k < src.size(); ++k) {
    const auto& m = mem_[s.instr.srcs[k].buffer];
    uint64_t d = src[k].size();
    for (int64_t e : src[k]) d = mix(d ^ tagHash(m[e]));
    if (d != it->second[k]) return explainRead(s, u, k, src);
  }
  sliceElements(g_.slice(o.dsts[0]), u, elems_);
  int32_t b = static_cast<int32_t>(g_.slice(o.dsts[0]).buffer.value);
  for (size_t i = 0; i < d->size(); ++i) out[(*d)[i]] = {b, static_cast<int32_t>(o.node.value), static_cast<int32_t>(u), static_cast<int32_t>(elems_[i])};
  return success();
}

Status Replay::walk(const std::vector<Stmt>& block) {
  for (const auto& s : block) {
    switch (s.kind) {
      case StmtKind::Instr:
        if (auto st = exec(s); !st) return st;
        break;
      case StmtKind::Loop:
        for (int64_t v = 0; v < s.trip; ++v) {
          env_[s.var] = v;
          if (auto st = walk(s.body); !st) return st;
        }
        env_.erase(s.var);
        break;
      case StmtKind::Sync:
      case StmtKind::If: return makeError("a lowered program holds only loops and instructions");
    }
  }
  return success();
}

void Replay::numberInstrs(const std::vector<Stmt>& block) {
  for (const auto& s : block) {
    if (s.kind == StmtKind::Instr) ordinal_.emplace(s.uid, ordinal_.size());
    numberInstrs(s.body);
    numberInstrs(s.elseBody);
  }
}

Status Replay::run() {
  numberInstrs(low_.program.body);
  if (auto st = walk(low_.program.body); !st) return st;
  size_t expected = 0;
  for (NodeId id : low_.plan.order) {
    UnitDomain d = g_.domainOf(g_.node(id));
    expected += static_cast<size_t>(std::max<int64_t>(0, std::min(d.end, g_.units) - std::max<int64_t>(d.begin, 0)));
  }
  if (ran_.size() != expected)
    return makeError("the lowered program runs " + std::to_string(ran_.size()) + " node instances, the graph has " + std::to_string(expected));
  for (const BufferLayout& bl : low_.layout.buffers) {
    if (bl.kind != LayoutKind::Global || g_.buffer(bl.gir).role != BufferRole::Output) continue;
    const auto& m = mem_[bl.asck];
    for (size_t e = 0; e < m.size(); ++e) {
      if (tagHash(m[e]) == ref_.prov.hashes[bl.gir.value][e]) continue;
      Provenance exact(g_, true);
      if (auto run = interpret(g_, ref_.inputs, &exact); !run) return run.takeError();
      return makeError("output %" + g_.buffer(bl.gir).name + " element " + std::to_string(e) + " ends as " + tagText(g_, m[e]) +
                       ", the interpreter leaves " + tagText(g_, exact.tags[bl.gir.value][e]));
    }
  }
  return success();
}

size_t countInstrs(const std::vector<Stmt>& block) {
  size_t n = 0;
  for (const auto& s : block) n += s.kind == StmtKind::Instr ? 1 : countInstrs(s.body) + countInstrs(s.elseBody);
  return n;
}

}  // namespace

Status checkLowering(const Graph& g, const AsckLowering& low, const LoweringReference& ref) {
  if (low.origins.size() != countInstrs(low.program.body))
    return makeError("the lowering records " + std::to_string(low.origins.size()) + " instruction origins for " +
                     std::to_string(countInstrs(low.program.body)) + " instructions");
  GIR_ASSERT(ref.impl_ && ref.impl_->graph == &g, "a lowering reference is checked against the graph it was made from");
  return Replay(g, low, *ref.impl_).run();
}

Status checkLowering(const Graph& g, const AsckLowering& low) {
  auto ref = LoweringReference::of(g);
  if (!ref) return ref.takeError();
  return checkLowering(g, low, *ref);
}

}  // namespace gir::ascend
