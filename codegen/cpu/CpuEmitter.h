// C++/OpenMP source for a GIR-Graph on the CPU (docs/cpu.md, "The CPU mapping", in the spirit of Inductor's
// C++ backend; docs/cpu.md): units become iterations of a parallel loop over blocks (a block = the
// units one thread runs in turn, with a cache-resident scratch for block-scope levels), unit-scope
// slices become small arrays, device syncs end a parallel loop (its implicit barrier), block syncs
// order the stages inside a block's thread, innermost contiguous loops carry `#pragma omp simd`.
#pragma once

#include <string>
#include <vector>

#include "codegen/schedule/Schedule.h"
#include "core/Expected.h"
#include "core/gir/Graph.h"

namespace gir::codegen::cpu {

// Per-unit instances of at most this many floats are stack arrays; larger ones go to the thread scratch.
constexpr int64_t kStackArrayLimit = 8192;

struct CpuEmitOptions {
  // Instrumented build: every emitted load or store of a device-scope buffer adds its bytes to a
  // counter (gir_counted_bytes), so tests can compare the loops' traffic with the cost model.
  bool instrument = false;
  // The last-level cache in bytes (0: no streaming stores). When the graph's device buffers together
  // exceed it, a write-once graph output of at least kStreamMinBytes is written with non-temporal
  // stores from a row buffer (docs/cpu.md, "Streaming stores").
  int64_t streamAboveCacheBytes = 0;
  // Device slices read or written in runs shorter than this, with gaps between them, make the emitter
  // run consecutive units as one so that the runs grow to this length (codegen/schedule/UnitCoalescing.h;
  // docs/cpu.md, "Coalesced units"); 0 keeps every unit as planned.
  int64_t coalesceRunsBelowBytes = 4096;
  // A lone row sum's partials read its row front to back (1) or its two halves side by side (2): the
  // hardware description's `row_sum_segments`, measured by `gir run --calibrate` (docs/cpu.md, "Two segments").
  int rowSumSegments = 1;
};

// Coalescing leaves at least this many units, so that the blocks still share out over the threads.
constexpr int64_t kMinCoalescedUnits = 64;

// One entry of the `float* const* g` array the generated functions take: a buffer held in one
// array of its full size (inputs, outputs, device temporaries, unit/block buffers kept global).
struct GlobalArg {
  std::string name;  // the GIR buffer name
  BufferId buffer;
  int64_t elements = 0;
  BufferRole role = BufferRole::Temp;
};

struct CpuSource {
  std::string code;
  std::vector<GlobalArg> args;
  int kernels = 0;
  Schedule schedule;
  std::string signature;  // what gir_signature() returns: "name:elements:role;..."
};

// Exported by every generated library (extern "C"):
//   const char* gir_signature();            the argument list, checked by the launcher
//   void gir_set_threads(int n);
//   int gir_run(float* const* g);           every kernel in one parallel region
//   int gir_run_kernel(int k, float* const* g);  kernel k alone, in its own parallel region
//   long long gir_counted_bytes();          instrumented builds: bytes moved at device levels (-1 otherwise)
//   void gir_reset_counted_bytes();
Expected<CpuSource> emitCpu(const Graph& g, const CpuEmitOptions& options = {});

}  // namespace gir::codegen::cpu
