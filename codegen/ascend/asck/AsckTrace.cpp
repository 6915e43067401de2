// Unrolling of the structured program for one path of branch outcomes.
#include "codegen/ascend/asck/AsckTrace.h"

#include <unordered_map>

namespace gir::ascend {

std::string Trace::iteration(const DynOp& op) const {
  if (op.env < 0) return "";
  std::string out;
  for (const auto& [n, v] : envs[op.env]) out += (out.empty() ? "" : ", ") + n + "=" + std::to_string(v);
  return out;
}

std::string Trace::describe(int i) const {
  const DynOp& op = ops[i];
  std::string it = iteration(op);
  std::string where = "line " + std::to_string(op.stmt ? op.stmt->line : 0) + (it.empty() ? ", outside loops" : ", " + it);
  if (op.kind == DynKind::Instr) {
    const Stmt& s = *op.stmt;
    std::string what = s.instr.label.empty() ? std::string(pipeName(s.instr.pipe)) + " " + s.instr.op : s.instr.label;
    return "'" + what + "' (" + where + ")";
  }
  return describeSync(op.stmt->sync) + " (" + where + ")";
}

namespace {

class Walker {
 public:
  Walker(const Program& p, const Target& t, const std::function<bool()>& choose) : t_(t), choose_(choose) {
    tr_.numBuffers = static_cast<int>(p.buffers.size());
    for (const auto& b : p.buffers) {
      tr_.tileCounts.push_back(static_cast<int>(b.tileCount()));
      tr_.bufferNames.push_back(b.name);
    }
  }
  void block(const std::vector<Stmt>& b);
  Trace take() { return std::move(tr_); }

 private:
  void instr(const Stmt& s);
  void sync(const Stmt& s);
  int64_t evalIndex(const AffineIndex& e) const;
  int flagIndex(const SyncOp& op);
  void pushEnv() {
    tr_.envs.push_back(stack_);
    env_ = static_cast<int>(tr_.envs.size()) - 1;
  }

  const Target& t_;
  const std::function<bool()>& choose_;
  Trace tr_;
  std::vector<std::pair<std::string, int64_t>> stack_;
  int env_ = -1;
  std::unordered_map<int64_t, int> flagIds_;
};

int64_t Walker::evalIndex(const AffineIndex& e) const {
  int64_t v = e.constant;
  for (const auto& [c, name] : e.terms)
    for (auto it = stack_.rbegin(); it != stack_.rend(); ++it)
      if (it->first == name) { v += c * it->second; break; }
  if (e.mod > 0) v = ((v % e.mod) + e.mod) % e.mod;
  return v;
}

int Walker::flagIndex(const SyncOp& op) {
  int64_t key = (static_cast<int64_t>(op.src) * kNumPipes + static_cast<int64_t>(op.dst)) * 100000000 + op.id;
  auto [it, fresh] = flagIds_.emplace(key, static_cast<int>(tr_.flags.size()));
  if (fresh) tr_.flags.push_back({static_cast<int>(op.src), static_cast<int>(op.dst), op.id});
  return it->second;
}

void Walker::instr(const Stmt& s) {
  DynOp op;
  op.kind = DynKind::Instr;
  op.pipe = static_cast<int>(s.instr.pipe);
  op.stmt = &s;
  op.env = env_;
  op.cycles = t_.cyclesOf(s.instr);
  op.accessBegin = static_cast<int>(tr_.accesses.size());
  auto add = [&](const RegionRef& r, bool write) {
    int tile = r.whole ? -1 : static_cast<int>(evalIndex(r.index));
    tr_.accesses.push_back({r.buffer, tile, write});
  };
  for (const auto& r : s.instr.dsts) add(r, true);
  for (const auto& r : s.instr.srcs) add(r, false);
  op.accessEnd = static_cast<int>(tr_.accesses.size());
  tr_.ops.push_back(op);
}

void Walker::sync(const Stmt& s) {
  DynOp op;
  op.stmt = &s;
  op.env = env_;
  op.cycles = t_.syncCost;
  const SyncOp& so = s.sync;
  if (so.kind == SyncKind::Barrier) {
    op.kind = so.all ? DynKind::BarrierAll : DynKind::Barrier;
    op.pipe = static_cast<int>(so.src);
  } else {
    op.kind = so.kind == SyncKind::Set ? DynKind::Set : DynKind::Wait;
    op.pipe = static_cast<int>(so.pipe());
    op.flag = flagIndex(so);
  }
  tr_.ops.push_back(op);
}

void Walker::block(const std::vector<Stmt>& b) {
  for (const auto& s : b) {
    switch (s.kind) {
      case StmtKind::Instr: instr(s); break;
      case StmtKind::Sync: sync(s); break;
      case StmtKind::Loop: {
        int saved = env_;
        stack_.push_back({s.var, 0});
        for (int64_t i = 0; i < s.trip; ++i) {
          stack_.back().second = i;
          pushEnv();
          block(s.body);
        }
        stack_.pop_back();
        env_ = saved;
        break;
      }
      case StmtKind::If:
        block(choose_() ? s.body : s.elseBody);
        break;
    }
  }
}

}  // namespace

Trace buildTrace(const Program& p, const Target& t, const std::function<bool()>& choose) {
  Walker w(p, t, choose);
  w.block(p.body);
  return w.take();
}

int64_t countPaths(const std::vector<Stmt>& block, int64_t cap) {
  int64_t n = 1;
  for (const auto& s : block) {
    int64_t k = 1;
    if (s.kind == StmtKind::If) k = countPaths(s.body, cap) + countPaths(s.elseBody, cap);
    if (s.kind == StmtKind::Loop) {
      int64_t body = countPaths(s.body, cap);
      for (int64_t i = 0; i < s.trip && k <= cap; ++i) k *= body;
      if (body == 1) k = 1;
    }
    n = std::min(n * std::min(k, cap + 1), cap + 1);
  }
  return n;
}

}  // namespace gir::ascend
