// Consecutive units run as one, side by side along the innermost dim (docs/cpu.md, "Coalesced units").
//
// A column-strip plan cuts a 4096x4096 column sum into units of 64 rows x 64 columns: each unit reads
// 64 runs of 256 bytes, 16 KB apart, so one thread walks 64 DRAM pages for 16 KB of data before the
// next unit reads the strip beside it. Run as one unit, 16 such units read 64 runs of 4 KB: the same
// bytes in the same kernels, measured 6.3 ms -> 3.9-4.2 ms on a 2-core AMD EPYC. The transform is on
// the GIR-Graph, not in the emitter, so the verifier and the symbolic memory checker judge the graph
// that is emitted, and every back end loop stays the one that emits any other graph.
#pragma once

#include <cstdint>
#include <optional>

#include "core/Expected.h"
#include "core/gir/Graph.h"

namespace gir::codegen {

// The graph whose unit u' does the work of units [u'*factor, (u'+1)*factor) of g: units/factor
// units, every live slice `factor` times wider in its last dim, offsets taken at u = u'*factor. It
// computes what g computes where, for every block start u (a multiple of factor) and j < factor, unit
// u+j's slice of each shared buffer continues unit u+j-1's along a dense last dim, each private
// (unit-scope) buffer is one dense instance per unit (relaid out wider), and no node mixes the last
// dim with another: moves and elementwise nodes between equal shapes, reductions and broadcasts that
// keep the last dim. Otherwise an error names the slice or node and what it lacks.
Expected<Graph> coalesceUnits(const Graph& g, int64_t factor);

// The factor the CPU emitter coalesces by: the smallest power of two (at most 64) that makes the
// shortest run of a strided device-level slice at least `runBytes` long, halved until coalesceUnits
// accepts it and at least `minUnits` units remain; 1 when no device slice has runs shorter than
// `runBytes` with gaps between them, or no factor applies.
int64_t stridedRunFactor(const Graph& g, int64_t runBytes, int64_t minUnits);
// The graph coalesced by that factor; nothing where the factor is 1.
std::optional<Graph> coalesceStridedRuns(const Graph& g, int64_t runBytes, int64_t minUnits);

}  // namespace gir::codegen
