// The checks of docs/ascend.md, "Input and output format", each reported with file:line:col and a caret line.
#include "codegen/ascend/asck/AsckValidator.h"

#include "codegen/ascend/asck/AsckParser.h"
#include "core/CheckedMath.h"

namespace gir::ascend {

namespace {

struct LoopVar {
  std::string name;
  int64_t trip;
};

// Smallest and largest value of the affine part over the loop box (exact for sums of independent terms);
// false when either bound leaves int64. Every partial sum lies between the two, so an index whose range
// fits also evaluates without overflow (AffineIndex::eval, the trace's walker).
bool affineRange(const AffineIndex& e, const std::vector<LoopVar>& loops, int64_t& lo, int64_t& hi) {
  lo = hi = e.constant;
  for (const auto& [c, name] : e.terms) {
    int64_t trip = 1;
    for (const auto& l : loops)
      if (l.name == name) trip = l.trip;
    auto b = checkedMul(c, trip - 1);
    if (!b) return false;
    auto nlo = checkedAdd(lo, std::min<int64_t>(0, *b)), nhi = checkedAdd(hi, std::max<int64_t>(0, *b));
    if (!nlo || !nhi) return false;
    lo = *nlo;
    hi = *nhi;
  }
  return true;
}

// Exact check of a modulo index by enumerating the variables it uses (bounded).
bool modIndexInRange(const AffineIndex& e, const std::vector<LoopVar>& loops, int64_t count, int64_t& bad) {
  if (e.mod <= count) return true;
  std::vector<LoopVar> used;
  int64_t space = 1;
  for (const auto& [c, name] : e.terms)
    for (const auto& l : loops)
      if (l.name == name) { used.push_back(l); space = std::min<int64_t>(space * l.trip, 1000001); }  // trips <= 10^6: no wrap
  if (space > 1000000) { bad = e.mod - 1; return false; }
  std::map<std::string, int64_t> env;
  for (int64_t k = 0; k < space; ++k) {
    int64_t r = k;
    for (const auto& u : used) { env[u.name] = r % u.trip; r /= u.trip; }
    int64_t v = e.eval(env);
    if (v >= count) { bad = v; return false; }
  }
  return true;
}

class Validator {
 public:
  Validator(const Program& p, const std::string& text, bool input, int flags)
      : p_(p), text_(text), input_(input), flags_(flags) {}
  Status block(const std::vector<Stmt>& b);

 private:
  Diagnostic err(int line, int col, const std::string& m) const { return asckError(p_.file, text_, line, col, m); }
  Status instr(const Stmt& s);
  Status ref(const RegionRef& r, Pipe pipe, bool write);

  const Program& p_;
  const std::string& text_;
  bool input_;
  int flags_;
  std::vector<LoopVar> loops_;
};

Status Validator::block(const std::vector<Stmt>& b) {
  for (const auto& s : b) {
    switch (s.kind) {
      case StmtKind::Instr: {
        auto r = instr(s);
        if (!r) return r;
        break;
      }
      case StmtKind::Sync:
        if (input_) return err(s.line, s.column, "an input kernel holds no sync lines (" + describeSync(s.sync) + ")");
        if (s.sync.kind != SyncKind::Barrier && s.sync.id >= flags_)
          return err(s.line, s.column, "flag ID " + std::to_string(s.sync.id) + " is out of range: the target has " +
                                           std::to_string(flags_) + " IDs per pipe pair");
        break;
      case StmtKind::Loop: {
        if (s.trip < 1) return err(s.line, s.column, "loop trip count must be at least 1");
        if (loops_.size() >= 8) return err(s.line, s.column, "loops nest at most 8 deep");
        loops_.push_back({s.var, s.trip});
        auto r = block(s.body);
        loops_.pop_back();
        if (!r) return r;
        break;
      }
      case StmtKind::If: {
        auto r = block(s.body);
        if (!r) return r;
        auto e = block(s.elseBody);
        if (!e) return e;
        break;
      }
    }
  }
  return success();
}

Status Validator::instr(const Stmt& s) {
  for (const auto& r : s.instr.dsts) {
    auto st = ref(r, s.instr.pipe, true);
    if (!st) return st;
  }
  for (const auto& r : s.instr.srcs) {
    auto st = ref(r, s.instr.pipe, false);
    if (!st) return st;
  }
  return success();
}

Status Validator::ref(const RegionRef& r, Pipe pipe, bool write) {
  const Buffer& b = p_.buffers[r.buffer];
  bool ok = write ? pipeCanWrite(pipe, b.mem) : pipeCanRead(pipe, b.mem);
  if (!ok)
    return err(r.line, r.column, std::string("pipe ") + pipeName(pipe) + " cannot " + (write ? "write " : "read ") +
                                     memName(b.mem) + " (buffer '" + b.name + "')");
  if (r.whole) return success();
  if (b.tile == 0) return err(r.line, r.column, "tile reference on buffer '" + b.name + "', which has no tile=");
  int64_t count = b.tileCount();
  int64_t lo = 0, hi = 0, bad = 0;
  if (!affineRange(r.index, loops_, lo, hi))
    return err(r.line, r.column, "tile index " + r.index.str() + " overflows 64-bit integers over the loops' range");
  if (r.index.mod > 0) {
    if (!modIndexInRange(r.index, loops_, count, bad))
      return err(r.line, r.column, "tile index " + r.index.str() + " reaches " + std::to_string(bad) + " but '" +
                                       b.name + "' has " + std::to_string(count) + " tiles");
    return success();
  }
  if (lo < 0 || hi >= count)
    return err(r.line, r.column, "tile index " + r.index.str() + " ranges over [" + std::to_string(lo) + ", " +
                                     std::to_string(hi) + "] but '" + b.name + "' has " + std::to_string(count) + " tiles");
  return success();
}

}  // namespace

// Runs are simulated instruction by instruction: bound their length.
static Status checkSize(const Program& p, const std::string& text) {
  constexpr int64_t kMaxDynamic = 2000000;
  for (const auto& s : p.body)
    if (maxDynamicInstrs({s}) > kMaxDynamic)
      return asckError(p.file, text, s.line, s.column,
                       "this statement runs more than " + std::to_string(kMaxDynamic) + " dynamic instructions");
  if (maxDynamicInstrs(p.body) > kMaxDynamic)
    return asckError(p.file, text, 1, 1, "the kernel runs more than " + std::to_string(kMaxDynamic) + " dynamic instructions");
  return success();
}

Status validateInput(const Program& p, const std::string& text) {
  auto ok = Validator(p, text, true, 0).block(p.body);
  return ok ? checkSize(p, text) : ok;
}

Status validateOutput(const Program& p, const std::string& text, int flagsPerPair) {
  auto ok = Validator(p, text, false, flagsPerPair).block(p.body);
  return ok ? checkSize(p, text) : ok;
}

}  // namespace gir::ascend
