// The .asck kernel: pipes, memories, buffers, region references, instructions, sync lines, loops and ifs
// (docs/ascend.md, "The contract").
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace gir::ascend {

// The seven in-order queues of one AI Core (docs/ascend.md, "The machine"; FIX moves L0C out).
enum class Pipe { S, V, M, MTE1, MTE2, MTE3, FIX };
constexpr int kNumPipes = 7;
enum class Mem { GM, UB, L1, L0A, L0B, L0C };

const char* pipeName(Pipe p);
std::optional<Pipe> parsePipe(const std::string& s);
const char* memName(Mem m);
std::optional<Mem> parseMem(const std::string& s);
bool pipeCanRead(Pipe p, Mem m);
bool pipeCanWrite(Pipe p, Mem m);

struct Buffer {
  std::string name;
  Mem mem = Mem::GM;
  int64_t bytes = 0;
  int64_t tile = 0;  // 0: no tile= (whole-buffer references only)
  int64_t tileCount() const { return tile > 0 ? bytes / tile : 0; }
};

// The largest magnitude of a tile index's constant, coefficient or modulus, after like terms are merged
// (docs/ascend.md, "Input and output format"): with trips of at most 10^6 and loops 8 deep, the
// validator's range arithmetic is still checked, so that no index wraps.
constexpr int64_t kMaxIndexMagnitude = int64_t(1) << 40;
// Tiles of one buffer: the conflict tables hold a slot per tile and pipe (a GM buffer of 3.3e16 bytes in
// tiles of 4 KiB asked for 8e12 of them and aborted; found by fuzz_asck).
constexpr int64_t kMaxTilesPerBuffer = int64_t(1) << 20;

// sum(coef * var) + constant, optionally taken modulo `mod` (non-negative remainder).
struct AffineIndex {
  std::vector<std::pair<int64_t, std::string>> terms;
  int64_t constant = 0;
  int64_t mod = 0;  // 0: none
  int64_t eval(const std::map<std::string, int64_t>& env) const;
  std::string str() const;
};

struct RegionRef {
  int buffer = -1;  // index into Program::buffers
  bool whole = true;
  AffineIndex index;
  int line = 0, column = 0;
};

struct Instr {
  Pipe pipe = Pipe::S;
  std::string op;
  std::vector<RegionRef> dsts, srcs;
  int cycles = 0;  // 0: the target's default for the pipe
  std::string label;
};

enum class SyncKind { Set, Wait, Barrier };
struct SyncOp {
  SyncKind kind = SyncKind::Set;
  Pipe src = Pipe::S, dst = Pipe::S;  // set/wait: the flag's pipe pair; barrier: src is the pipe
  int id = 0;
  bool all = false;  // pipe_barrier ALL
  Pipe pipe() const { return kind == SyncKind::Wait ? dst : src; }
};

enum class StmtKind { Instr, Sync, Loop, If };

struct Stmt {
  StmtKind kind = StmtKind::Instr;
  Instr instr;
  SyncOp sync;
  std::string var;  // loop variable or if condition
  int64_t trip = 1;
  std::vector<Stmt> body;      // loop body or then-block
  std::vector<Stmt> elseBody;  // only for if
  bool hasElse = false;
  int line = 0, column = 0;
  int uid = -1;  // preorder number, assigned by numberStmts()
  int tag = -1;  // free for passes: the sync insertion stores the placed sync's id here
};

struct Program {
  std::string name;
  std::string target;  // empty: ascend910
  std::string file;    // for messages
  std::vector<Buffer> buffers;
  std::vector<Stmt> body;

  int findBuffer(const std::string& name) const;
};

// Assigns preorder uids to every statement; returns the count.
int numberStmts(Program& p);
// Number of dynamic instructions (not sync) of the whole run when every if takes its bigger branch,
// saturated at kDynamicCap.
constexpr int64_t kDynamicCap = int64_t(1) << 40;
int64_t maxDynamicInstrs(const std::vector<Stmt>& block);
// Removes sync lines (and nothing else); used to recover the input of an output.
void stripSync(std::vector<Stmt>& block);
bool hasSync(const std::vector<Stmt>& block);
// "MTE2 copy (line 8)" or the label when the instruction has one.
std::string describeInstr(const Stmt& s);
std::string describeSync(const SyncOp& op);

}  // namespace gir::ascend
