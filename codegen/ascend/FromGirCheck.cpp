// Stage 4 of the GIR -> .asck lowering (FromGir.h): the lowered program, run in program order on element
// provenance, must match the GIR interpreter read for read. The simulator judges only ordering, not data, so
// this is what ties the oracle's verdict to the GIR semantics: if every instruction's elements lie inside its
// region reference, every element conflict is a region conflict the inserted flags must order; if the
// in-order run reads what the interpreter reads, the timed run does too.
#include "codegen/ascend/FromGir.h"

#include <set>
#include <tuple>

#include "core/gir/Interpreter.h"
#include "codegen/ascend/AsckPrinter.h"
#include "core/gir/Printer.h"

namespace gir::ascend {

namespace {

// Which write an element holds: the GIR buffer and element written, by which node and unit.
struct Tag {
  int32_t buffer = -1;
  int32_t node = -1;  // kInput: the input's own data; -1 with buffer -1: never written
  int64_t unit = -1;
  int64_t element = -1;
  bool operator==(const Tag&) const = default;
};
constexpr int32_t kInput = -2;

std::string tagText(const Graph& g, const Tag& t) {
  if (t.buffer < 0) return "an element nothing wrote";
  std::string where = "%" + g.buffer(BufferId(static_cast<uint32_t>(t.buffer))).name + "[" + std::to_string(t.element) + "]";
  if (t.node == kInput) return where + " as given (input)";
  return where + " as written by n" + std::to_string(t.node) + " unit " + std::to_string(t.unit);
}

// The interpreter's view: per (node, unit) the provenance of every element each input read saw.
class Provenance : public AccessObserver {
 public:
  explicit Provenance(const Graph& g) {
    mem.resize(g.buffers().size());
    for (uint32_t b = 0; b < g.buffers().size(); ++b) {
      const gir::Buffer& buf = g.buffers()[b];
      if (buf.erased) continue;
      mem[b].resize(static_cast<size_t>(buf.numel()));
      if (buf.role == BufferRole::Input)
        for (int64_t e = 0; e < buf.numel(); ++e) mem[b][e] = {static_cast<int32_t>(b), kInput, 0, e};
    }
  }
  void access(NodeId node, int64_t unit, BufferId b, const std::vector<int64_t>& elements, bool isWrite) override {
    auto& m = mem[b.value];
    if (isWrite) {
      for (int64_t e : elements) m[e] = {static_cast<int32_t>(b.value), static_cast<int32_t>(node.value), unit, e};
      return;
    }
    auto& reads = seen[{node.value, unit}];
    reads.emplace_back();
    for (int64_t e : elements) reads.back().push_back(m[e]);
  }
  std::map<std::pair<uint32_t, int64_t>, std::vector<std::vector<Tag>>> seen;
  std::vector<std::vector<Tag>> mem;
};

class Replay {
 public:
  Replay(const Graph& g, const AsckLowering& low, const Provenance& ref) : g_(g), low_(low), ref_(ref) {
    mem_.resize(low.program.buffers.size());
    for (size_t b = 0; b < mem_.size(); ++b) {
      mem_[b].resize(static_cast<size_t>(low.program.buffers[b].bytes / 4));
      const BufferLayout& bl = low.layout.buffers[b];
      if (bl.kind != LayoutKind::Global || g.buffer(bl.gir).role != BufferRole::Input) continue;
      for (size_t e = 0; e < mem_[b].size(); ++e)
        mem_[b][e] = {static_cast<int32_t>(bl.gir.value), kInput, 0, static_cast<int64_t>(e)};
    }
  }
  Status run();

 private:
  Status walk(const std::vector<Stmt>& block);
  Status exec(const Stmt& s);
  Expected<std::vector<int64_t>> physical(const Stmt& s, const RegionRef& r, SliceId slice, int64_t u);
  Diagnostic fail(const Stmt& s, int64_t u, const std::string& what) const;
  void numberInstrs(const std::vector<Stmt>& block);

  const Graph& g_;
  const AsckLowering& low_;
  const Provenance& ref_;
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

// The elements a reference touches, in slice order, and the check that they lie inside the region.
Expected<std::vector<int64_t>> Replay::physical(const Stmt& s, const RegionRef& r, SliceId slice, int64_t u) {
  const BufferLayout& bl = low_.layout.buffers[r.buffer];
  const Buffer& decl = low_.program.buffers[r.buffer];
  sliceElements(g_.slice(slice), u, elems_);
  if (bl.kind != LayoutKind::Staging && low_.layout.ofGir.at(g_.slice(slice).buffer.value) != r.buffer)
    return fail(s, u, "slice %s" + std::to_string(slice.value) + " is not held by buffer " + decl.name);
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
  auto it = ref_.seen.find({o.node.value, u});
  size_t reads = it == ref_.seen.end() ? 0 : it->second.size();
  if (reads != src.size()) return fail(s, u, "reads " + std::to_string(src.size()) + " operands, the interpreter " + std::to_string(reads));
  for (size_t k = 0; k < src.size(); ++k)
    for (size_t i = 0; i < src[k].size(); ++i) {
      const Tag& got = mem_[s.instr.srcs[k].buffer][src[k][i]];
      if (!(got == it->second[k][i]))
        return fail(s, u, "input " + std::to_string(k) + " element " + std::to_string(i) + " reads " + tagText(g_, got) +
                              ", the interpreter reads " + tagText(g_, it->second[k][i]));
    }
  sliceElements(g_.slice(o.dsts[0]), u, elems_);
  int32_t b = static_cast<int32_t>(g_.slice(o.dsts[0]).buffer.value);
  for (size_t i = 0; i < d->size(); ++i) out[(*d)[i]] = {b, static_cast<int32_t>(o.node.value), u, elems_[i]};
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
  for (size_t b = 0; b < mem_.size(); ++b) {
    const BufferLayout& bl = low_.layout.buffers[b];
    if (bl.kind != LayoutKind::Global || g_.buffer(bl.gir).role != BufferRole::Output) continue;
    for (size_t e = 0; e < mem_[b].size(); ++e)
      if (!(mem_[b][e] == ref_.mem[bl.gir.value][e]))
        return makeError("output %" + g_.buffer(bl.gir).name + " element " + std::to_string(e) + " ends as " + tagText(g_, mem_[b][e]) +
                         ", the interpreter leaves " + tagText(g_, ref_.mem[bl.gir.value][e]));
  }
  return success();
}

size_t countInstrs(const std::vector<Stmt>& block) {
  size_t n = 0;
  for (const auto& s : block) n += s.kind == StmtKind::Instr ? 1 : countInstrs(s.body) + countInstrs(s.elseBody);
  return n;
}

}  // namespace

Status checkLowering(const Graph& g, const AsckLowering& low) {
  if (low.origins.size() != countInstrs(low.program.body))
    return makeError("the lowering records " + std::to_string(low.origins.size()) + " instruction origins for " +
                     std::to_string(countInstrs(low.program.body)) + " instructions");
  Provenance ref(g);
  auto run = interpret(g, randomInputs(g, 1), &ref);
  if (!run) return run.takeError();
  return Replay(g, low, ref).run();
}

}  // namespace gir::ascend
