// One whole run of a kernel for a given choice of branch outcomes, unrolled into per-pipe dynamic
// operations (the scalar walk of docs/ascend.md, "Correctness and figures"). The simulator and the
// insertion's checks read it.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "codegen/ascend/asck/AsckProgram.h"
#include "codegen/ascend/asck/AsckTarget.h"

namespace gir::ascend {

enum class DynKind { Instr, Set, Wait, Barrier, BarrierAll };

struct Access {
  int buffer = -1;
  int tile = -1;  // -1: the whole buffer
  bool write = false;
};

struct DynOp {
  DynKind kind = DynKind::Instr;
  int pipe = 0;        // queue; unused for BarrierAll (it sits in every queue)
  int flag = -1;       // dense flag index for Set/Wait
  const Stmt* stmt = nullptr;
  int env = -1;        // index into Trace::envs: the loop variables' values
  int cycles = 0;      // nominal duration
  int accessBegin = 0, accessEnd = 0;
};

struct FlagKey {
  int src = 0, dst = 0, id = 0;
  bool operator==(const FlagKey& o) const { return src == o.src && dst == o.dst && id == o.id; }
};

struct Trace {
  std::vector<DynOp> ops;  // program (walk) order
  std::vector<Access> accesses;
  std::vector<FlagKey> flags;  // dense index -> key
  std::vector<std::vector<std::pair<std::string, int64_t>>> envs;
  int numBuffers = 0;
  std::vector<int> tileCounts;  // per buffer
  std::vector<std::string> bufferNames;

  // "i=3, j=0" for the op's iteration; empty outside loops.
  std::string iteration(const DynOp& op) const;
  // "'V relu' (line 9, i=3)" or "wait_flag MTE2 V 0 (line 12, i=3)".
  std::string describe(int opIndex) const;
};

// choose() is called at every dynamic `if`; true takes the then-branch.
Trace buildTrace(const Program& p, const Target& t, const std::function<bool()>& choose);

// Whole-run path count, saturated at cap+1.
int64_t countPaths(const std::vector<Stmt>& block, int64_t cap);

}  // namespace gir::ascend
