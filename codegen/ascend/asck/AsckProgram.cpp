// Names, the pipe/memory reach table of docs/ascend.md, "The machine", and small tree helpers.
#include "codegen/ascend/asck/AsckProgram.h"

#include <algorithm>

namespace gir::ascend {

namespace {
const char* const kPipeNames[] = {"S", "V", "M", "MTE1", "MTE2", "MTE3", "FIX"};
const char* const kMemNames[] = {"GM", "UB", "L1", "L0A", "L0B", "L0C"};
constexpr int bit(Mem m) { return 1 << static_cast<int>(m); }
constexpr int kAll = 0x3f;
// Reads and writes per pipe, in Pipe order (docs/ascend.md, "The machine", table).
constexpr int kReads[] = {kAll, bit(Mem::UB), bit(Mem::L0A) | bit(Mem::L0B) | bit(Mem::L0C), bit(Mem::L1),
                          bit(Mem::GM), bit(Mem::UB), bit(Mem::L0C)};
constexpr int kWrites[] = {kAll,
                           bit(Mem::UB),
                           bit(Mem::L0C),
                           bit(Mem::L0A) | bit(Mem::L0B) | bit(Mem::UB),
                           bit(Mem::L1) | bit(Mem::L0A) | bit(Mem::L0B) | bit(Mem::UB),
                           bit(Mem::GM),
                           bit(Mem::GM) | bit(Mem::L1) | bit(Mem::UB)};
}  // namespace

const char* pipeName(Pipe p) { return kPipeNames[static_cast<int>(p)]; }
const char* memName(Mem m) { return kMemNames[static_cast<int>(m)]; }

std::optional<Pipe> parsePipe(const std::string& s) {
  for (int i = 0; i < kNumPipes; ++i)
    if (s == kPipeNames[i]) return static_cast<Pipe>(i);
  return std::nullopt;
}

std::optional<Mem> parseMem(const std::string& s) {
  for (int i = 0; i < 6; ++i)
    if (s == kMemNames[i]) return static_cast<Mem>(i);
  return std::nullopt;
}

bool pipeCanRead(Pipe p, Mem m) { return kReads[static_cast<int>(p)] & bit(m); }
bool pipeCanWrite(Pipe p, Mem m) { return kWrites[static_cast<int>(p)] & bit(m); }

int64_t AffineIndex::eval(const std::map<std::string, int64_t>& env) const {
  int64_t v = constant;
  for (const auto& [c, name] : terms) {
    auto it = env.find(name);
    v += c * (it == env.end() ? 0 : it->second);
  }
  if (mod > 0) v = ((v % mod) + mod) % mod;
  return v;
}

std::string AffineIndex::str() const {
  std::string out;
  for (const auto& [c, name] : terms) {
    if (!out.empty()) out += c < 0 ? "-" : "+";
    else if (c < 0) out += "-";
    int64_t a = c < 0 ? -c : c;
    if (a != 1) out += std::to_string(a) + "*";
    out += name;
  }
  if (constant != 0 || out.empty()) {
    if (!out.empty()) out += constant < 0 ? "-" : "+";
    else if (constant < 0) out += "-";
    out += std::to_string(constant < 0 ? -constant : constant);
  }
  if (mod > 0) {
    bool simple = terms.size() + (constant != 0 ? 1 : 0) <= 1 && (terms.empty() || terms[0].first == 1);
    out = (simple ? out : "(" + out + ")") + "%" + std::to_string(mod);
  }
  return out;
}

int Program::findBuffer(const std::string& n) const {
  for (size_t i = 0; i < buffers.size(); ++i)
    if (buffers[i].name == n) return static_cast<int>(i);
  return -1;
}

static void numberBlock(std::vector<Stmt>& block, int& next) {
  for (auto& s : block) {
    s.uid = next++;
    numberBlock(s.body, next);
    numberBlock(s.elseBody, next);
  }
}

int numberStmts(Program& p) {
  int next = 0;
  numberBlock(p.body, next);
  return next;
}

int64_t maxDynamicInstrs(const std::vector<Stmt>& block) {
  int64_t n = 0;
  for (const auto& s : block) {
    switch (s.kind) {
      case StmtKind::Instr: n += 1; break;
      case StmtKind::Sync: break;
      case StmtKind::Loop: {
        int64_t body = maxDynamicInstrs(s.body);  // saturates instead of overflowing
        n += body > 0 && s.trip > kDynamicCap / body ? kDynamicCap : s.trip * body;
        break;
      }
      case StmtKind::If: n += std::max(maxDynamicInstrs(s.body), maxDynamicInstrs(s.elseBody)); break;
    }
  }
  return std::min(n, kDynamicCap);
}

void stripSync(std::vector<Stmt>& block) {
  std::vector<Stmt> kept;
  for (auto& s : block) {
    if (s.kind == StmtKind::Sync) continue;
    stripSync(s.body);
    stripSync(s.elseBody);
    kept.push_back(std::move(s));
  }
  block = std::move(kept);
}

bool hasSync(const std::vector<Stmt>& block) {
  for (const auto& s : block)
    if (s.kind == StmtKind::Sync || hasSync(s.body) || hasSync(s.elseBody)) return true;
  return false;
}

std::string describeInstr(const Stmt& s) {
  std::string what = s.instr.label.empty() ? std::string(pipeName(s.instr.pipe)) + " " + s.instr.op : s.instr.label;
  return "'" + what + "' (line " + std::to_string(s.line) + ")";
}

std::string describeSync(const SyncOp& op) {
  if (op.kind == SyncKind::Barrier) return std::string("pipe_barrier ") + (op.all ? "ALL" : pipeName(op.src));
  return std::string(op.kind == SyncKind::Set ? "set_flag " : "wait_flag ") + pipeName(op.src) + " " +
         pipeName(op.dst) + " " + std::to_string(op.id);
}

}  // namespace gir::ascend
