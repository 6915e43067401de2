// Latest-writer/latest-reader tables per (buffer, tile, pipe), with whole-buffer entries and aggregates.
#include "codegen/ascend/asck/AsckConflicts.h"

namespace gir::ascend {

namespace {

struct BufferTable {
  std::vector<int> tileW, tileR;   // [tile * kNumPipes + pipe]
  int wholeW[kNumPipes], wholeR[kNumPipes], anyW[kNumPipes], anyR[kNumPipes];
  explicit BufferTable(int tiles) : tileW(static_cast<size_t>(tiles) * kNumPipes, -1), tileR(tileW) {
    for (int p = 0; p < kNumPipes; ++p) wholeW[p] = wholeR[p] = anyW[p] = anyR[p] = -1;
  }
  // Latest op of pipe p that conflicts with an access (tile, write).
  int latest(int tile, bool write, int p) const {
    int w = tile < 0 ? anyW[p] : std::max(tileW[tile * kNumPipes + p], wholeW[p]);
    if (!write) return w;
    int r = tile < 0 ? anyR[p] : std::max(tileR[tile * kNumPipes + p], wholeR[p]);
    return std::max(w, r);
  }
  void record(int tile, bool write, int p, int op) {
    (write ? anyW : anyR)[p] = op;
    if (tile < 0) (write ? wholeW : wholeR)[p] = op;
    else (write ? tileW : tileR)[tile * kNumPipes + p] = op;
  }
};

}  // namespace

bool forEachConflict(const Trace& t, const std::function<bool(int, int)>& onConflict,
                     const std::function<void(int)>& onInstr) {
  std::vector<BufferTable> tables;
  for (int b = 0; b < t.numBuffers; ++b) tables.emplace_back(t.tileCounts[b]);
  for (int i = 0; i < static_cast<int>(t.ops.size()); ++i) {
    const DynOp& op = t.ops[i];
    if (op.kind != DynKind::Instr) continue;
    for (int p = 0; p < kNumPipes; ++p) {
      if (p == op.pipe) continue;
      int best = -1;
      for (int k = op.accessBegin; k < op.accessEnd; ++k) {
        const Access& a = t.accesses[k];
        best = std::max(best, tables[a.buffer].latest(a.tile, a.write, p));
      }
      if (best >= 0 && !onConflict(best, i)) return false;
    }
    if (onInstr) onInstr(i);
    for (int k = op.accessBegin; k < op.accessEnd; ++k) {
      const Access& a = t.accesses[k];
      tables[a.buffer].record(a.tile, a.write, op.pipe, i);
    }
  }
  return true;
}

std::string conflictKind(const Trace& t, int a, int b) {
  const DynOp& x = t.ops[a];
  const DynOp& y = t.ops[b];
  for (int i = x.accessBegin; i < x.accessEnd; ++i)
    for (int j = y.accessBegin; j < y.accessEnd; ++j) {
      const Access& u = t.accesses[i];
      const Access& v = t.accesses[j];
      if (u.buffer != v.buffer || !(u.write || v.write)) continue;
      if (u.tile >= 0 && v.tile >= 0 && u.tile != v.tile) continue;
      std::string kind = u.write && v.write ? "WAW" : u.write ? "RAW" : "WAR";
      const Access& shown = u.tile >= 0 ? u : v;
      std::string region = t.bufferNames[u.buffer] + (shown.tile >= 0 ? "[" + std::to_string(shown.tile) + "]" : "");
      return kind + " on " + region;
    }
  return "conflict";
}

}  // namespace gir::ascend
