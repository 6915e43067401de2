// The loops of one gOperator for one unit, as C++ statements (used by CpuEmitter; the calibration
// spells its transcendental microbenchmarks with elementwiseExpr).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "codegen/schedule/BlockOrder.h"
#include "codegen/schedule/BufferHomes.h"
#include "codegen/schedule/FusedLoops.h"
#include "codegen/schedule/LoopNest.h"
#include "codegen/schedule/Schedule.h"
#include "core/Expected.h"
#include "core/gir/Graph.h"

namespace gir::codegen::cpu {

// Indented lines of C++.
class CodeWriter {
 public:
  void line(const std::string& text);
  void open(const std::string& head) { line(head.empty() ? "{" : head + " {"); ++indent_; }
  void close(const std::string& tail = "}") { --indent_; line(tail); }
  void blank() { text_ += "\n"; }
  void raw(std::string_view lines) { text_ += lines; }  // whole lines, written as they are (pragmas)
  const std::string& text() const { return text_; }

 private:
  std::string text_;
  int indent_ = 0;
};

// What every node's emission needs: the graph, its schedule and the C names of its buffers.
struct EmitContext {
  const Graph& g;
  const Schedule& schedule;
  std::vector<std::string> names;  // per buffer id: its C identifier
  bool instrument = false;
  std::vector<bool> streamed;  // per buffer id: written with streaming stores (CpuEmitOptions)
  std::vector<bool> nonPositive;  // per slice id: holds only values <= 0 or NaN (core/gir/ValueSigns.h)
  int rowSumSegments = 1;  // CpuEmitOptions
};

// What a stage makes of its buffers (CpuEmitter decides; the loop bodies spell it). Per buffer id.
struct StageBuffers {
  std::vector<bool> values;      // its writers store nothing: a value in registers, or a copy's source
  std::vector<bool> unitArrays;  // a unit's own array on the stack (`alignas(64) float name[n]`)
  std::vector<bool> phaseOnly;   // of those, kept only as its even and odd phases (PhaseSplit.h)
};

// A slice's offset within its buffer's instance for unit u (the whole buffer for a global one), and
// the start of the unit's instance in its block's (PerBlockUnits: "(u - u0)*n + "; empty otherwise).
struct InstanceOffset {
  AffineIndex offset;
  std::string unitPrefix;
};
InstanceOffset instanceOffset(const EmitContext& c, SliceId sid);

// C expression of an affine offset in `u` ("16*u - 90944", "4*(u/4)", "0").
std::string affineExpr(const AffineIndex& a);
// C expression of the block visited at visit `t` in a block order that is not the index order
// ("(visit % 56) * 3072 + visit / 56"; codegen/schedule/BlockOrder.h, BlockOrder::block).
std::string visitedBlockExpr(const BlockOrder& order, const std::string& t);
// A float literal that reads back as the float nearest to v ("1.0f", "1e-05f", "INFINITY").
std::string floatLiteral(double v);
// An elementwise op over operand expressions as the CPU kernels spell it: the op table's rendering
// (core/gir/ScalarOps.h) with the prelude's replacements (girExp, girSigmoid, girErf, girMax, ...).
std::string elementwiseExpr(ElementwiseOp op, const std::vector<std::string>& a);

// Emits the node's statements (inside a scope of its own) into w. With `firstInput`, the node reads
// that operand (a move's source, LoopGroup::readsThroughMove) in place of its first input.
Status emitNode(CodeWriter& w, const EmitContext& c, NodeId id, const NestOperand* firstInput = nullptr);

// The declaration of a per-unit buffer whose instance lives elsewhere (codegen/schedule/BufferHomes.h):
// a pointer to the slice that holds it, with a comment saying why.
std::string homePointer(const EmitContext& c, BufferId b, const BufferHome& home);

// A move that stores nothing, as its buffer is the slice it copies (HomeKind::CopySource): its comment,
// and in instrumented builds the count of the device reads it stands for (its readers read that slice
// through the buffer's name, which is not device memory).
void emitDroppedCopy(CodeWriter& w, const EmitContext& c, NodeId id);

// Emits fused groups (codegen/schedule/FusedLoops.h) that share their outer loops [0, depth)
// (codegen/schedule/LoopBands.h; depth 0: one group) as one loop nest per group, with one commented
// block of statements per node; buffers marked in `buffers.values` live in locals v<node>, and stride-2
// reads of `buffers.unitArrays` go through their even and odd phases, which the writers of
// `buffers.phaseOnly` fill themselves (PhaseSplit.h). `rows`: which of the next unit's long rows the
// band prefetches (below).
struct RowPrefetch;
void emitLoopBand(CodeWriter& w, const EmitContext& c, const std::vector<const LoopGroup*>& band, size_t depth,
                  const StageBuffers& buffers, const RowPrefetch& rows);

// A long unit-stride row of a device input that a group reads at `c*u + ...`: unit u + 1 reads the same
// elements plus c (docs/cpu.md, "Prefetching the next unit").
struct NextUnitRow {
  SliceId slice;
  int64_t coeff = 0;
  std::vector<int64_t> strides;  // the reading nest's, over the group's loops
  int64_t unitsAhead = 1;        // prefetch unit u + unitsAhead's
};
// The rows of more than 256 floats a group (in a band of `depth` shared loops) reads that way.
std::vector<NextUnitRow> longNextUnitRows(const EmitContext& c, const LoopGroup& grp, size_t depth);
// Whether the group's innermost loop goes by whole 64-byte lines or lane blocks (a place to prefetch).
bool stepsByLines(const EmitContext& c, const LoopGroup& grp, size_t from, const StageBuffers& buffers);

// Where a unit's long rows are prefetched for the units after it: by the unit's last looping pass, over
// the same loops, as it goes, two units ahead (`laterRows`, the rows earlier passes read); else, where
// that pass cannot, by the pass that reads them, one unit ahead, when more passes follow it (`ownRows`).
// A stage's only looping pass reads its rows once, with nothing prefetched: where the machine asks for
// it, its long sums read each row as two segments side by side instead (`segmentedSums`; docs/cpu.md,
// "Two segments").
struct RowPrefetch {
  bool ownRows = false;
  std::vector<NextUnitRow> laterRows;
  bool segmentedSums = false;
};

}  // namespace gir::codegen::cpu
